import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { advisoryRevisions, advisoryVulns, comments, events, vulnRecords } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { parseSigningKeys, publicJwks, signCompact } from "../lib/jws";
import { canonicalSubmission } from "../intake/intake";
import type { Deadline } from "../lib/deadlines";
import { signReceipt, type Report } from "./reporter";

// The reporter's timeline: every fact of the report that concerns its reporter, oldest first, each
// entry carrying the SHA-256 of the one before it, and the whole signed like the receipt. What it holds
// of a comment is its hash, never its text: the reporter has the text, and the hash proves it.

/** The type of the signed timeline (its JWS header's `typ`). */
export const TIMELINE_TYPE = "vdp-timeline+jwt";

/** One fact: flat, strings and nulls only, so its canonical JSON (RFC 8785) is its keys sorted. */
export type TimelineEntry = Record<string, string | null>;

/** RFC 8785 canonical JSON of a flat object of strings and nulls: keys sorted, no white space. */
export function canonicalEntry(entry: TimelineEntry): string {
  const keys = Object.keys(entry).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(entry[k])}`).join(",")}}`;
}

/** Facts of the same moment, in the order they happen. */
const ORDER = ["received", "stored", "acknowledged", "triage_changed", "comment", "advisory", "deadline_met", "deadline_breached"];

/** What a deadline says of itself: breached at its due time if it was missed, met when it was met. */
function deadlineFacts(name: string, d: Deadline, now: number): TimelineEntry[] {
  if (!d.due_at) return [];
  // Missed: met after its due time, or not met by `now` while it runs (a paused one waits).
  const missed = d.met_at ? d.met_at > d.due_at : d.state !== "paused" && Date.parse(d.due_at) <= now;
  return [
    ...(missed ? [{ type: "deadline_breached", at: d.due_at, deadline: name }] : []),
    ...(d.met_at ? [{ type: "deadline_met", at: d.met_at, deadline: name }] : []),
  ];
}

/**
 * The report's facts as of `now`, in one read: the record as stored, the conversation the reporter can
 * read (as hashes), the triage moves, each published revision of an advisory about the report (its
 * publication, each revision, a withdrawal); and from the report itself, its arrival and its promises.
 */
export async function reportTimeline(db: Db, report: Report, now: Date): Promise<TimelineEntry[]> {
  const [records, thread, moves, advisories] = await db.batch([
    db.select({ storedAt: vulnRecords.storedAt, sha256: vulnRecords.sha256 }).from(vulnRecords).where(eq(vulnRecords.vulnId, report.id)),
    db
      .select({ author: comments.author, body: comments.body, createdAt: comments.createdAt })
      .from(comments)
      .where(and(eq(comments.vulnId, report.id), eq(comments.visibility, "reporter")))
      .orderBy(asc(comments.createdAt), asc(comments.id)),
    db
      .select({ payload: events.payload })
      .from(events)
      .where(and(eq(events.vulnId, report.id), eq(events.type, "Vuln::Triage::Changed")))
      .orderBy(asc(events.createdAt), asc(events.id)),
    // Only what was published is a revision: a draft is nobody's fact yet.
    db
      .select({
        advisoryId: advisoryRevisions.advisoryId,
        number: advisoryRevisions.number,
        state: sql<string>`json_extract(${advisoryRevisions.document}, '$.state')`,
        at: advisoryRevisions.createdAt,
      })
      .from(advisoryRevisions)
      .innerJoin(advisoryVulns, eq(advisoryVulns.advisoryId, advisoryRevisions.advisoryId))
      .where(eq(advisoryVulns.vulnId, report.id))
      .orderBy(asc(advisoryRevisions.createdAt), asc(advisoryRevisions.number)),
  ]);
  const facts: TimelineEntry[] = [{ type: "received", at: report.submission.received_at }];
  const record = records[0];
  if (record) facts.push({ type: "stored", at: record.storedAt, record_sha256: record.sha256 });
  const acknowledged = report.expectations.acknowledge.met_at;
  if (acknowledged) facts.push({ type: "acknowledged", at: acknowledged });
  for (const { payload } of moves) {
    const v = (JSON.parse(payload) as { vuln: { changed_at: string; previous_triage_state: string; triage_state: string } }).vuln;
    facts.push({ type: "triage_changed", at: v.changed_at, from: v.previous_triage_state, to: v.triage_state });
  }
  for (const c of thread) facts.push({ type: "comment", at: c.createdAt, author: c.author, sha256: await sha256Hex(c.body) });
  for (const a of advisories) {
    facts.push({ type: "advisory", at: a.at, advisory_id: a.advisoryId, revision: String(a.number), state: a.state });
  }
  const nowMs = now.getTime();
  facts.push(
    ...deadlineFacts("acknowledge", report.expectations.acknowledge, nowMs),
    ...deadlineFacts("triage", report.expectations.triage, nowMs),
  );
  facts.sort((a, b) => (a.at! < b.at! ? -1 : a.at! > b.at! ? 1 : ORDER.indexOf(a.type!) - ORDER.indexOf(b.type!)));
  // The chain: each entry names the SHA-256 of the canonical JSON of the one before it.
  const chained: TimelineEntry[] = [];
  for (const fact of facts) {
    const prev = chained.at(-1);
    chained.push({ ...fact, prev_sha256: prev ? await sha256Hex(canonicalEntry(prev)) : null });
  }
  return chained;
}

