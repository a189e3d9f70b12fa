import { and, eq, getTableColumns, isNotNull, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import {
  assets,
  briefs,
  notifications,
  type Closer,
  NO_DISCLOSURE_STATES,
  OPEN_TRIAGE_STATES,
  processingStateOf,
  vulnAssets,
  vulns,
  type ProcessingState,
  type Severity,
  type Submission,
  type TriageState,
  type VulnRow,
} from "../db/schema";
import { triageEvent, vulnEvent } from "../events/outbox";
import {
  type AlertView,
  craDueTimes,
  dueColumns,
  dueOf,
  dueTimes,
  isOverdue,
  metOf,
  nextLookMs,
  type MetTimes,
  responseTargetsOf,
  resumed,
  type TargetsInput,
  type VulnTargets,
} from "../lib/deadlines";
import { normalizeVulnShortcode, nowIso, uuidv7, vulnShortcode } from "../lib/ids";
import { isPublished } from "../lib/maturity";
import { tenantFilter, type ServiceContext } from "./context";
import type { CvssRating } from "../lib/cvss";
import { severityOf } from "../lib/cvss";
import { deleteObjectsLater, vulnObjectKeys } from "./attachments";
import { inList, where, whenRefused, subquery } from "../db/queries";
import { changedRows } from "../db/queries";
import { commit, type Handle, Plan, readBatch, type Responder } from "./unit-of-work";
import { Conflict, Invalid, NotFound } from "../lib/domain-errors";
import { receiptRow } from "../notifications/rows";

export interface VulnInput {
  title: string;
  description: string;
  contact_email?: string | null;
  domains?: string[];
  tags?: string[];
  severity?: Severity | null;
  /** The vector, already parsed and scored (null clears it). */
  cvss_vector?: CvssRating | null;
  cwe_ids?: string[];
  /** Under attack (the Cyber Resilience Act's clock runs); false stops it. */
  actively_exploited?: boolean;
  /** Since when the organization knows it is exploited: by default the moment it is flagged; never in the future. */
  exploitation_known_at?: string | null;
  /** A reporter's own submission: e-mail them about the report (default true with a contact_email). */
  notify_me?: boolean;
}

/** The columns a record leaves out: sort keys SQLite computes, and what `last_activity_*` and `read_at` read through. */
type Internal =
  | "cvssRankDesc"
  | "cvssRankAsc"
  | "severityRankDesc"
  | "severityRankAsc"
  | "activityAt"
  | "activityBy"
  | "unread"
  | "nextDueMs"
  | "nextDueAsc"
  | "nextDueDesc";

/** A vuln with the values of its domain assets. */
export type VulnRecord = Omit<VulnRow, Internal> & { domains: string[] };

const notFound = () => new NotFound("vuln", "No vuln has that id.");

// See policies.ts: name the outer column in full inside a correlated subquery.
export const domainsColumn = {
  domainsJson: subquery<string>`(select json_group_array(${assets.value}) from ${vulnAssets} join ${assets} on ${assets.id} = ${vulnAssets.assetId} where ${vulnAssets.vulnId} = ${vulns.id})`,
};

export function toRecord(row: VulnRow & { domainsJson: string }): VulnRecord {
  const {
    domainsJson,
    cvssRankDesc: _desc,
    cvssRankAsc: _asc,
    severityRankDesc: _sdesc,
    severityRankAsc: _sasc,
    activityAt: _at,
    activityBy: _by,
    unread: _unread,
    nextDueMs: _next,
    nextDueAsc: _nextAsc,
    nextDueDesc: _nextDesc,
    ...vuln
  } = row;
  return { ...vuln, domains: (JSON.parse(domainsJson) as string[]).sort() };
}

type Triage = Pick<VulnRecord, "severity" | "cvssVector" | "cvssScore" | "cvssVersion" | "cweIds">;
type Exploitation = Pick<VulnRecord, "activelyExploited" | "exploitationKnownAt">;

/**
 * Whether a report is actively exploited, and since when that is known, after a create or an update:
 * flagged without a time, the moment it is flagged (a report already flagged keeps its time); a time
 * is given only with the flag, and never later than now. Unflagged, it has none. `at(member)` points
 * at the member of the request an error names.
 */
function exploitationOf(
  input: Partial<VulnInput>,
  existing: Exploitation | undefined,
  now: string,
  at: (member: string) => string,
): Exploitation {
  const exploited = input.actively_exploited ?? existing?.activelyExploited ?? false;
  const given = input.exploitation_known_at;
  if (!exploited) {
    if (given)
      throw Invalid.at(at("exploitation_known_at"), "only an actively exploited vuln has one: set actively_exploited to true with it.");
    return { activelyExploited: false, exploitationKnownAt: null };
  }
  if (given === null)
    throw Invalid.at(
      at("exploitation_known_at"),
      "an actively exploited vuln has one: leave it out to keep it, or set actively_exploited to false.",
    );
  if (given && Date.parse(given) > Date.parse(now)) throw Invalid.at(at("exploitation_known_at"), "must not be in the future.");
  const kept = existing?.activelyExploited ? existing.exploitationKnownAt : null;
  return { activelyExploited: true, exploitationKnownAt: given ? new Date(given).toISOString() : (kept ?? now) };
}

/**
 * The triage columns after a create or an update. A member left out keeps its value (`existing`;
 * nothing on create), null clears it. A vector given without a severity sets the severity to the
 * score's qualitative rating; a severity given with it wins, as an analyst's judgement may.
 */
function triageOf(input: Partial<VulnInput>, existing?: Triage): Triage {
  const rating = input.cvss_vector;
  const cvss =
    rating === undefined
      ? { cvssVector: existing?.cvssVector ?? null, cvssScore: existing?.cvssScore ?? null, cvssVersion: existing?.cvssVersion ?? null }
      : { cvssVector: rating?.vector ?? null, cvssScore: rating?.score ?? null, cvssVersion: rating?.version ?? null };
  const severity = input.severity !== undefined ? input.severity : rating ? severityOf(rating.score) : (existing?.severity ?? null);
  return { ...cvss, severity, cweIds: input.cwe_ids === undefined ? (existing?.cweIds ?? []) : unique(input.cwe_ids) };
}

/**
 * The id of the vuln a path names, by id or by the shortcode a researcher quotes (in any case, with
 * Crockford's look-alikes), among the vulns the caller may see. An id is returned as it is, unread:
 * the operation's own query scopes it. A shortcode costs one read on its unique index.
 */
export async function vulnIdOf(ctx: ServiceContext, ref: string): Promise<string> {
  const code = normalizeVulnShortcode(ref);
  if (!code) return ref;
  const row = await ctx.db
    .select({ id: vulns.id })
    .from(vulns)
    .where(where(eq(vulns.shortcode, code), tenantFilter(ctx, vulns.organizationId)))
    .get();
  if (!row) throw new NotFound("vuln", "No vuln has that shortcode.");
  return row.id;
}

/**
 * Shows a vuln. The organization's first read (a GET: a HEAD reads nothing for a person, and some
 * clients and proxies send them on their own) sets `read_at` and fires Vuln::Read, in the same
 * batch as the read itself: a conditional UPDATE, the event only if it changed a row, then the SELECT.
 */
export async function showVuln(ctx: ServiceContext, id: string, opts: { markRead: boolean } = { markRead: true }): Promise<VulnRecord> {
  const scoped = where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId));
  const select = ctx.db
    .select({ ...getTableColumns(vulns), ...domainsColumn })
    .from(vulns)
    .where(scoped);
  if (ctx.caller.kind !== "organization" || !opts.markRead) {
    const row = await select.get();
    if (!row) throw notFound();
    return toRecord(row);
  }
  const now = nowIso();
  const read = vulnEvent(ctx.db, "Vuln::Read", id, now, { ifPreviousChanged: true, organizationId: ctx.caller.organizationId! });
  const p = new Plan(null)
    .add(
      ctx.db
        .update(vulns)
        .set({ readAt: now })
        .where(and(scoped, isNull(vulns.readAt))),
    )
    .add(read.statement, read.event)
    .add(select);
  const { results } = await commit(ctx, p);
  const row = (results[2] as (VulnRow & { domainsJson: string })[])[0];
  if (!row) throw notFound();
  return toRecord(row);
}

