import { and, asc, count, eq, inArray, isNotNull, lt, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db";
import { briefGateState, briefs, gateMarks, vulns, type BriefRow } from "../../db/schema";
import { subquery, where } from "../../db/queries";
import { vulnEvent } from "../../events/outbox";
import { craDueTimes, dueColumns, dueTimes, metOf, nextLookMs } from "../../lib/deadlines";
import { NotFound } from "../../lib/domain-errors";
import { utcDay } from "../../lib/gate";
import { LIMITS } from "../../lib/limits";
import { mayChange } from "../access";
import { assertOperatorMayChange, ownerClaimed, tenantFilter, type ServiceContext } from "../context";
import { commit, consequence, Plan, readBatch } from "../unit-of-work";

// A brief's daily cap queues reports (inbox_state 'queued', in (created_at, id) order on
// vulns_queued_idx); they owe nothing until released. A release moves each to 'dispatching' with its
// deadlines running from the release, and writes its Vuln::Created there, so the intake, the webhooks
// and the notices start as for any new report. Each release is one conditional UPDATE per report with
// its event chained on it: a report already released (by another cron, or the owner) changes nothing
// and gets no second event. The cron's also re-counts the day's admitted reports against the cap in
// SQL, so two crons at once cannot pass it.

/** Briefs with a queue one cron run looks at, oldest queue first. */
const BRIEFS_PER_RUN = 50;
/** Gate marks live this long (the brief's and the address's last hour, and one-use solutions within a challenge's life). */
export const GATE_MARKS_KEPT_MS = 2 * 3_600_000;
const MARKS_PURGE_PAGE = 1000;

/** What a release computes a queued report's deadlines from. */
const queuedColumns = {
  id: vulns.id,
  createdAt: vulns.createdAt,
  revision: vulns.revision,
  targets: vulns.targets,
  severity: vulns.severity,
  triageState: vulns.triageState,
  closedAt: vulns.closedAt,
  acknowledgedAt: vulns.acknowledgedAt,
  triagedAt: vulns.triagedAt,
  disclosedAt: vulns.disclosedAt,
  activelyExploited: vulns.activelyExploited,
  exploitationKnownAt: vulns.exploitationKnownAt,
  craEarlyWarningMetAt: vulns.craEarlyWarningMetAt,
  craNotificationMetAt: vulns.craNotificationMetAt,
  craFinalReportMetAt: vulns.craFinalReportMetAt,
};

/** The first `limit` queued reports of a brief, oldest first. */
const queuedOf = (db: Db, { briefId, limit, scope }: { briefId: string; limit: number; scope?: SQL }) =>
  db
    .select(queuedColumns)
    .from(vulns)
    .where(where(eq(vulns.briefId, briefId), eq(vulns.inboxState, "queued"), scope))
    .orderBy(asc(vulns.createdAt), asc(vulns.id))
    .limit(limit);

type QueuedRow = Awaited<ReturnType<typeof queuedOf>>[number];

/** Reports a brief admitted on `day` (UTC), counted in SQL where the write runs (vulns_brief_admitted_idx). */
const admittedOn = (briefId: string | SQLiteColumn, day: string) =>
  subquery<number>`(SELECT count(*) FROM vulns v WHERE v.brief_id = ${briefId} AND v.admitted_day = ${day})`;

/**
 * The columns of a report released at `nowMs`: dispatching to the intake, counted on today's cap, its
 * promises running from now (as a report created now), the law's from when the exploitation was known.
 */
function releasedColumns(row: QueuedRow, nowMs: number) {
  const now = new Date(nowMs).toISOString();
  const due = { ...dueTimes(row.targets, nowMs, row.severity, 0), ...craDueTimes(row) };
  const met = metOf({ ...row, ...dueColumns(due) });
  return {
    inboxState: "dispatching" as const,
    admittedDay: utcDay(nowMs),
    releaseExpectedOn: null,
    ...dueColumns(due),
    nextAlertMs: nextLookMs({ due, met, triageState: row.triageState, targets: row.targets, severity: row.severity }),
    updatedAt: now,
  };
}

/**
 * The release of `rows` of a brief, in order, into `p`: per report the guarded UPDATE and its
 * Vuln::Created chained on it, then the brief's queue head moved to what is still queued. Each UPDATE
 * also needs the report unchanged since it was read (its revision: its deadlines are computed from
 * its targets and severity) and no older report still queued, so reports leave in order; with
 * `capped`, the day's admitted count under the brief's cap at that point of the batch.
 */
function planRelease(
  ctx: ServiceContext,
  p: Plan<unknown>,
  { briefId, rows, nowMs, capped }: { briefId: string; rows: QueuedRow[]; nowMs: number; capped: boolean },
): void {
  const now = new Date(nowMs).toISOString();
  const today = utcDay(nowMs);
  for (const row of rows) {
    const olderQueued = subquery`NOT EXISTS (SELECT 1 FROM vulns q WHERE q.brief_id = ${briefId} AND q.inbox_state = 'queued'
      AND (q.created_at < ${row.createdAt} OR (q.created_at = ${row.createdAt} AND q.id < ${row.id})))`;
    // No cap (removed while reports waited): the queue drains a batch a run.
    const underCap = subquery`${admittedOn(briefId, today)} < coalesce((SELECT daily_cap FROM briefs WHERE briefs.id = ${briefId}), ${Number.MAX_SAFE_INTEGER})`;
    p.add(
      consequence(
        ctx.db
          .update(vulns)
          .set(releasedColumns(row, nowMs))
          .where(
            and(
              eq(vulns.id, row.id),
              eq(vulns.inboxState, "queued"),
              eq(vulns.revision, row.revision),
              olderQueued,
              capped ? underCap : undefined,
            ),
          ),
      ),
    );
    const created = vulnEvent(ctx.db, "Vuln::Created", row.id, now, { ifPreviousChanged: true });
    p.add(created.statement, created.event);
  }
  p.add(
    consequence(
      ctx.db
        .update(briefGateState)
        .set({
          queueHeadAt: subquery<
            string | null
          >`(SELECT min(q.created_at) FROM vulns q WHERE q.brief_id = ${briefId} AND q.inbox_state = 'queued')`,
        })
        .where(eq(briefGateState.briefId, briefId)),
    ),
  );
}

/**
 * The cron: for up to 50 briefs with a queue, releases the oldest queued reports the day's cap still
 * has room for (at most LIMITS.queueReleaseBatch a brief), each brief in one batch. Returns how many
 * were released.
 */
export async function releaseQueuedReports(ctx: ServiceContext, now = new Date()): Promise<number> {
  const nowMs = now.getTime();
  const today = utcDay(nowMs);
  const queues = await ctx.db
    .select({ briefId: briefGateState.briefId, cap: briefs.dailyCap, admittedToday: admittedOn(briefGateState.briefId, today) })
    .from(briefGateState)
    .innerJoin(briefs, eq(briefs.id, briefGateState.briefId))
    .where(isNotNull(briefGateState.queueHeadAt))
    .orderBy(asc(briefGateState.queueHeadAt))
    .limit(BRIEFS_PER_RUN);
  const room = (q: (typeof queues)[number]) =>
    Math.min(LIMITS.queueReleaseBatch, q.cap === null ? LIMITS.queueReleaseBatch : q.cap - q.admittedToday);
  const open = queues.filter((q) => room(q) > 0);
  if (open.length === 0) return 0;
  const [first, ...rest] = open.map((q) => queuedOf(ctx.db, { briefId: q.briefId, limit: room(q) }));
  const queued = await ctx.db.batch([first!, ...rest]);
  let released = 0;
  for (const [i, q] of open.entries()) {
    const p = new Plan(null).unaudited("the intake's release of reports its brief's daily cap queued");
    planRelease(ctx, p, { briefId: q.briefId, rows: queued[i]!, nowMs, capped: true });
    const { events } = await commit(ctx, p);
    released += events.length;
  }
  return released;
}

export interface QueueRelease {
  brief: BriefRow;
  released: number;
  stillQueued: number;
}

/**
 * The owner's release: the brief's oldest queued reports, up to LIMITS.queueReleaseBatch, whatever its
 * cap (they count on today's). Audited as brief.release_queued, also when nothing was queued.
 */
export async function releaseQueuedVulns(ctx: ServiceContext, briefId: string, now = new Date()): Promise<QueueRelease> {
  mayChange(ctx, "settings");
  const [found, rows] = await readBatch(ctx, [
    ctx.db
      .select({ brief: briefs, claimed: ownerClaimed(briefs.organizationId) })
      .from(briefs)
      .where(where(eq(briefs.id, briefId), tenantFilter(ctx, briefs.organizationId))),
    queuedOf(ctx.db, { briefId, limit: LIMITS.queueReleaseBatch, scope: tenantFilter(ctx, vulns.organizationId) }),
  ]);
  const row = found[0];
  if (!row) throw new NotFound("brief", "No brief has that id.");
  assertOperatorMayChange(ctx, row.claimed, "briefs");
  const { brief } = row;
  const p = new Plan(null).audits({
    action: "brief.release_queued",
    target: { type: "brief", id: brief.id },
    organizationId: brief.organizationId,
  });
  planRelease(ctx, p, { briefId: brief.id, rows, nowMs: now.getTime(), capped: false });
  const still = p.track<{ n: number }[]>(
    ctx.db
      .select({ n: count() })
      .from(vulns)
      .where(and(eq(vulns.briefId, brief.id), eq(vulns.inboxState, "queued"))),
  );
  const { events, results } = await commit(ctx, p);
  return { brief, released: events.length, stillQueued: still.of(results)[0]?.n ?? 0 };
}

/** The cron: forgets gate marks older than two hours, a page at a time (the addresses' tags go with them). */
export async function purgeGateMarks(db: Db, now = new Date()): Promise<number> {
  const page = db
    .select({ id: gateMarks.id })
    .from(gateMarks)
    .where(lt(gateMarks.atMs, now.getTime() - GATE_MARKS_KEPT_MS))
    .limit(MARKS_PURGE_PAGE);
  const deleted = await db.delete(gateMarks).where(inArray(gateMarks.id, page)).returning({ id: gateMarks.id });
  return deleted.length;
}
