import { and, count, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import { assertMayRead } from "./access";
import type { Db } from "../db";
import { briefs, vulns } from "../db/schema";
import { DEADLINE_KINDS, type DeadlineKind, PROMISE_KINDS } from "../lib/deadlines";
import { BadInput, Forbidden } from "../lib/domain-errors";
import { readersOf, type ServiceContext } from "./context";
import { readBatch } from "./unit-of-work";

/** The period metrics cover when none is given: the last 90 days. */
export const METRICS_DEFAULT_DAYS = 90;
const DAY = 86_400_000;

/**
 * What security teams are judged on for a period (the reports created in it): the seven figures CISA's
 * BOD 20-01 asks of a programme, and per deadline the share met on time of those decided (met, or past
 * due unmet and not paused).
 */
export interface Metrics {
  /** The organization's id, or "platform" for every organization. */
  scope: string;
  periodStart: string;
  periodEnd: string;
  reportsReceived: number;
  /** Triaged, resolved or accepted_risk. */
  validReports: number;
  validOpen: number;
  validOpenOver90Days: number;
  medianSecondsToFirstResponse: number | null;
  medianSecondsToTriage: number | null;
  medianSecondsToResolve: number | null;
  deadlinesMetOnTime: Record<DeadlineKind, number | null>;
}

/** A stored ISO time as epoch milliseconds, exact (the rounding absorbs julianday's arithmetic). */
const ms = (column: SQL | typeof vulns.createdAt) => sql`CAST(round((julianday(${column}) - 2440587.5) * 86400000) AS INTEGER)`;

const MET: Record<DeadlineKind, { due: SQL; met: SQL | null }> = {
  acknowledge: { due: sql`${vulns.acknowledgeDueMs}`, met: sql`${vulns.acknowledgedAt}` },
  triage: { due: sql`${vulns.triageDueMs}`, met: sql`coalesce(${vulns.triagedAt}, ${vulns.closedAt})` },
  resolve: { due: sql`${vulns.resolveDueMs}`, met: sql`${vulns.closedAt}` },
  // Met by the first published advisory naming the report.
  disclosure: { due: sql`${vulns.disclosureDueMs}`, met: sql`${vulns.disclosedAt}` },
  // The law's, met by the first filing of their kind.
  cra_early_warning: { due: sql`${vulns.craEarlyWarningDueMs}`, met: sql`${vulns.craEarlyWarningMetAt}` },
  cra_notification: { due: sql`${vulns.craNotificationDueMs}`, met: sql`${vulns.craNotificationMetAt}` },
  cra_final_report: { due: sql`${vulns.craFinalReportDueMs}`, met: sql`${vulns.craFinalReportMetAt}` },
};

/** The three durations whose medians are asked for, each over the reports that have one. */
const DURATIONS = {
  firstResponse: {
    value: sql<number>`${ms(sql`${vulns.acknowledgedAt}`)} - ${ms(vulns.createdAt)}`,
    has: sql`${vulns.acknowledgedAt} IS NOT NULL`,
  },
  triage: { value: sql<number>`${ms(sql`${vulns.triagedAt}`)} - ${ms(vulns.createdAt)}`, has: sql`${vulns.triagedAt} IS NOT NULL` },
  resolve: {
    value: sql<number>`${ms(sql`${vulns.closedAt}`)} - ${ms(vulns.createdAt)}`,
    has: sql`${vulns.triageState} = 'resolved' AND ${vulns.closedAt} IS NOT NULL`,
  },
};
type Duration = (typeof DURATIONS)[keyof typeof DURATIONS];
type Middle = { value: number }[];

/**
 * One organization's metrics (an operator: any organization's, or the platform's with none) for the
 * reports created from `from` to `to`. One round trip; every statement reads the period's reports on
 * the created_at index, so its cost grows with the period's reports, not with the history kept. The
 * platform's of a sharded deployment read every shard at once, counts summed, and a median that the
 * shards' own do not settle costs a second round trip (see medianAcross).
 */
export async function readMetrics(
  ctx: ServiceContext,
  opts: { organizationId?: string; from?: string; to?: string; now?: Date },
): Promise<Metrics> {
  const now = opts.now ?? new Date();
  const { scope, from, to, period } = periodOf(ctx, opts, now);
  const nowMs = now.getTime();
  const statementsOf = (db: Db) =>
    [
      db
        .select({
          received: sql<number>`count(*)`,
          valid: sql<number>`coalesce(sum(${vulns.triageState} IN ('triaged', 'resolved', 'accepted_risk')), 0)`,
          validOpen: sql<number>`coalesce(sum(${vulns.triageState} = 'triaged'), 0)`,
          validOpenOld: sql<number>`coalesce(sum(${vulns.triageState} = 'triaged' AND ${vulns.createdAt} <
            ${new Date(nowMs - 90 * DAY).toISOString()}), 0)`,
          // How many have each duration: the median's parity (its statement reads the count once more, for its OFFSET).
          firstResponseN: sql<number>`coalesce(sum(${DURATIONS.firstResponse.has}), 0)`,
          triageN: sql<number>`coalesce(sum(${DURATIONS.triage.has}), 0)`,
          resolveN: sql<number>`coalesce(sum(${DURATIONS.resolve.has}), 0)`,
          ...(Object.fromEntries(
            DEADLINE_KINDS.flatMap((k) => [
              [`${k}Decided`, sql<number>`coalesce(sum(${decided(k, nowMs)}), 0)`],
              [`${k}OnTime`, sql<number>`coalesce(sum(${onTime(k)}), 0)`],
            ]),
          ) as Record<string, SQL<number>>),
        })
        .from(vulns)
        .where(period),
      middleTwo(db, DURATIONS.firstResponse.value, and(period, DURATIONS.firstResponse.has)),
      middleTwo(db, DURATIONS.triage.value, and(period, DURATIONS.triage.has)),
      middleTwo(db, DURATIONS.resolve.value, and(period, DURATIONS.resolve.has)),
    ] as const;
  const readers = readersOf(ctx);
  const read =
    readers.length === 1
      ? [await readBatch(ctx, statementsOf(ctx.db))]
      : await Promise.all(readers.map((db) => db.batch(statementsOf(db))));
  // Each database's counts, and the sums of all.
  const each = read.map(([rows]) => rows[0] as Record<string, number>);
  const c: Record<string, number> = {};
  for (const counts of each) for (const [key, n] of Object.entries(counts)) c[key] = (c[key] ?? 0) + n;
  const median = (duration: Duration, name: "firstResponse" | "triage" | "resolve", at: 1 | 2 | 3) => {
    const held = read.map((r, i) => ({ n: each[i]![`${name}N`]!, middle: r[at] as Middle }));
    return medianAcross(readers, { duration, period }, held);
  };
  const [firstResponse, triage, resolve] = await Promise.all([
    median(DURATIONS.firstResponse, "firstResponse", 1),
    median(DURATIONS.triage, "triage", 2),
    median(DURATIONS.resolve, "resolve", 3),
  ]);
  return {
    scope,
    periodStart: from,
    periodEnd: to,
    reportsReceived: c.received!,
    validReports: c.valid!,
    validOpen: c.validOpen!,
    validOpenOver90Days: c.validOpenOld!,
    medianSecondsToFirstResponse: firstResponse,
    medianSecondsToTriage: triage,
    medianSecondsToResolve: resolve,
    deadlinesMetOnTime: Object.fromEntries(
      DEADLINE_KINDS.map((k) => {
        const n = c[`${k}Decided`]!;
        return [k, n ? Math.round((c[`${k}OnTime`]! / n) * 10_000) / 10_000 : null];
      }),
    ) as Record<DeadlineKind, number | null>,
  };
}

/**
 * The median of a duration over every database's reports, in whole seconds (null: none has one), from
 * each database's count and two middle values (middleTwo). One database's middle is the median. Across
 * several, the median of all lies between the lowest of their lower middles and the highest of their
 * upper ones (each database has half its values on either side of its own), so a second read fetches
 * only the values in that range, and the count below it, from each: the median's rank falls among them.
 */
export async function medianAcross(
  readers: readonly Db[],
  { duration, period }: { duration: Duration; period: SQL | undefined },
  held: { n: number; middle: Middle }[],
): Promise<number | null> {
  const n = held.reduce((sum, h) => sum + h.n, 0);
  if (!n) return null;
  const inSeconds = (a: number, b: number) => Math.round((a + b) / 2 / 1000);
  if (held.length === 1) return inSeconds(held[0]!.middle[0]!.value, held[0]!.middle[(n + 1) % 2]!.value);
  const some = held.filter((h) => h.n > 0);
  const lo = Math.min(...some.map((h) => h.middle[0]!.value));
  const hi = Math.max(...some.map((h) => h.middle[(h.n + 1) % 2]!.value));
  const where = and(period, duration.has);
  const parts = await Promise.all(
    readers.map((db) =>
      db.batch([
        db
          .select({ n: count() })
          .from(vulns)
          .where(and(where, sql`${duration.value} < ${lo}`)),
        db
          .select({ value: duration.value })
          .from(vulns)
          .where(and(where, sql`${duration.value} BETWEEN ${lo} AND ${hi}`)),
      ]),
    ),
  );
  const below = parts.reduce((sum, [counted]) => sum + counted[0]!.n, 0);
  const between = parts.flatMap(([, rows]) => rows.map((r) => r.value)).sort((a, b) => a - b);
  return inSeconds(between[Math.floor((n - 1) / 2) - below]!, between[Math.floor(n / 2) - below]!);
}

/** Whose reports and which: the caller's (an operator's choice), created from `from` (default: 90 days before `to`) to `to` (default: now). */
export function periodOf(ctx: ServiceContext, opts: { organizationId?: string; from?: string; to?: string }, now: Date) {
  const scope = scopeOf(ctx, opts.organizationId);
  const to = opts.to ?? now.toISOString();
  const from = opts.from ?? new Date(Date.parse(to) - METRICS_DEFAULT_DAYS * DAY).toISOString();
  // Reversed, the period holds no report, and zeros would read as a quiet period rather than a mistake.
  if (from > to)
    throw new BadInput(`q[created_at_gteq]: the period's start is after its end (${opts.to ? "q[created_at_lteq]" : "now"}, ${to}).`, {
      parameter: "q[created_at_gteq]",
    });
  const period = and(
    scope === "platform" ? undefined : sql`${vulns.organizationId} = ${scope}`,
    gte(vulns.createdAt, from),
    lte(vulns.createdAt, to),
  );
  return { scope, from, to, period };
}

/** Whether a report's deadline is decided at `nowMs`: met, or past due unmet and not paused. */
function decided(k: DeadlineKind, nowMs: number): SQL {
  const { due, met } = MET[k];
  // The promises wait while the report waits for its reporter; the law's clock does not.
  const waiting = (PROMISE_KINDS as readonly string[]).includes(k) ? sql` AND ${vulns.triageState} <> 'needs_more_info'` : sql``;
  const breached = sql`(${due} <= ${nowMs}${waiting})`;
  return met ? sql`(${due} IS NOT NULL AND (${met} IS NOT NULL OR ${breached}))` : sql`(${due} IS NOT NULL AND ${breached})`;
}

/** Whether a report's deadline was met by its due time. */
function onTime(k: DeadlineKind): SQL {
  const { due, met } = MET[k];
  return met ? sql`(${due} IS NOT NULL AND ${met} IS NOT NULL AND ${ms(met)} <= ${due})` : sql`0`;
}

/**
 * The two values of `value` over `where` from the middle on, by SQLite (sorted there): the first is the
 * median of an odd count, both the two middle ones of an even count. One pass: each row's rank and the
 * count are window functions over the same sort.
 */
function middleTwo(db: Db, value: SQL, where: SQL | undefined) {
  const ranked = db
    .select({
      value: sql<number>`${value}`.as("value"),
      rank: sql<number>`row_number() OVER (ORDER BY ${value})`.as("rank"),
      n: sql<number>`count(*) OVER ()`.as("n"),
    })
    .from(vulns)
    .where(where)
    .as("ranked");
  // Ranks past (n - 1) / 2, in whole numbers as SQLite divides: the median, and the one after it.
  return db
    .select({ value: ranked.value })
    .from(ranked)
    .where(sql`${ranked.rank} > (${ranked.n} - 1) / 2`)
    .orderBy(sql`${ranked.rank}`)
    .limit(2);
}

/** Whose metrics the caller reads: its organization's; an operator's choice, or the platform's. */
function scopeOf(ctx: ServiceContext, organizationId: string | undefined): string {
  if (ctx.caller.kind === "operator") return organizationId ?? "platform";
  // This is the metrics' tenancy filter, so it asks for the read scope as tenantFilter does.
  assertMayRead(ctx);
  if (organizationId && organizationId !== ctx.caller.organizationId) {
    throw new Forbidden("An organization key reads its own organization's metrics only.");
  }
  return ctx.caller.organizationId!;
}

// ---- A policy's responsiveness, shown to researchers ---------------------------------------------

/** The period a policy's responsiveness covers, and how many reports it needs before it is shown. */
export const RESPONSIVENESS_DAYS = 90;
export const RESPONSIVENESS_MIN_REPORTS = 5;

/** How a policy answered the reports sent through its briefs in the last 90 days. */
export interface Responsiveness {
  periodDays: number;
  /** Of the acknowledge deadlines decided (met, or past due), the share met on time; null while none is. */
  acknowledgedOnTime: number | null;
  /** Of the reports acknowledged, the median time from received to acknowledged. */
  medianSecondsToAcknowledge: number | null;
}

/**
 * The two statements (for the caller's batch) that read the responsiveness of the policies `policyIds`
 * (a subquery) at `now`: per policy, its reports of the period and their acknowledge figures, and the
 * median time to acknowledge (by window functions, per policy). Both walk the briefs of those policies
 * and each brief's reports of the period on the brief index, so their cost grows with those reports only.
 */
export function responsivenessStatements(db: Db, policyIds: SQL, now: Date) {
  const nowMs = now.getTime();
  const since = new Date(nowMs - RESPONSIVENESS_DAYS * DAY).toISOString();
  const period = and(sql`${briefs.policyId} IN ${policyIds}`, gte(vulns.createdAt, since), lte(vulns.createdAt, now.toISOString()));
  const counts = db
    .select({
      policyId: briefs.policyId,
      reports: count(),
      decided: sql<number>`coalesce(sum(${decided("acknowledge", nowMs)}), 0)`,
      onTime: sql<number>`coalesce(sum(${onTime("acknowledge")}), 0)`,
    })
    .from(vulns)
    .innerJoin(briefs, eq(briefs.id, vulns.briefId))
    .where(period)
    .groupBy(briefs.policyId);
  const wait = sql`${ms(sql`${vulns.acknowledgedAt}`)} - ${ms(vulns.createdAt)}`;
  const ranked = db
    .select({
      policyId: sql<string>`${briefs.policyId}`.as("policy_id"),
      value: sql<number>`${wait}`.as("value"),
      rank: sql<number>`row_number() OVER (PARTITION BY ${briefs.policyId} ORDER BY ${wait})`.as("rank"),
      n: sql<number>`count(*) OVER (PARTITION BY ${briefs.policyId})`.as("n"),
    })
    .from(vulns)
    .innerJoin(briefs, eq(briefs.id, vulns.briefId))
    .where(and(period, sql`${vulns.acknowledgedAt} IS NOT NULL`))
    .as("ranked");
  const medians = db
    .select({ policyId: ranked.policyId, value: sql<number>`avg(${ranked.value})` })
    .from(ranked)
    .where(sql`${ranked.rank} IN ((${ranked.n} + 1) / 2, (${ranked.n} + 2) / 2)`)
    .groupBy(sql`${ranked.policyId}`);
  return [counts, medians] as const;
}

type ResponsivenessRows = {
  counts: { policyId: string | null; reports: number; decided: number; onTime: number }[];
  medians: { policyId: string; value: number }[];
};

/** Per policy id, its responsiveness from the two statements' rows; a policy with fewer than 5 reports has none. */
export function responsivenessFrom({ counts, medians }: ResponsivenessRows): Map<string, Responsiveness> {
  const median = new Map(medians.map((m) => [m.policyId, m.value]));
  const byPolicy = new Map<string, Responsiveness>();
  for (const c of counts) {
    if (!c.policyId || c.reports < RESPONSIVENESS_MIN_REPORTS) continue;
    const value = median.get(c.policyId);
    byPolicy.set(c.policyId, {
      periodDays: RESPONSIVENESS_DAYS,
      acknowledgedOnTime: c.decided ? Math.round((c.onTime / c.decided) * 10_000) / 10_000 : null,
      medianSecondsToAcknowledge: value === undefined ? null : Math.round(value / 1000),
    });
  }
  return byPolicy;
}