/**
 * The statements that make the vuln's domains exactly `domains`: domain assets made as needed, then
 * linked. With a guard (updates), none of them changes anything unless the vuln is still at the
 * revision the request read, so a PATCH that loses a race writes nothing at all.
 */
function domainStatements(
  ctx: ServiceContext,
  vulnId: string,
  organizationId: string,
  domains: string[],
  now: string,
  guard?: number,
): BatchItem<"sqlite">[] {
  const unchanged = guard === undefined ? sql`1` : subquery`EXISTS (SELECT 1 FROM vulns WHERE id = ${vulnId} AND revision = ${guard})`;
  const statements: BatchItem<"sqlite">[] = [];
  if (guard !== undefined) statements.push(ctx.db.delete(vulnAssets).where(and(eq(vulnAssets.vulnId, vulnId), unchanged)));
  if (domains.length) {
    // The new assets come from one JSON parameter (ids made here), so 50 domains bind 5 values.
    const pairs = JSON.stringify(domains.map((value) => [uuidv7(), value]));
    statements.push(
      ctx.db
        .insert(assets)
        .select(
          ctx.db
            .select({
              id: sql<string>`json_extract(value, '$[0]')`.as("id"),
              organizationId: sql<string>`${organizationId}`.as("organization_id"),
              kind: sql<string>`'domain'`.as("kind"),
              value: sql<string>`json_extract(value, '$[1]')`.as("value"),
              shortDescription: sql<null>`null`.as("short_description"),
              createdAt: sql<string>`${now}`.as("created_at"),
              updatedAt: sql<string>`${now}`.as("updated_at"),
            })
            .from(sql`json_each(${pairs})`)
            .where(unchanged),
        )
        .onConflictDoNothing(),
    );
    statements.push(
      ctx.db
        .insert(vulnAssets)
        .select(
          ctx.db
            .select({ vulnId: sql<string>`${vulnId}`.as("vuln_id"), assetId: assets.id })
            .from(assets)
            .where(and(eq(assets.organizationId, organizationId), eq(assets.kind, "domain"), inList(assets.value, domains), unchanged)),
        )
        .onConflictDoNothing(),
    );
  }
  return statements;
}

function unique(values: string[] | undefined): string[] {
  return [...new Set(values ?? [])];
}

