// What a replay's measurements say: per layout, the bytes of each table at the last simulated month,
// each database's growth projected to three years (the month it passes 5 GB and 10 GB), the rows it
// writes a day, and its busiest hour against one writer's budget. And K, the shards that hold.
import type { Measurement } from "./database.ts";
import type { ReportPlan } from "./model.ts";
import type { DatabaseResult, LayoutResult } from "./replay.ts";
import { formatNumber } from "../table.ts";

export const GB = 1e9;
export const SOFT_LIMIT = 5 * GB;
export const D1_LIMIT = 10 * GB;
export const HORIZON_MONTHS = 36;

/** D1's own words on what one database can take; printed with the tables. */
export const BUDGET = {
  writesPerSecond: 1_000,
  source:
    "'Each individual D1 database is inherently single-threaded, and processes queries one at a time ... If your average query takes 1ms, you can run approximately 1,000 queries per second' (developers.cloudflare.com/d1/platform/limits/). Taken as 1,000 rows written a second, generous to the writer: D1 adds 'Write queries like INSERT or UPDATE can take several milliseconds'",
  pricing:
    "D1 on Workers Paid: 50 million rows written a month included, then $1.00 a million; 'Indexes will add an additional written row when writes include the indexed column'; storage past 5 GB $0.75 a GB-month; at most 10 GB a database, a limit that 'cannot be further increased' (developers.cloudflare.com/d1/platform/pricing/ and limits/). R2: $0.015 a GB-month, writes $4.50 a million (developers.cloudflare.com/r2/pricing/)",
};

/**
 * The measured months, then one a month to `horizon`: each month grows by the mean growth of the last
 * three measured months (fewer when fewer were measured, counted from `start`, the bytes before the
 * first month: the set-up), times (1 + growth) for each year past the last measured one.
 */
export function project(months: readonly number[], growth: number, horizon = HORIZON_MONTHS, start = 0): number[] {
  const n = months.length;
  if (n === 0) return [];
  const measured = [start, ...months];
  const from = Math.max(0, n - 3);
  const step = (measured[n]! - measured[from]!) / (n - from);
  const out = [...months];
  const lastYear = Math.floor((n - 1) / 12);
  for (let m = n; m < horizon; m++) out.push(out[m - 1]! + step * (1 + growth) ** (Math.floor(m / 12) - lastYear));
  return out;
}

/** The first month (1-based) whose bytes reach `limit`, or null within the horizon. */
export function monthPassing(series: readonly number[], limit: number): number | null {
  const i = series.findIndex((b) => b >= limit);
  return i === -1 ? null : i + 1;
}

export interface Load {
  /** The busiest clock hour's mean rows written a second. */
  hourMean: number;
  /** The busiest second of that hour. */
  second: number;
  rowsPerDay: number;
}

/**
 * The full year's writes of each database: each action of every planned report (not only the replayed
 * sample) counts the mean rows its kind wrote in the replay, at the second it happens, in the database
 * `databaseOf` its organization (-1: none). Two passes: rows per hour, then per second within each
 * database's busiest hour. The cron's purges and the policy versions are spread over the year: they add
 * to the day, not to the peak (`purgeShare`: each database's share of them).
 */
export function fullYearLoads(
  reports: readonly ReportPlan[],
  result: LayoutResult,
  databaseOf: (organization: number) => number,
  databases: number,
  days: number,
  sample: number,
  purgeShare: readonly number[],
): Load[] {
  const perKind = new Map(Object.entries(result.actions).map(([k, a]) => [k, a.count > 0 ? a.rows / a.count : 0]));
  const submitRows = perKind.get("submit") ?? 0;
  const hours = days * 24;
  const hourly = Array.from({ length: databases }, () => new Float64Array(hours));
  const total = new Float64Array(databases);
  const each = (visit: (db: number, atMs: number, rows: number) => void) => {
    for (const r of reports) {
      const db = databaseOf(r.organization);
      if (db < 0) continue;
      visit(db, r.at, submitRows);
      for (const a of r.actions) if (a.at < days * 86_400_000) visit(db, a.at, perKind.get(a.kind) ?? 0);
    }
  };
  each((db, at, rows) => {
    hourly[db]![Math.floor(at / 3_600_000)]! += rows;
    total[db]! += rows;
  });
  const busiest = hourly.map((h) => h.reduce((best, v, i) => (v > h[best]! ? i : best), 0));
  const seconds = Array.from({ length: databases }, () => new Float64Array(3600));
  each((db, at, rows) => {
    if (Math.floor(at / 3_600_000) === busiest[db]) seconds[db]![Math.floor(at / 1000) % 3600]! += rows;
  });
  const spread = (result.actions.purge?.rows ?? 0) / sample + (result.actions.policy_version?.rows ?? 0) / sample;
  return hourly.map((h, db) => ({
    hourMean: h[busiest[db]!]! / 3600,
    second: Math.max(0, ...seconds[db]!),
    rowsPerDay: (total[db]! + spread * purgeShare[db]!) / days,
  }));
}

