import { env } from "cloudflare:workers";
import type { GateInput } from "./gate/admission";
import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../db";
import {
  briefs,
  deletedReportTokens,
  idempotencyKeys,
  organizations,
  vulnRecords,
  vulns,
  type Submission,
  type TriageState,
} from "../db/schema";
import { IdempotencyUnit } from "../lib/idempotency-key";
import { type Deadline, deadlinesAt, dueOf, metOf } from "../lib/deadlines";
import { generateReporterToken, sha256Hex } from "../lib/crypto";
import { Conflict, IdempotentReplay, Invalid, attribute } from "../lib/domain-errors";
import { nowIso } from "../lib/ids";
import { loggable } from "../lib/log";
import { parseSigningKeys, signCompact } from "../lib/jws";
import type { Page } from "../db/pagination";
import {
  getAttachment,
  listAttachments,
  openAttachmentContent,
  uploadAttachment,
  type AttachmentContext,
  type AttachmentRecord,
  type UploadMeta,
} from "./attachments";
import { createComment, getReporterComment, listComments, type CommentRecord, type CommentSide } from "./comments";
import type { Caller, ServiceContext } from "./context";
import { commit, Plan } from "./unit-of-work";
import { sentMembers } from "./audit";
import { createVuln } from "./vulns/create";
import { touchVulns } from "./vulns/update";
import type { VulnInput, VulnRecord } from "./vulns/types";
import { subquery } from "../db/queries";

// The reporter's side of the platform, whatever door it comes through (the JSON API under
// /v1/p/*, the pages under /b and /r/{token}): submit a report, open it by its token, read and answer
// the conversation, add and read files. Each verb acts as the report's reporter (kind "reporter"), which
// reaches that one report's rows and nothing else of the organization's.

/**
 * A report as its reporter may see it: its state, and the names the reporter already saw on the
 * brief's public page. Nothing else of the organization's (no triage notes, no keys, no tags).
 */
export interface Report {
  id: string;
  organizationId: string;
  shortcode: string;
  title: string;
  inboxState: string;
  /** While queued by the brief's daily cap: the UTC day it is expected to be released (null otherwise). */
  releaseExpectedOn: string | null;
  processingState: string;
  triageState: TriageState;
  severity: string | null;
  /** What the organization promised to do by when, and when it did: the acknowledge and triage deadlines. */
  expectations: { acknowledge: Deadline; triage: Deadline };
  /** When the policy's timeline has the report disclosed by (null without one), for the receipt. */
  disclosureDueAt: string | null;
  briefId: string | null;
  /** The SHA-256 of the immutable as-received record; null until the intake has stored it. */
  recordSha256: string | null;
  /**
   * The terms in force when the report was sent: the policy version's number, the SHA-256 of its terms,
   * when it was made and its policy's public shortcode (null once the policy is gone). Null without one.
   */
  policyVersion: { number: number; sha256: string; created_at: string | null; policy_shortcode: string | null } | null;
  createdAt: string;
  updatedAt: string;
  briefName: string | null;
  organizationName: string;
  /** What the reporter sent, exactly as received (before trimming and normalizing). */
  submission: Submission;
  /** The name the reporter asks to be credited by, and whether they consent to be credited. */
  creditName: string | null;
  creditConsent: boolean;
  /** The organization's published (or withdrawn) advisories that credit this report's reporter. */
  creditedIn: { id: string; title: string }[];
}

/**
 * The one round trip behind every reporter request, by the follow-up token's SHA-256 (hex): the whole
 * report (so `GET /v1/p/report` costs this and nothing more), and in the same batch whether the token
 * was a deleted report's. Returns the report, "gone" (deleted), or null for a token nobody was given.
 */