/** The timeline as a compact JWS, signed like the receipt. */
export async function signTimeline(
  db: Db,
  report: Report,
  { keys, now = new Date() }: { keys: string | undefined; now?: Date },
): Promise<string> {
  const entries = await reportTimeline(db, report, now);
  const payload = { report: report.shortcode, entries, iat: Math.floor(now.getTime() / 1000) };
  return signCompact(payload, TIMELINE_TYPE, parseSigningKeys(keys, "RECEIPT_SIGNING_KEY")[0]!);
}

// ---- The coordinator package: for a reporter left without an answer ------------------------------

/** How long a breached acknowledge or triage promise waits before the report page offers the package. */
export const PACKAGE_AFTER_DAYS = 14;

/** Whether the organization has left its acknowledge or triage promise unmet for 14 days past due at `now`. */
export function coordinatorPackageOffered(report: Report, now: number): boolean {
  return [report.expectations.acknowledge, report.expectations.triage].some(
    (d) => d.due_at !== null && d.met_at === null && d.state !== "paused" && now - Date.parse(d.due_at) >= PACKAGE_AFTER_DAYS * 86_400_000,
  );
}

const ABOUT =
  `This file proves what you reported, to whom and when, and that the answer the organization promised did not come. To ask for help, ` +
  `send it to a coordinator: your national CSIRT, CERT/CC, or the CVE Numbering Authority (CNA) that covers the affected product. It ` +
  `holds: "receipt" and "timeline", each a JWS signed by the platform (EdDSA), which anyone verifies with the public keys in "keys" ` +
  `(also served at "keys_url") and any JOSE library; and "record", your report exactly as the platform received it, whose SHA-256 is ` +
  `the receipt's record_sha256.`;

/**
 * The coordinator package: the signed receipt and timeline, the as-received record in the canonical
 * form its hash covers, the public keys to verify them, and a short text on what to do with it.
 */
export async function coordinatorPackage(
  db: Db,
  report: Report,
  { keys, keysUrl, now = new Date() }: { keys: string | undefined; keysUrl: string; now?: Date },
) {
  const signing = parseSigningKeys(keys, "RECEIPT_SIGNING_KEY");
  return {
    about: ABOUT,
    report: report.shortcode,
    receipt: await signReceipt(report, keys, now),
    timeline: await signTimeline(db, report, { keys, now }),
    record: { canonical: canonicalSubmission(report.submission), sha256: report.recordSha256 },
    keys: publicJwks(signing),
    keys_url: keysUrl,
  };
}
