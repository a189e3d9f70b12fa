import { count, desc, sql } from "drizzle-orm";
import { vulns } from "../db/schema";
import type { TriageState } from "../db/schema";
import type { ServiceContext } from "./context";
import { periodOf } from "./metrics";
import { readBatch } from "./unit-of-work";

// The period's reports week by week, by what became of them, and the targets they were held to: what
// the console's metrics draw beside the figures of readMetrics (GET /v1/metrics), read the same way
// (the same period and scope, on the created_at index).

/** What became of a report, in four words. */
export const OUTCOMES = ["awaiting", "valid", "duplicate", "not_valid"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const OUTCOME_OF: Record<TriageState, Outcome> = {
  new: "awaiting",
  needs_more_info: "awaiting",
  triaged: "valid",
  resolved: "valid",
  accepted_risk: "valid",
  duplicate: "duplicate",
  informative: "not_valid",
  not_applicable: "not_valid",
  spam: "not_valid",
};

export interface WeeklyReports {
  periodStart: string;
  periodEnd: string;
  /** Every week (from its Monday, UTC) the period touches, the first and the last perhaps in part. */
  weeks: { start: string; counts: Record<Outcome, number> }[];
  /** The targets most of the period's reports were held to (null: no report). */
  acknowledgeHours: number | null;
  triageHours: number | null;
}

const DAY = 86_400_000;
/** The Monday (UTC) of the week a time falls in, as YYYY-MM-DD. */
export function weekOf(iso: string): string {
  const day = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
}

export async function readWeeklyReports(
  ctx: ServiceContext,
  opts: { organizationId?: string; from?: string; to?: string; now?: Date } = {},
): Promise<WeeklyReports> {
  const { from, to, period } = periodOf(ctx, opts, opts.now ?? new Date());
  // SQLite's 'weekday 0' moves to the next Sunday (or stays on one): six days back is that week's Monday.
  const week = sql<string>`date(${vulns.createdAt}, 'weekday 0', '-6 days')`;
  const mostHeld = (path: string) => {
    const hours = sql<number>`json_extract(${vulns.targets}, ${path})`;
    return ctx.db.select({ hours, n: count() }).from(vulns).where(period).groupBy(hours).orderBy(desc(count()), desc(hours)).limit(1);
  };
  const [rows, acknowledge, triage] = await readBatch(ctx, [
    ctx.db.select({ week, state: vulns.triageState, n: count() }).from(vulns).where(period).groupBy(week, vulns.triageState),
    mostHeld("$.acknowledge_hours"),
    mostHeld("$.triage_hours"),
  ]);
  const weeks: WeeklyReports["weeks"] = [];
  const last = weekOf(to);
  for (let start = weekOf(from); start <= last; start = new Date(Date.parse(start) + 7 * DAY).toISOString().slice(0, 10))
    weeks.push({ start, counts: { awaiting: 0, valid: 0, duplicate: 0, not_valid: 0 } });
  const byWeek = new Map(weeks.map((w) => [w.start, w]));
  for (const r of rows) {
    const w = byWeek.get(r.week);
    if (w) w.counts[OUTCOME_OF[r.state]] += r.n;
  }
  return {
    periodStart: from,
    periodEnd: to,
    weeks,
    acknowledgeHours: acknowledge[0]?.hours ?? null,
    triageHours: triage[0]?.hours ?? null,
  };
}
