import { and, eq, getTableColumns, isNotNull, lte, sql } from "drizzle-orm";
import { NO_DISCLOSURE_STATES, OPEN_TRIAGE_STATES, vulns } from "../../db/schema";
import { FIXED_STATE, finalReportDue, PROMISE_MET_BY, type PromiseKind } from "../../lib/deadlines";
import { changedRows } from "../../db/queries";
import { triageEvent, vulnEvent } from "../../events/outbox";
import type { ServiceContext } from "../context";
import { commit, Plan } from "../unit-of-work";
import { recordColumns, toRecord } from "./read";
import { planUpdate } from "./update";

const statesSql = (states: readonly string[]) => sql.raw(states.map((s) => `'${s}'`).join(", "));
const OPEN_STATES_SQL = statesSql(OPEN_TRIAGE_STATES);
const NO_DISCLOSURE_SQL = statesSql(NO_DISCLOSURE_STATES);
const DUE = {
  acknowledge: vulns.acknowledgeDueMs,
  triage: vulns.triageDueMs,
  resolve: vulns.resolveDueMs,
  disclosure: vulns.disclosureDueMs,
};
const MET = { acknowledgedAt: vulns.acknowledgedAt, triagedAt: vulns.triagedAt, closedAt: vulns.closedAt, disclosedAt: vulns.disclosedAt };

/**
 * The reporter answered: a report waiting in needs_more_info goes back to the state it came from, in
 * the answer's own batch (after the comment), with that move's events chained on the UPDATE, which
 * changes nothing (and so fires nothing) unless the report is still waiting when the batch runs. The
 * answer reads no row before it writes, so this move is decided in SQL, from the row as the batch finds
 * it, by the rules nextVuln (next.ts) holds for a PATCH that leaves needs_more_info: the same tables of
 * what meets each promise (PROMISE_MET_BY) and of when the final report falls due (src/lib/deadlines.ts).
 */
export function returnFromInfoRequest(db: ServiceContext["db"], p: Plan<unknown>, { vulnId, now }: { vulnId: string; now: string }): void {
  const back = sql`${vulns.infoRequestedFrom}`;
  const reopened = sql`${back} IN (${OPEN_STATES_SQL})`;
  // The wait, in whole milliseconds (the rounding makes julianday's arithmetic exact to the millisecond).
  const waited = sql`max(0, ${Date.parse(now)} - CAST(round((julianday(${vulns.infoRequestedAt}) - 2440587.5) * 86400000) AS INTEGER))`;
  // As resumed (src/lib/deadlines.ts): a promise still pending moves later by the wait; a met one, and none, stay.
  const moved = (kind: PromiseKind) => {
    const met = sql.join(
      PROMISE_MET_BY[kind].map((at) => sql`${MET[at]} IS NOT NULL`),
      sql` OR `,
    );
    return sql`CASE WHEN ${met} THEN ${DUE[kind]} ELSE ${DUE[kind]} + ${waited} END`;
  };
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
        // As duesAfter (next.ts).
        acknowledgeDueMs: moved("acknowledge"),
        triageDueMs: moved("triage"),
        resolveDueMs: moved("resolve"),
        // Back to a junk close: nothing owed (the move to needs_more_info had brought the clock back).
        disclosureDueMs: sql`CASE WHEN ${back} IN (${NO_DISCLOSURE_SQL}) THEN NULL ELSE ${moved("disclosure")} END`,
        // As craDueTimes: back to fixed, an actively exploited report's final report falls due from this close.
        craFinalReportDueMs: sql`CASE WHEN ${back} = ${FIXED_STATE} AND ${vulns.activelyExploited} = 1
          AND ${vulns.exploitationKnownAt} IS NOT NULL THEN ${finalReportDue(Date.parse(now))} END`,
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
    .select({ ...getTableColumns(vulns), ...recordColumns })
    .from(vulns)
    .where(and(eq(vulns.triageState, "needs_more_info"), lte(vulns.infoRequestedAt, cutoff)))
    .orderBy(vulns.triageState, vulns.infoRequestedAt)
    .limit(INFO_REQUEST_SWEEP);
  let closed = 0;
  for (const row of due) {
    const p = new Plan(null);
    const planned = planUpdate(ctx, p, {
      existing: toRecord(row),
      input: { triage_state: "informative", closer: "timeout" },
      now: now.toISOString(),
      strict: false,
    });
    const { results } = await commit(ctx, p);
    if (planned.guard && changedRows(planned.guard.of(results)) > 0) closed++;
  }
  return closed;
}