/**
 * Creates a vuln through a brief: the vuln (inbox dispatching, processing open), its domain assets,
 * and Vuln::Created, all in one batch. The submission is kept as received for the intake record.
 * `brief` is checked to be the caller's and published (API) or found by its public shortcode.
 * `followUpTokenHash` (public submissions) is the SHA-256 of the reporter's follow-up token.
 */
export async function createVuln({
  ctx,
  input,
  brief,
  raw,
  respond,
  followUpTokenHash = null,
  reportPage,
}: {
  ctx: ServiceContext;
  input: VulnInput;
  /** By id for an organization's own entry; by shortcode through the public brief (published only). */
  brief: { id: string } | { shortcode: string };
  /** The members exactly as sent, kept in the as-received record. */
  raw: Omit<Submission, "received_at">;
  respond: Responder<VulnRecord>;
  /** The SHA-256 of the reporter's follow-up token (the token itself is never stored). */
  followUpTokenHash?: string | null;
  /** The reporter's report page (with the token): the receipt e-mail carries it, sealed in the outbox until sent. */
  reportPage?: string;
}): Promise<VulnRecord> {
  const now = nowIso();
  const byId = "id" in brief;
  const [found] = await readBatch(ctx, [
    ctx.db
      .select({
        id: briefs.id,
        organizationId: briefs.organizationId,
        publishedAt: briefs.publishedAt,
        name: briefs.name,
        organizationName: subquery<string>`(SELECT name FROM organizations WHERE organizations.id = ${briefs.organizationId})`,
        // The promises of the brief's policy (none: the defaults, and no disclosure timeline).
        responseTargets: subquery<string | null>`(SELECT response_targets FROM policies WHERE policies.id = ${briefs.policyId})`,
        cvdTimeline: subquery<number | null>`(SELECT cvd_timeline FROM policies WHERE policies.id = ${briefs.policyId})`,
        // The version of those promises in force now: the report keeps it.
        policyVersion: subquery<string | null>`(SELECT json_object('id', id, 'number', number, 'sha256', sha256) FROM policy_versions
          WHERE policy_versions.policy_id = ${briefs.policyId} ORDER BY number DESC LIMIT 1)`,
      })
      .from(briefs)
      .where(byId ? where(eq(briefs.id, brief.id), tenantFilter(ctx, briefs.organizationId)) : eq(briefs.shortcode, brief.shortcode)),
  ]);
  const row = found[0];
  if (!row || !isPublished(row.publishedAt, now)) {
    if (!byId) throw new NotFound("brief", "No published brief has that shortcode.");
    throw Invalid.at("/data/relationships/brief/data/id", row ? "brief is not published." : "brief does not exist.");
  }
  const domains = unique(input.domains);
  const triage = triageOf(input);
  const version = row.policyVersion ? (JSON.parse(row.policyVersion) as { id: string; number: number; sha256: string }) : null;
  const targets: VulnTargets = {
    ...responseTargetsOf(row.responseTargets ? (JSON.parse(row.responseTargets) as TargetsInput) : null),
    disclosure_days: row.cvdTimeline ?? null,
  };
  const exploitation = exploitationOf(input, undefined, now, (member) => `/data/attributes/${member}`);
  const due = {
    ...dueTimes(targets, Date.parse(now), triage.severity, 0),
    ...craDueTimes({ ...exploitation, triageState: "new", closedAt: null }),
  };
  const vuln: Omit<VulnRecord, "domains" | "lastActivityAt" | "lastActivityBy"> = {
    revision: 0,
    id: uuidv7(),
    organizationId: row.organizationId,
    briefId: row.id,
    shortcode: vulnShortcode(),
    title: input.title,
    description: input.description,
    contactEmail: input.contact_email ?? null,
    // Only a reporter's own submission (with its token) e-mails the reporter.
    notifyReporter: Boolean(reportPage && input.contact_email && input.notify_me !== false),
    reporterUnsubscribedAt: null,
    policyVersionId: version?.id ?? null,
    policyVersionNumber: version?.number ?? null,
    policyVersionSha256: version?.sha256 ?? null,
    tags: unique(input.tags),
    inboxState: "dispatching",
    processingState: "open",
    triageState: "new",
    duplicateOfId: null,
    infoRequestedFrom: null,
    infoRequestedAt: null,
    acknowledgedAt: null,
    triagedAt: null,
    closedAt: null,
    closedBy: null,
    disclosedAt: null,
    creditName: null,
    creditConsent: false,
    targets,
    ...dueColumns(due),
    pausedMs: 0,
    ...exploitation,
    craEarlyWarningMetAt: null,
    craNotificationMetAt: null,
    craFinalReportMetAt: null,
    nextAlertMs: nextLookMs({ due, met: NOTHING_MET, triageState: "new", targets, severity: triage.severity }),
    overdue: 0,
    readAt: null,
    ...triage,
    submission: { ...raw, received_at: now },
    followUpTokenHash,
    createdAt: now,
    updatedAt: now,
  };
  // The report is its own first activity (as the generated columns read it).
  const firstActivity = { lastActivityAt: now, lastActivityBy: followUpTokenHash ? ("reporter" as const) : ("organization" as const) };
  const record: VulnRecord = { ...vuln, ...firstActivity, domains: [...domains].sort() };
  const created = vulnEvent(ctx.db, "Vuln::Created", vuln.id, now);
  const p = new Plan(record).add(ctx.db.insert(vulns).values(vuln));
  for (const s of domainStatements(ctx, vuln.id, vuln.organizationId, domains, now)) p.add(s);
  p.add(created.statement, created.event);
  if (vuln.notifyReporter) {
    const receipt = await receiptRow({
      report: {
        id: vuln.id,
        organizationId: vuln.organizationId,
        shortcode: vuln.shortcode,
        title: vuln.title,
        brief: row.name,
        organization: row.organizationName,
      },
      to: vuln.contactEmail!,
      link: reportPage!,
      receivedAt: now,
      acknowledgeDueAt: vuln.acknowledgeDueMs === null ? null : new Date(vuln.acknowledgeDueMs).toISOString(),
      triageDueAt: vuln.triageDueMs === null ? null : new Date(vuln.triageDueMs).toISOString(),
    });
    p.add(ctx.db.insert(notifications).values(receipt));
  }
  // The brief was read in the first batch; if it is deleted before this one, its foreign key
  // refuses the vuln, and with it the events and the Idempotency-Key's response.
  await whenRefused(
    () => commit(ctx, p, respond),
    () => {
      if (!byId) throw new NotFound("brief", "No published brief has that shortcode.");
      throw Invalid.at("/data/relationships/brief/data/id", "brief does not exist.");
    },
  );
  return record;
}