/** A measurement scaled to the whole year: what grew with the replayed reports, times 1/sample. */
export function scaled(bytes: number, setUp: number, sample: number): number {
  return setUp + (bytes - setUp) / sample;
}

/**
 * Tables that hold a row per organization and bucket, not per report: a sample fills them nearly as
 * the whole year would, so they are not scaled.
 */
export const PER_ORGANIZATION = new Set(["vuln_counts"]);

/** A month's file scaled to the year: the per-organization tables as measured, the rest scaled. */
export function scaledFile(month: Measurement, setUp: Measurement, sample: number): number {
  const fixed = (m: Measurement) => m.tables.filter((t) => PER_ORGANIZATION.has(t.table)).reduce((a, t) => a + t.bytes, 0);
  const grewFixed = fixed(month) - fixed(setUp);
  return scaled(month.fileBytes - grewFixed, setUp.fileBytes, sample) + grewFixed;
}

/** A table's bytes in a month, scaled to the year. */
export function scaledTable(month: Measurement, setUp: Measurement, table: string, sample: number): { bytes: number; rows: number } {
  const now = month.tables.find((t) => t.table === table) ?? { bytes: 0, rows: 0 };
  const before = setUp.tables.find((t) => t.table === table) ?? { bytes: 0, rows: 0 };
  const s = PER_ORGANIZATION.has(table) ? 1 : sample;
  return { bytes: scaled(now.bytes, before.bytes, s), rows: Math.round(scaled(now.rows, before.rows, s)) };
}

/**
 * Organizations placed on shards. K is what first-fit decreasing needs (largest first, each on the first
 * shard with room for its projected bytes; one that alone passes `capacity` gets a shard of its own).
 * Then the same organizations, largest first, go each to the emptiest of the K shards, which spreads
 * them evenly (as the catalog would place a new organization), unless that overfills a shard FFD did not.
 */
export function placeShards(projected: readonly number[], capacity: number): { shardOf: number[]; shards: number[]; oversized: number[] } {
  const order = projected.map((b, o) => [b, o] as const).sort((a, b) => b[0] - a[0]);
  const place = (choose: (shards: number[], bytes: number) => number) => {
    const shards: number[] = [];
    const shardOf = new Array<number>(projected.length).fill(0);
    for (const [bytes, o] of order) {
      let k = choose(shards, bytes);
      if (k === -1) k = shards.push(0) - 1;
      shards[k]! += bytes;
      shardOf[o] = k;
    }
    return { shardOf, shards };
  };
  const firstFit = place((shards, bytes) => shards.findIndex((used) => used + bytes <= capacity));
  const oversized = order.filter(([bytes]) => bytes > capacity).map(([, o]) => o);
  const k = firstFit.shards.length;
  const emptiest = place((shards, _bytes) => {
    if (shards.length < k) return -1;
    return shards.reduce((best, used, i) => (used < shards[best]! ? i : best), 0);
  });
  // Only a shard holding one organization alone may pass the capacity.
  const overfilled = emptiest.shards.some((used, i) => used > capacity && organizationsOn(emptiest.shardOf, i) > 1);
  return { ...(overfilled ? firstFit : emptiest), oversized };
}

/** How many organizations `shardOf` places on shard `k`. */
export const organizationsOn = (shardOf: readonly number[], k: number) => shardOf.reduce((n, s) => n + (s === k ? 1 : 0), 0);

