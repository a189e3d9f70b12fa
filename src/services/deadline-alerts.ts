import { and, asc, eq, getTableColumns, isNotNull, lte } from "drizzle-orm";
import { deadlineAlerts, vulns } from "../db/schema";
import { deadlineEvent } from "../events/outbox";
import { alertsAt, type Alert } from "../lib/deadlines";
import type { ServiceContext } from "./context";
import { commit, Plan } from "./unit-of-work";
import { alertView } from "./vulns/next";
import { recordColumns, toRecord } from "./vulns/read";
import { subquery } from "../db/queries";

/** Reports one cron run looks at, at most, a page at a time. */
const PAGE = 100;
const MAX_PAGES = 10;

/**
 * The cron: sends the deadline alerts that are due, each exactly once. It reads only the reports whose
 * next look is due (an index on next_alert_ms), with the alerts they already sent, so its work grows
 * with the deadlines due and never with the number of reports. Each report's alerts go in one batch:
 * the alert's row (refused as a duplicate, so a second run or a second cron inserts nothing), its event
 * chained on that insert, and the report's next look.
 */
export async function sweepDeadlineAlerts(ctx: ServiceContext, now = new Date()): Promise<number> {
  const nowMs = now.getTime();
  let sent = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    // Each report with the alerts it already sent ("deadline:alert"), in the one read.
    const due = await ctx.db
      .select({
        ...getTableColumns(vulns),
        ...recordColumns,
        sentJson: subquery<string>`(SELECT json_group_array(${deadlineAlerts.deadline} || ':' || ${deadlineAlerts.alert}) FROM
          ${deadlineAlerts} WHERE ${deadlineAlerts.vulnId} = ${vulns.id})`,
      })
      .from(vulns)
      .where(and(isNotNull(vulns.nextAlertMs), lte(vulns.nextAlertMs, nowMs)))
      .orderBy(asc(vulns.nextAlertMs))
      .limit(PAGE);
    if (due.length === 0) break;
    for (const { sentJson, ...row } of due) {
      const sentBefore = new Set(JSON.parse(sentJson) as string[]);
      const { due: toSend, nextMs, overdue } = alertsAt(alertView(toRecord(row)), sentBefore, nowMs);
      // Sending an alert changes nobody's data: the alert's record and the report's next look are the cron's marks.
      const p = new Plan(null).unaudited("the cron's deadline alerts and next look");
      for (const alert of toSend) planAlert(ctx, p, { vulnId: row.id, alert, now: now.toISOString() });
      // Only if nothing moved the report's look since it was read (a change sets its own, and overdue with it).
      p.add(
        ctx.db
          .update(vulns)
          .set({ nextAlertMs: nextMs, overdue: overdue ? 1 : 0 })
          .where(and(eq(vulns.id, row.id), eq(vulns.nextAlertMs, row.nextAlertMs!))),
      );
      const { events } = await commit(ctx, p);
      sent += events.length;
    }
    if (due.length < PAGE) break;
  }
  return sent;
}

function planAlert(ctx: ServiceContext, p: Plan<unknown>, { vulnId, alert, now }: { vulnId: string; alert: Alert; now: string }): void {
  p.add(
    ctx.db
      .insert(deadlineAlerts)
      .values({ vulnId, deadline: alert.deadline, alert: alert.alert, dueMs: alert.dueMs, createdAt: now })
      .onConflictDoNothing(),
  );
  const dueAt = new Date(alert.dueMs).toISOString();
  const event = deadlineEvent(ctx.db, vulnId, { deadline: alert.deadline, dueAt, breached: alert.alert === "breached" }, now);
  p.add(event.statement, event.event);
}