export async function findReport(db: Db, tokenHash: string): Promise<Report | "gone" | null> {
  const [rows, deleted] = await db.batch([
    db
      .select({
        id: vulns.id,
        organizationId: vulns.organizationId,
        shortcode: vulns.shortcode,
        title: vulns.title,
        inboxState: vulns.inboxState,
        releaseExpectedOn: vulns.releaseExpectedOn,
        processingState: vulns.processingState,
        triageState: vulns.triageState,
        severity: vulns.severity,
        acknowledgeDueMs: vulns.acknowledgeDueMs,
        triageDueMs: vulns.triageDueMs,
        resolveDueMs: vulns.resolveDueMs,
        disclosureDueMs: vulns.disclosureDueMs,
        acknowledgedAt: vulns.acknowledgedAt,
        triagedAt: vulns.triagedAt,
        closedAt: vulns.closedAt,
        submission: vulns.submission,
        briefId: vulns.briefId,
        recordSha256: subquery<
          string | null
        >`(SELECT ${vulnRecords.sha256} FROM ${vulnRecords} WHERE ${vulnRecords.vulnId} = ${vulns.id})`.as("record_sha256"),
        createdAt: vulns.createdAt,
        updatedAt: vulns.updatedAt,
        policyVersionJson: subquery<string | null>`CASE WHEN ${vulns.policyVersionNumber} IS NULL THEN NULL ELSE json_object(
          'number', ${vulns.policyVersionNumber}, 'sha256', ${vulns.policyVersionSha256},
          'created_at', (SELECT pv.created_at FROM policy_versions pv WHERE pv.id = ${vulns.policyVersionId}),
          'policy_shortcode', (SELECT p.shortcode FROM policy_versions pv JOIN policies p ON p.id = pv.policy_id WHERE pv.id = ${vulns.policyVersionId})) END`.as(
          "policy_version",
        ),
        // Aliased: rows of a D1 batch are keyed by column name, and both tables call theirs "name".
        briefName: sql<string | null>`${briefs.name}`.as("brief_name"),
        creditName: vulns.creditName,
        creditConsent: vulns.creditConsent,
        creditedInJson: subquery<string>`(SELECT json_group_array(json_object('id', a.id, 'title', a.title)) FROM advisories a
          JOIN advisory_vulns av ON av.advisory_id = a.id
          WHERE av.vuln_id = ${vulns.id} AND a.state <> 'draft'
            AND EXISTS (SELECT 1 FROM json_each(a.credits) c WHERE json_extract(c.value, '$.reporter_of') = ${vulns.id}))`.as(
          "credited_in",
        ),
        organizationName: sql<string>`${organizations.name}`.as("organization_name"),
      })
      .from(vulns)
      .innerJoin(organizations, eq(organizations.id, vulns.organizationId))
      .leftJoin(briefs, eq(briefs.id, vulns.briefId))
      .where(eq(vulns.followUpTokenHash, tokenHash)),
    db.select({ tokenHash: deletedReportTokens.tokenHash }).from(deletedReportTokens).where(eq(deletedReportTokens.tokenHash, tokenHash)),
  ]);
  const row = rows[0];
  if (!row) return deleted.length ? "gone" : null;
  const {
    acknowledgeDueMs,
    triageDueMs,
    resolveDueMs,
    disclosureDueMs,
    acknowledgedAt,
    triagedAt,
    closedAt,
    policyVersionJson,
    creditedInJson,
    ...rest
  } = row;
  const report = {
    ...rest,
    policyVersion: policyVersionJson ? (JSON.parse(policyVersionJson) as Report["policyVersion"]) : null,
    creditedIn: JSON.parse(creditedInJson) as Report["creditedIn"],
  };
  const { acknowledge, triage } = deadlinesAt(dueOf(row), metOf(row), row.triageState, Date.now(), false);
  const disclosureDueAt = disclosureDueMs === null ? null : new Date(disclosureDueMs).toISOString();
  return { ...report, expectations: { acknowledge, triage }, disclosureDueAt };
}

/** The type of the signed receipt (its JWS header's `typ`). */
export const RECEIPT_TYPE = "vdp-receipt+jwt";

/**
 * What the receipt states, for the reporter to prove later: which report, sent to whom through what,
 * when it was received, the hash of what was received (so the record itself can be checked against
 * it), and what was promised by when as of `now` (the issue time). Null until the report is stored,
 * since there is no record to hash before.
 */
function receiptClaims(report: Report, now: Date) {
  if (!report.recordSha256) return null;
  return {
    report: report.shortcode,
    organization: { id: report.organizationId, name: report.organizationName },
    brief: { id: report.briefId, name: report.briefName },
    received_at: report.submission.received_at,
    record_sha256: report.recordSha256,
    // The policy's terms in force when the report was sent (their version and hash), if it had a policy.
    policy_version: report.policyVersion && { number: report.policyVersion.number, sha256: report.policyVersion.sha256 },
    deadlines: {
      acknowledge: report.expectations.acknowledge.due_at,
      triage: report.expectations.triage.due_at,
      disclosure: report.disclosureDueAt,
    },
    iat: Math.floor(now.getTime() / 1000),
  };
}

/**
 * The reporter's receipt, signed as a compact JWS by the first key of `keys` (RECEIPT_SIGNING_KEY's
 * value): verifiable by anyone with the published keys and a JOSE library. A 409 until the report is stored.
 */