/** A PATCH: every member optional (left out: unchanged), plus the states and a duplicate's original. */
export interface VulnUpdate extends Partial<VulnInput> {
  briefId?: string;
  processing_state?: ProcessingState;
  triage_state?: TriageState;
  /** The original's id as sent (null: none); resolved to the original's original by updateVulns. */
  duplicateOf?: string | null;
  /** Who makes a move to a closed state: the organization unless the cron closes an unanswered request. */
  closer?: Closer;
}

type TriageColumns = Pick<
  VulnRecord,
  | "triageState"
  | "processingState"
  | "duplicateOfId"
  | "infoRequestedFrom"
  | "infoRequestedAt"
  | "acknowledgedAt"
  | "triagedAt"
  | "closedAt"
  | "closedBy"
>;

/**
 * The triage state a PATCH asks for: triage_state as given; else processing_state alone, where
 * closed means resolved and open goes back to triaged (if the report ever was) or new.
 */
function requestedTriageState(existing: VulnRecord, input: VulnUpdate): TriageState {
  if (input.triage_state) return input.triage_state;
  if (!input.processing_state || input.processing_state === existing.processingState) return existing.triageState;
  return input.processing_state === "closed" ? "resolved" : existing.triagedAt ? "triaged" : "new";
}

/** The triage columns after a move to `state` (with `duplicateOf`, already resolved) at `now`. */
function triageMove(existing: VulnRecord, state: TriageState, duplicateOf: string | null, now: string, closer: Closer): TriageColumns {
  if (state === existing.triageState && duplicateOf === existing.duplicateOfId) return existing;
  const moved = state !== existing.triageState;
  const closed = processingStateOf(state) === "closed";
  return {
    triageState: state,
    processingState: processingStateOf(state),
    duplicateOfId: state === "duplicate" ? duplicateOf : null,
    infoRequestedFrom: state === "needs_more_info" ? (moved ? existing.triageState : existing.infoRequestedFrom) : null,
    infoRequestedAt: state === "needs_more_info" ? (moved ? now : existing.infoRequestedAt) : null,
    acknowledgedAt: existing.acknowledgedAt ?? (existing.triageState === "new" && moved ? now : null),
    triagedAt: existing.triagedAt ?? (state === "triaged" ? now : null),
    closedAt: closed ? (moved ? now : existing.closedAt) : null,
    closedBy: closed ? (moved ? closer : existing.closedBy) : null,
  };
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join("\u0000") === [...b].sort().join("\u0000");
const sameList = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b);

/** One vuln's update as planned into a batch: the vuln as it will be, and its guarded UPDATE (none when nothing changes). */
interface PlannedUpdate {
  next: VulnRecord;
  guard?: Handle<unknown>;
}

/**
 * Adds one vuln's update to `p`: its domain links, the UPDATE guarded by the revision it was read at,
 * and its events chained on that UPDATE. Adds nothing when nothing would change. `strict` (a bulk
 * update): a concurrent edit of this vuln makes its Vuln::Updated unwritable, which refuses the whole
 * batch; otherwise this vuln's statements skip and the caller answers 409.
 */