export const formatBytes = (b: number) =>
  b >= GB ? `${(b / GB).toFixed(2)} GB` : b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(1)} kB` : `${b} B`;

/** Bytes by table over every database of a layout at its last month, scaled to the year, largest first. */
export function tableTotals(result: LayoutResult, sample: number): { table: string; bytes: number; rows: number }[] {
  const totals = new Map<string, { bytes: number; rows: number }>();
  for (const db of result.databases) {
    const last = db.months.at(-1)!;
    for (const t of last.tables) {
      const sum = totals.get(t.table) ?? { bytes: 0, rows: 0 };
      const { bytes, rows } = scaledTable(last, db.setUp, t.table, sample);
      sum.bytes += bytes;
      sum.rows += rows;
      totals.set(t.table, sum);
    }
  }
  return [...totals].map(([table, v]) => ({ table, ...v })).sort((a, b) => b.bytes - a.bytes);
}

/** Markdown: the tables with the most bytes, then the rest summed, then the total. */
export function renderTableBytes(result: LayoutResult, sample: number, top = 12): string {
  const totals = tableTotals(result, sample);
  const all = totals.reduce((a, t) => a + t.bytes, 0);
  const lines = ["| table (with its indexes) | rows | bytes | share |", "|---|---|---|---|"];
  for (const t of totals.slice(0, top))
    lines.push(`| ${t.table} | ${formatNumber(t.rows)} | ${formatBytes(t.bytes)} | ${((100 * t.bytes) / all).toFixed(1)}% |`);
  const rest = totals.slice(top);
  if (rest.length)
    lines.push(
      `| ${rest.length} others | ${formatNumber(rest.reduce((a, t) => a + t.rows, 0))} | ${formatBytes(rest.reduce((a, t) => a + t.bytes, 0))} | ${((100 * rest.reduce((a, t) => a + t.bytes, 0)) / all).toFixed(1)}% |`,
    );
  lines.push(`| **all** | | **${formatBytes(all)}** | 100% |`);
  return lines.join("\n");
}

export interface DatabaseFigures {
  name: string;
  lastMonthBytes: number;
  passes5: number | null;
  passes10: number | null;
  rowsPerDay: number;
  hourMean: number;
  second: number;
}

export function databaseFigures(db: DatabaseResult, load: Load, options: { growth: number; sample: number }): DatabaseFigures {
  const series = project(
    db.months.map((m) => scaledFile(m, db.setUp, options.sample)),
    options.growth,
    HORIZON_MONTHS,
    db.setUp.fileBytes,
  );
  return {
    name: db.name,
    lastMonthBytes: series[db.months.length - 1]!,
    passes5: monthPassing(series, SOFT_LIMIT),
    passes10: monthPassing(series, D1_LIMIT),
    ...load,
  };
}

/** "in month 9", or "not within 36 months". */
export const when = (m: number | null) => (m === null ? `not within ${HORIZON_MONTHS} months` : `in month ${m}`);

const monthOrNever = (m: number | null) => (m === null ? `after ${HORIZON_MONTHS}` : `month ${m}`);

/** Markdown: one row per database (for shards: the catalog, the largest shard, and the busiest). */
export function renderDatabases(figures: readonly DatabaseFigures[], months: number): string {
  const lines = [
    `| database | file at month ${months} | passes 5 GB | passes 10 GB | rows written a day | busiest hour, rows/s | its busiest second, rows | busiest hour vs ${formatNumber(BUDGET.writesPerSecond)}/s |`,
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const f of figures)
    lines.push(
      `| ${f.name} | ${formatBytes(f.lastMonthBytes)} | ${monthOrNever(f.passes5)} | ${monthOrNever(f.passes10)} | ${formatNumber(Math.round(f.rowsPerDay))} | ${f.hourMean.toFixed(1)} | ${formatNumber(f.second)} | ${((100 * f.hourMean) / BUDGET.writesPerSecond).toFixed(1)}% |`,
    );
  return lines.join("\n");
}

/**
 * The table that outgrows a database first, summed over the layout's databases: the first to pass
 * 10 GB alone by the projection, then 5 GB, then the largest at the horizon. Its bytes at the last
 * month, and the months it passes 5 GB and 10 GB.
 */
export function firstToOutgrow(
  result: LayoutResult,
  options: { growth: number; sample: number },
): { table: string; bytes: number; passes5: number | null; passes10: number | null } {
  const names = new Set(result.databases.flatMap((db) => db.months.at(-1)!.tables.map((t) => t.table)));
  const candidates = [...names].map((table) => {
    const series = result.databases[0]!.months.map((_, m) =>
      result.databases.reduce((a, db) => a + scaledTable(db.months[m]!, db.setUp, table, options.sample).bytes, 0),
    );
    const start = result.databases.reduce((a, db) => a + scaledTable(db.setUp, db.setUp, table, options.sample).bytes, 0);
    const projected = project(series, options.growth, HORIZON_MONTHS, start);
    return {
      table,
      bytes: series.at(-1)!,
      passes5: monthPassing(projected, SOFT_LIMIT),
      passes10: monthPassing(projected, D1_LIMIT),
      horizon: projected.at(-1)!,
    };
  });
  const never = Number.POSITIVE_INFINITY;
  candidates.sort(
    (a, b) => (a.passes10 ?? never) - (b.passes10 ?? never) || (a.passes5 ?? never) - (b.passes5 ?? never) || b.horizon - a.horizon,
  );
  const { horizon: _, ...first } = candidates[0]!;
  return first;
}

/** Markdown: one row per layout, its largest database, and the writes of all of them. */
export function renderSummary(rows: readonly { title: string; figures: readonly DatabaseFigures[] }[], months: number): string {
  const lines = [
    `| layout | databases | largest at month ${months} | it passes 5 GB | it passes 10 GB | rows written a day, all | busiest hour of the busiest database |`,
    "|---|---|---|---|---|---|---|",
  ];
  for (const { title, figures } of rows) {
    const largest = figures.reduce((a, b) => (b.lastMonthBytes > a.lastMonthBytes ? b : a));
    const busiest = figures.reduce((a, b) => (b.hourMean > a.hourMean ? b : a));
    lines.push(
      `| ${title} | ${figures.length} | ${formatBytes(largest.lastMonthBytes)} | ${monthOrNever(largest.passes5)} | ${monthOrNever(largest.passes10)} | ${formatNumber(Math.round(figures.reduce((a, f) => a + f.rowsPerDay, 0)))} | ${busiest.hourMean.toFixed(1)} rows/s (${((100 * busiest.hourMean) / BUDGET.writesPerSecond).toFixed(1)}% of one writer) |`,
    );
  }
  return lines.join("\n");
}