export async function signReceipt(report: Report, keys: string | undefined, now = new Date()): Promise<string> {
  const claims = receiptClaims(report, now);
  if (!claims) throw new Conflict("The report is still being recorded: ask again in a moment, once its inbox_state is stored.");
  return signCompact(claims, RECEIPT_TYPE, parseSigningKeys(keys, "RECEIPT_SIGNING_KEY")[0]!);
}

/** The caller a reporter's request runs as: the one report its token opened, in that report's organization. */
export function reporterCaller(report: Pick<Report, "id" | "organizationId">): Caller {
  return { keyId: `report:${report.id}`, kind: "reporter", organizationId: report.organizationId, reportId: report.id, scopes: [] };
}

/** What the reporter's verbs take: a request's context, any caller (they act as the report's reporter). */
export interface ReporterArgs {
  ctx: ServiceContext;
  report: Pick<Report, "id" | "organizationId">;
}

/** The request's context, acting as the report's reporter: whatever door it came through, never more. */
const asReporter = <C extends ServiceContext>(ctx: C, report: ReporterArgs["report"]): C => ({ ...ctx, caller: reporterCaller(report) });
const reporterSide = (report: ReporterArgs["report"]): CommentSide => ({
  author: "reporter",
  vulnId: report.id,
  organizationId: report.organizationId,
});

/** The conversation as the reporter reads it: the organization's replies and its own comments, oldest first. */
export function readThread({ ctx, report, page }: ReporterArgs & { page: Page }) {
  return listComments(asReporter(ctx, report), reporterSide(report), { page });
}

/** One comment of the reporter's conversation; an internal note answers as no comment does. */
export function readThreadComment({ ctx, report, commentId }: ReporterArgs & { commentId: string }): Promise<CommentRecord> {
  return getReporterComment(asReporter(ctx, report), report.id, commentId);
}

/**
 * The reporter's credit: the name they ask to be credited by and their consent. An advisory credits
 * them only while both hold; what an advisory already published keeps what it said.
 */
export async function setReporterCredit(
  ctx: ServiceContext,
  report: Report,
  input: { credit_name?: string | null; credit_consent?: boolean },
): Promise<Report> {
  const creditName = input.credit_name === undefined ? report.creditName : input.credit_name;
  const creditConsent = input.credit_consent ?? report.creditConsent;
  if (creditConsent && !creditName) throw Invalid.at(attribute("credit_name"), "Consent to be credited needs the name to credit you by.");
  const p = new Plan(null).add(ctx.db.update(vulns).set({ creditName, creditConsent }).where(eq(vulns.id, report.id))).audits({
    action: "vuln.update",
    target: { type: "vuln", id: report.id },
    changed: sentMembers(input),
    organizationId: report.organizationId,
  });
  await commit(asReporter(ctx, report), p);
  return { ...report, creditName, creditConsent };
}

/** The reporter answers the organization (a closed report too); the organization's webhooks get Vuln::Comment::Created. */
export function replyAsReporter({
  ctx,
  report,
  body,
  also,
}: ReporterArgs & { body: string; also?: (p: Plan<CommentRecord>) => void }): Promise<CommentRecord> {
  return createComment(asReporter(ctx, report), reporterSide(report), { body, visibility: "reporter", also });
}

/**
 * A file from the reporter. It is news to the organization: the vuln's updated_at moves and its
 * webhooks get Vuln::Updated, in the file row's own batch (files the organization attaches itself
 * change nothing). The files sent with the report form itself (`withSubmission`) arrive with the
 * report's own Vuln::Created and are no news of their own.
 */
export function addReporterFile({
  ctx,
  report,
  body,
  meta,
  withSubmission = false,
}: {
  ctx: AttachmentContext;
  report: ReporterArgs["report"];
  body: ReadableStream<Uint8Array> | null;
  meta: UploadMeta;
  withSubmission?: boolean;
}): Promise<AttachmentRecord> {
  const reporter = asReporter(ctx, report);
  const news = withSubmission ? undefined : (p: Plan<unknown>) => touchVulns(reporter, p, { vulnIds: [report.id], now: nowIso() });
  return uploadAttachment({ ctx: reporter, vulnId: report.id, body, meta, by: "reporter", also: news });
}

/** Every file of the report, the reporter's and the organization's. */
export function reporterFiles({ ctx, report, page, sort }: ReporterArgs & { page: Page; sort?: "created_at" | "-created_at" }) {
  return listAttachments(asReporter(ctx, report), report.id, { page, sort });
}