function planUpdate(
  ctx: ServiceContext,
  p: Plan<unknown>,
  existing: VulnRecord,
  input: VulnUpdate,
  now: string,
  strict: boolean,
  /** Where a member of this change sits in the request, for its errors. */
  at: (member: string) => string = (member) => `/data/attributes/${member}`,
): PlannedUpdate {
  const id = existing.id;
  const state = requestedTriageState(existing, input);
  const duplicateOf = input.duplicateOf === undefined ? existing.duplicateOfId : input.duplicateOf;
  const next: VulnRecord = {
    ...existing,
    ...triageMove(existing, state, duplicateOf, now, input.closer ?? "organization"),
    title: input.title ?? existing.title,
    description: input.description ?? existing.description,
    briefId: input.briefId ?? existing.briefId,
    contactEmail: input.contact_email === undefined ? existing.contactEmail : input.contact_email,
    tags: input.tags === undefined ? existing.tags : unique(input.tags),
    domains: input.domains === undefined ? existing.domains : unique(input.domains).sort(),
    ...triageOf(input, existing),
    ...exploitationOf(input, existing, now, at),
  };
  Object.assign(next, duesAfter(existing, next, now));
  next.nextAlertMs = nextLookMs(alertView(next));
  next.overdue = isOverdue(alertView(next), Date.parse(now)) ? 1 : 0;
  const domainsChanged = !sameSet(next.domains, existing.domains);
  const changed =
    domainsChanged ||
    (
      [
        "title",
        "description",
        "briefId",
        "contactEmail",
        "triageState",
        "duplicateOfId",
        "severity",
        "cvssVector",
        "cvssScore",
        "cvssVersion",
        "activelyExploited",
        "exploitationKnownAt",
        // A close or reopen of an exploited report starts or stops the final report's clock.
        "craFinalReportDueMs",
      ] as const
    ).some((k) => next[k] !== existing[k]) ||
    !sameList(next.tags, existing.tags) ||
    !sameList(next.cweIds, existing.cweIds);
  if (!changed) return { next: existing };

  next.updatedAt = now;
  // Closing or reopening is said to the reporter (their page shows it): the organization's activity.
  const answered = next.processingState !== existing.processingState;
  if (answered) Object.assign(next, { lastActivityAt: now, lastActivityBy: "organization" });
  next.revision = existing.revision + 1;
  if (domainsChanged) for (const s of domainStatements(ctx, id, existing.organizationId, next.domains, now, existing.revision)) p.add(s);
  const guard = p.track(
    ctx.db
      .update(vulns)
      .set({
        title: next.title,
        description: next.description,
        briefId: next.briefId,
        contactEmail: next.contactEmail,
        tags: next.tags,
        processingState: next.processingState,
        triageState: next.triageState,
        // The original as it stands when the batch runs: deleted since the read, none (see the trigger of 0019).
        duplicateOfId:
          next.duplicateOfId === existing.duplicateOfId || next.duplicateOfId === null
            ? next.duplicateOfId
            : subquery`(SELECT "original"."id" FROM "vulns" AS "original" WHERE "original"."id" = ${next.duplicateOfId})`,
        infoRequestedFrom: next.infoRequestedFrom,
        infoRequestedAt: next.infoRequestedAt,
        // A comment's trigger may have acknowledged the report since it was read: the first time stays.
        acknowledgedAt: sql`coalesce(${vulns.acknowledgedAt}, ${next.acknowledgedAt})`,
        triagedAt: next.triagedAt,
        closedAt: next.closedAt,
        closedBy: next.closedBy,
        ...dueColumns(dueOf(next)),
        pausedMs: next.pausedMs,
        activelyExploited: next.activelyExploited,
        exploitationKnownAt: next.exploitationKnownAt,
        nextAlertMs: next.nextAlertMs,
        overdue: next.overdue,
        severity: next.severity,
        cvssVector: next.cvssVector,
        cvssScore: next.cvssScore,
        cvssVersion: next.cvssVersion,
        cweIds: next.cweIds,
        revision: next.revision,
        updatedAt: now,
        ...(answered ? { activityAt: now, activityBy: "organization" as const } : {}),
      })
      .where(and(eq(vulns.id, id), eq(vulns.revision, existing.revision))),
  );
  const updated = vulnEvent(ctx.db, "Vuln::Updated", id, now, strict ? { requirePreviousChanged: true } : { ifPreviousChanged: true });
  p.add(updated.statement, updated.event);
  if (answered) {
    const type = next.processingState === "closed" ? "Vuln::Processing::Closed" : "Vuln::Processing::Reopened";
    const transition = vulnEvent(ctx.db, type, id, now, { ifPreviousChanged: true });
    p.add(transition.statement, transition.event);
  }
  if (next.triageState !== existing.triageState || next.duplicateOfId !== existing.duplicateOfId) {
    const triaged = triageEvent(ctx.db, id, existing.triageState, now);
    p.add(triaged.statement, triaged.event);
  }
  return { next, guard };
}

const NOTHING_MET: MetTimes = {
  acknowledgedAt: null,
  triagedAt: null,
  closedAt: null,
  disclosedAt: null,
  filed: { cra_early_warning: null, cra_notification: null, cra_final_report: null },
};

/** What the cron reads of a report to know its deadline alerts. */
export const alertView = (v: VulnRecord): AlertView => ({
  due: dueOf(v),
  met: metOf(v),
  triageState: v.triageState,
  targets: v.targets,
  severity: v.severity,
});

/**
 * The due times after a change: leaving needs_more_info moves every promise still pending later by
 * the time spent there (and adds it to paused_ms); a new severity gives a new resolve deadline; the
 * law's follow the exploitation and the fix (craDueTimes).
 */
function duesAfter(existing: VulnRecord, next: VulnRecord, now: string) {
  let due = dueOf(existing);
  let pausedMs = existing.pausedMs;
  if (existing.triageState === "needs_more_info" && next.triageState !== "needs_more_info" && existing.infoRequestedAt) {
    const pausedFor = Math.max(0, Date.parse(now) - Date.parse(existing.infoRequestedAt));
    due = resumed(due, metOf(existing), pausedFor);
    pausedMs += pausedFor;
  }
  if (next.severity !== existing.severity) {
    due = { ...due, resolve: dueTimes(existing.targets, Date.parse(existing.createdAt), next.severity, pausedMs).resolve };
  }
  // Junk owes the world no disclosure; reopened (or closed otherwise), the clock from its arrival is back.
  if (owesNoDisclosure(next.triageState)) due = { ...due, disclosure: null };
  else if (owesNoDisclosure(existing.triageState)) {
    due = { ...due, disclosure: dueTimes(existing.targets, Date.parse(existing.createdAt), next.severity, pausedMs).disclosure };
  }
  return { ...dueColumns({ ...due, ...craDueTimes(next) }), pausedMs };
}

/** The vulns an update names, as the caller may see them, with their domains. */
const vulnsRead = (ctx: ServiceContext, ids: readonly string[]) =>
  ctx.db
    .select({ ...getTableColumns(vulns), ...domainsColumn })
    .from(vulns)
    .where(where(inList(vulns.id, ids), tenantFilter(ctx, vulns.organizationId)));

const briefsRead = (ctx: ServiceContext, ids: readonly string[]) =>
  ctx.db.select({ id: briefs.id, organizationId: briefs.organizationId }).from(briefs).where(inList(briefs.id, ids));

/**
 * Updates a vuln: one read (the vuln, and the brief if one is named), then one batch. Every statement
 * is guarded by the revision it read (which only edits bump, not intake), and the events are chained
 * on changes(), so a concurrent edit makes this one a 409 that wrote nothing, rather than a lost update.
 */
export async function updateVuln(ctx: ServiceContext, id: string, input: VulnUpdate): Promise<VulnRecord> {
  return (await updateVulns(ctx, [{ id, input }], { pointer: () => "/data", bulk: false }))[0]!;
}

/**
 * Updates up to 100 vulns at once, all or nothing: one read of every vuln and named brief, then one
 * batch holding each vuln's update as updateVuln plans it (its events included). A vuln that is not
 * the caller's, a brief that is not its organization's, or a concurrent edit of any of them refuses
 * the whole batch. `pointer(i)` is where change `i` sits in the request document (its errors' source);
 * `bulk: false` is updateVuln's single change, whose path named the vuln.
 */
export async function updateVulns(
  ctx: ServiceContext,
  changes: readonly { id: string; input: VulnUpdate }[],
  { pointer, bulk = true }: { pointer: (index: number) => string; bulk?: boolean },
): Promise<VulnRecord[]> {
  const briefIds = [...new Set(changes.flatMap((c) => (c.input.briefId === undefined ? [] : [c.input.briefId])))];
  const ids = changes.map((c) => c.id);
  const [vulnRows, briefRows] = briefIds.length
    ? await readBatch(ctx, [vulnsRead(ctx, ids), briefsRead(ctx, briefIds)])
    : [...(await readBatch(ctx, [vulnsRead(ctx, ids)])), []];
  const found = new Map(vulnRows.map((r) => [r.id, toRecord(r)]));
  const briefOwner = new Map(briefRows.map((b) => [b.id, b.organizationId]));
  const single = !bulk;
  const missing = changes.findIndex((c) => !found.has(c.id));
  if (missing >= 0) {
    throw single
      ? notFound()
      : new NotFound("vuln", `No vuln has the id at ${pointer(missing)}/id.`, { pointer: `${pointer(missing)}/id` });
  }
  const foreignBrief = changes.findIndex(
    (c) => c.input.briefId !== undefined && briefOwner.get(c.input.briefId) !== found.get(c.id)!.organizationId,
  );
  if (foreignBrief >= 0) throw Invalid.at(`${pointer(foreignBrief)}/relationships/brief/data/id`, "brief does not exist.");
  const originals = await resolveDuplicates(ctx, changes, found, pointer);

  const now = nowIso();
  const p = new Plan(null);
  // A refused member (exploitation_known_at) throws while planning, before anything is committed.
  const planned = changes.map((c, i) =>
    planUpdate(
      ctx,
      p,
      found.get(c.id)!,
      { ...c.input, duplicateOf: originals.get(c.id) ?? c.input.duplicateOf },
      now,
      !single,
      (member) => `${pointer(i)}/attributes/${member}`,
    ),
  );
  if (planned.every((u) => !u.guard)) return planned.map((u) => u.next);
  // As in createVuln: a brief deleted since the read makes its foreign key refuse the whole batch. In
  // a bulk update a concurrent edit refuses it too (strict events); which one it was is read again.
  const { results } = await whenRefused(
    () => commit(ctx, p),
    async () => {
      if (!single) {
        const again = new Map((await vulnsRead(ctx, ids)).map((r) => [r.id, r.revision]));
        const moved = changes.findIndex((c) => again.get(c.id) !== found.get(c.id)!.revision);
        if (moved >= 0) throw new Conflict(`The vuln at ${pointer(moved)} changed while this request ran; read it again and retry.`);
      }
      const gone = changes.findIndex((c) => c.input.briefId !== undefined);
      throw Invalid.at(`${pointer(Math.max(gone, 0))}/relationships/brief/data/id`, "brief does not exist.");
    },
  );
  if (planned.some((u) => u.guard && changedRows(u.guard.of(results)) === 0))
    throw new Conflict("The vuln changed while this request ran; read it again and retry.");
  return planned.map((u) => u.next);
}