/** One file's metadata. */
export function reporterFile({ ctx, report, attachmentId }: ReporterArgs & { attachmentId: string }): Promise<AttachmentRecord> {
  return getAttachment(asReporter(ctx, report), report.id, attachmentId);
}

/** One file's bytes, streamed from R2. */
export function openReporterFile({
  ctx,
  report,
  attachmentId,
}: {
  ctx: AttachmentContext;
  report: ReporterArgs["report"];
  attachmentId: string;
}) {
  return openAttachmentContent(asReporter(ctx, report), report.id, attachmentId);
}

/** What a submission carries, whatever the door: the validated members and the members exactly as sent. */
export interface SubmissionArgs {
  ctx: ServiceContext;
  /** The published brief's shortcode: a draft or an unknown one is a brief not found. */
  shortcode: string;
  input: VulnInput;
  raw: Omit<Submission, "received_at">;
  /** What the submission brings to the brief's gate (its address, proof of work, signature). */
  gate: GateInput;
}

/**
 * A report through a published brief. The reporter's follow-up token is made here and returned once;
 * only its SHA-256 is stored, so the answer kept for an Idempotency-Key (`ctx.respond`) never holds it.
 */
export async function submitReport(submission: SubmissionArgs): Promise<{ record: VulnRecord; token: string }> {
  const token = generateReporterToken();
  const record = await createVuln({
    ...submission,
    brief: { shortcode: submission.shortcode },
    followUpTokenHash: await sha256Hex(token),
    reportPage: `${env.PUBLIC_ORIGIN}/r/${token}`,
  });
  return { record, token };
}

/** How long the same content from the same address counts as a repeat of the form (a double click, a resent form). */
export const FORM_REPEAT_WINDOW_MS = 10 * 60 * 1000;

export type FormOutcome =
  | { repeat: true; shortcode: string | null }
  | { repeat: false; record: VulnRecord; token: string; failedFiles: number };

/**
 * The report form: a submission with its files, sent again within the repeat window answered as a
 * repeat (with the first report's shortcode once it is done) instead of a second report. The cached
 * form carries no per-visitor key, so the content is the key: an Idempotency-Key scoped to the client
 * address, reserved in one round trip with the removal of an entry older than the window (keys
 * themselves live a day). One still in flight is the first send of a double click: a repeat too.
 * The files follow the report through the reporter's own upload; one that fails leaves the report
 * made (`failedFiles` counts them), and the report's page takes the file again.
 */
export async function submitReportForm({
  ctx,
  address,
  contentHash,
  files,
  now = Date.now(),
  ...submission
}: SubmissionArgs & { ctx: AttachmentContext; address: string; contentHash: string; files: File[]; now?: number }): Promise<FormOutcome> {
  const unit = new IdempotencyUnit(ctx.db, `form:${address}`, contentHash, contentHash);
  const [upsert, select] = unit.reserveStatements();
  const windowStart = new Date(now - FORM_REPEAT_WINDOW_MS).toISOString();
  const stale = ctx.db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, unit.scope), eq(idempotencyKeys.key, unit.key), lt(idempotencyKeys.createdAt, windowStart)));
  const [, , holder] = await ctx.db.batch([stale, upsert, select]);
  try {
    unit.settle(holder);
  } catch (err) {
    if (err instanceof IdempotentReplay)
      return { repeat: true, shortcode: (JSON.parse(err.stored.body) as { shortcode?: string }).shortcode ?? null };
    if (err instanceof Conflict) return { repeat: true, shortcode: null };
    throw err;
  }
  let submitted: { record: VulnRecord; token: string };
  try {
    // What a repeat finds: the shortcode only.
    const respond = (r: VulnRecord) => ({ status: 200, headers: {}, body: JSON.stringify({ shortcode: r.shortcode }) });
    submitted = await submitReport({ ...submission, ctx: { ...ctx, idempotency: unit, respond } });
  } catch (err) {
    if (!unit.sealed) await unit.release();
    throw err;
  }
  let failedFiles = 0;
  for (const file of files) {
    try {
      const meta = { filename: file.name, contentType: file.type || undefined, declaredLength: file.size };
      await addReporterFile({ ctx, report: submitted.record, body: file.stream(), meta, withSubmission: true });
    } catch (err) {
      failedFiles++;
      const { error, query } = loggable(err as Error); // D1's words, when D1 refused it
      console.error(JSON.stringify({ level: "warn", message: "form file not stored", vuln_id: submitted.record.id, error, query }));
    }
  }
  return { repeat: false, ...submitted, failedFiles };
}