/**
 * Checks each change's states and original, and resolves the originals named: both states in one
 * PATCH must agree; a duplicate names an original (another of the organization's vulns, and if that
 * is itself a duplicate, its original instead), and only a duplicate has one. A bulk change is judged
 * whole, by the states the request leaves: a change naming another vuln of the same request follows it
 * where the request moves it, so a chain (X of Y, Y of Z) ends at the original (Z) and a cycle (X of Y,
 * Y of X) is refused like a vuln naming itself. Answers the original's id per vuln whose change names one.
 */
async function resolveDuplicates(
  ctx: ServiceContext,
  changes: readonly { id: string; input: VulnUpdate }[],
  found: Map<string, VulnRecord>,
  pointer: (index: number) => string,
): Promise<Map<string, string>> {
  // Where each vuln of the request points once the request is applied (null: it is no duplicate).
  const after = new Map(
    changes.map(({ id, input }) => {
      const existing = found.get(id)!;
      const state = requestedTriageState(existing, input);
      const named = input.duplicateOf === undefined ? existing.duplicateOfId : input.duplicateOf;
      return [id, state === "duplicate" ? (named ?? null) : null] as const;
    }),
  );
  const read = [...new Set([...after.values()].filter((id): id is string => id !== null))];
  const targets = new Map((read.length ? (await readBatch(ctx, [vulnsRead(ctx, read)]))[0] : []).map((r) => [r.id, toRecord(r)] as const));
  /** The original a duplicate of `named` ends at, or null when following it comes back to `from` or loops. */
  const originalOf = (from: string, named: string): string | null => {
    const seen = new Set([from]);
    let current = named;
    for (;;) {
      if (seen.has(current)) return null;
      seen.add(current);
      const stored = targets.get(current);
      const next = after.has(current) ? after.get(current) : stored?.triageState === "duplicate" ? stored.duplicateOfId : null;
      if (!next) return current;
      current = next;
    }
  };
  const resolved = new Map<string, string>();
  changes.forEach(({ id, input }, i) => {
    const existing = found.get(id)!;
    const at = (member: string) => `${pointer(i)}/${member}`;
    if (input.triage_state && input.processing_state && processingStateOf(input.triage_state) !== input.processing_state) {
      throw Invalid.at(
        at("attributes/processing_state"),
        `processing_state must be ${processingStateOf(input.triage_state)} with triage_state ${input.triage_state} (or left out).`,
      );
    }
    const state = requestedTriageState(existing, input);
    const relationship = at("relationships/duplicate_of");
    if (state !== "duplicate") {
      if (input.duplicateOf) throw Invalid.at(relationship, "only a duplicate has an original: set triage_state to duplicate with it.");
      return;
    }
    const named = after.get(id);
    if (!named) throw Invalid.at(relationship, "a duplicate names its original: give duplicate_of.");
    if (input.duplicateOf !== undefined) {
      const target = targets.get(named);
      if (!target || target.organizationId !== existing.organizationId) throw Invalid.at(relationship, "duplicate_of does not exist.");
    } else if (![...after.keys()].some((other) => other !== id && after.get(other) !== null)) {
      // Its original stays, and no other change of the request moves anything it could lead through.
      return;
    }
    const original = originalOf(id, named);
    if (original === null)
      throw Invalid.at(
        relationship,
        changes.length > 1
          ? "a vuln cannot duplicate itself (nor the report it is the original of), also through the other changes of this request."
          : "a vuln cannot duplicate itself (nor the report it is the original of).",
      );
    if (original !== named || input.duplicateOf !== undefined) resolved.set(id, original);
  });
  return resolved;
}

/**
 * Deletes a vuln; Vuln::Destroyed is written first in the same batch, from the row about to go, and
 * its attachments' rows go with it (cascade). Their objects, read in the same batch, are deleted after
 * the answer; unreadable from the moment the rows are gone, any left behind are the cron's to purge.
 */
export async function deleteVuln(ctx: ServiceContext, id: string, objects: R2Bucket): Promise<void> {
  const now = nowIso();
  const scoped = where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId));
  const destroyed = vulnEvent(ctx.db, "Vuln::Destroyed", id, now, { organizationId: ctx.caller.organizationId ?? undefined });
  const p = new Plan(null).add(vulnObjectKeys(ctx, id)).add(destroyed.statement, destroyed.event).add(ctx.db.delete(vulns).where(scoped));
  const { results } = await commit(ctx, p);
  if (changedRows(results[2]) === 0) throw notFound();
  deleteObjectsLater(
    ctx,
    objects,
    (results[0] as { objectKey: string }[]).map((r) => r.objectKey),
  );
}

/**
 * Vulns whose data changed through something else (a linked domain asset edited or deleted): their
 * revision and updated_at move and each gets Vuln::Updated, for the same batch as that change and
 * placed after it, so the payloads show the vulns as the change left them.
 */
export function touchVulns(ctx: ServiceContext, vulnIds: string[], now: string, p: Plan<unknown>): void {
  if (vulnIds.length === 0) return;
  p.add(
    ctx.db
      .update(vulns)
      .set({ revision: sql`${vulns.revision} + 1`, updatedAt: now })
      .where(inList(vulns.id, vulnIds)),
  );
  for (const id of vulnIds) {
    const updated = vulnEvent(ctx.db, "Vuln::Updated", id, now);
    p.add(updated.statement, updated.event);
  }
}

const owesNoDisclosure = (state: TriageState) => (NO_DISCLOSURE_STATES as readonly string[]).includes(state);
const statesSql = (states: readonly string[]) => sql.raw(states.map((s) => `'${s}'`).join(", "));
const OPEN_STATES_SQL = statesSql(OPEN_TRIAGE_STATES);
const NO_DISCLOSURE_SQL = statesSql(NO_DISCLOSURE_STATES);

/**
 * The reporter answered: a report waiting in needs_more_info goes back to the state it came from, in
 * the answer's own batch (after the comment), with that move's events chained on the UPDATE, which
 * changes nothing (and so fires nothing) unless the report is still waiting when the batch runs.
 */
export function returnFromInfoRequest(db: ServiceContext["db"], p: Plan<unknown>, vulnId: string, now: string): void {
  const back = sql`${vulns.infoRequestedFrom}`;
  const reopened = sql`${back} IN (${OPEN_STATES_SQL})`;
  // The wait, in whole milliseconds (the rounding makes julianday's arithmetic exact to the millisecond).
  const waited = sql`max(0, ${Date.parse(now)} - CAST(round((julianday(${vulns.infoRequestedAt}) - 2440587.5) * 86400000) AS INTEGER))`;
  const moved = (due: SQLiteColumn, metBy: SQL) => sql`CASE WHEN ${metBy} THEN ${due} ELSE ${due} + ${waited} END`;
  p.add(
    db
      .update(vulns)
      .set({
        triageState: sql`${back}`,
        processingState: sql`CASE WHEN ${reopened} THEN 'open' ELSE 'closed' END`,
        duplicateOfId: null,
        infoRequestedFrom: null,
        infoRequestedAt: null,
        triagedAt: sql`coalesce(${vulns.triagedAt}, CASE WHEN ${back} = 'triaged' THEN ${now} END)`,
        // As duesAfter: the deadlines still pending move later by the wait (met ones, and none, stay).
        acknowledgeDueMs: moved(vulns.acknowledgeDueMs, sql`${vulns.acknowledgedAt} IS NOT NULL`),
        triageDueMs: moved(vulns.triageDueMs, sql`${vulns.triagedAt} IS NOT NULL OR ${vulns.closedAt} IS NOT NULL`),
        resolveDueMs: moved(vulns.resolveDueMs, sql`${vulns.closedAt} IS NOT NULL`),
        // Back to a junk close: nothing owed (the move to needs_more_info had brought the clock back).
        disclosureDueMs: sql`CASE WHEN ${back} IN (${NO_DISCLOSURE_SQL}) THEN NULL ELSE ${moved(vulns.disclosureDueMs, sql`0`)} END`,
        pausedMs: sql`${vulns.pausedMs} + ${waited}`,
        // The deadlines run again: the cron looks at once, and sets overdue and its next time.
        nextAlertMs: Date.parse(now),
        closedAt: sql`CASE WHEN ${reopened} THEN NULL ELSE ${now} END`,
        closedBy: sql`CASE WHEN ${reopened} THEN NULL ELSE 'organization' END`,
        revision: sql`${vulns.revision} + 1`,
        updatedAt: now,
      })
      .where(and(eq(vulns.id, vulnId), eq(vulns.triageState, "needs_more_info"), isNotNull(vulns.infoRequestedFrom))),
  );
  const updated = vulnEvent(db, "Vuln::Updated", vulnId, now, { ifPreviousChanged: true });
  p.add(updated.statement, updated.event);
  const triaged = triageEvent(db, vulnId, "needs_more_info", now);
  p.add(triaged.statement, triaged.event);
  // A request made from a closed state closes the report again.
  const closed = vulnEvent(db, "Vuln::Processing::Closed", vulnId, now, {
    ifPreviousChanged: true,
    when: eq(vulns.processingState, "closed"),
  });
  p.add(closed.statement, closed.event);
}

/** How long a request for more information waits for the reporter before the report closes as informative. */
export const INFO_REQUEST_DAYS = 30;
const INFO_REQUEST_SWEEP = 100;

/**
 * The cron: reports that have waited INFO_REQUEST_DAYS in needs_more_info with no answer close as
 * informative (closed_by timeout), each as its own PATCH would, events included. Reads the waiting
 * reports on their index, oldest first, a page at a time: its work is the reports due, never the
 * organization's size. A report answered or changed meanwhile is left as it is (its move is guarded).
 */
export async function closeUnansweredInfoRequests(ctx: ServiceContext, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - INFO_REQUEST_DAYS * 86_400_000).toISOString();
  const due = await ctx.db
    .select({ ...getTableColumns(vulns), ...domainsColumn })
    .from(vulns)
    .where(and(eq(vulns.triageState, "needs_more_info"), lte(vulns.infoRequestedAt, cutoff)))
    .orderBy(vulns.triageState, vulns.infoRequestedAt)
    .limit(INFO_REQUEST_SWEEP);
  let closed = 0;
  for (const row of due) {
    const p = new Plan(null);
    const planned = planUpdate(ctx, p, toRecord(row), { triage_state: "informative", closer: "timeout" }, now.toISOString(), false);
    const { results } = await commit(ctx, p);
    if (planned.guard && changedRows(planned.guard.of(results)) > 0) closed++;
  }
  return closed;
}
