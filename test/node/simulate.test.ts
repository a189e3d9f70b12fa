import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseOptions, runJob, type Simulation, shardVerdict, simulate } from "../../bench/simulate";
import {
  apportion,
  DEFAULTS,
  planYear,
  type ReportPlan,
  sampleReports,
  type SimulationOptions,
  zipfShares,
} from "../../bench/simulate/model";
import { slot, Template } from "../../bench/simulate/database";
import type { LayoutResult } from "../../bench/simulate/replay";
import {
  fullYearLoads,
  monthPassing,
  placeShards,
  project,
  renderDatabases,
  renderTableBytes,
  scaled,
  tableTotals,
} from "../../bench/simulate/report";

// `npm run simulate` at a tiny size: the figures it prints are SQLite's own accounting of the files it
// wrote (at --sample 1, nothing is scaled), and the arithmetic of its tables holds.

// Seed 2 publishes an advisory within the three months.
const TINY: SimulationOptions = { ...DEFAULTS, organizations: 6, reports: 400, months: 3, sample: 1, seed: 2 };
let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), "vdp-simulate-test-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const TABLES = ["events", "webhook_deliveries", "vulns", "vuln_records", "notifications", "comments", "webhook_attempts"];

/** What SQLite itself says of a file: its pages, and each table's pages with its indexes, and rows. */
function sqliteAccounting(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const pageSize = Number((db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size);
    const pages = Number((db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count);
    const of = (table: string) => ({
      bytes: Number(
        (
          db
            .prepare(
              "SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat WHERE name = ? OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?)",
            )
            .get(table, table) as { b: number }
        ).b,
      ),
      rows: Number((db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n),
    });
    return { fileBytes: pages * pageSize, tables: Object.fromEntries(TABLES.map((t) => [t, of(t)])) };
  } finally {
    db.close();
  }
}

describe("the replay, at a tiny size", () => {
  let today: LayoutResult;
  beforeAll(async () => {
    today = await runJob({ layout: "today", options: TINY, directory });
  }, 60_000);

  it("reports the bytes SQLite counts: the file, each table with its indexes, and the rows", () => {
    const file = path.join(directory, "today-database.sqlite");
    const sqlite = sqliteAccounting(file);
    // One measurement a month.
    expect(today.databases[0]!.months.length).toBe(TINY.months);
    const last = today.databases[0]!.months.at(-1)!;
    expect(last.fileBytes).toBe(sqlite.fileBytes);
    expect(last.fileBytes).toBe(statSync(file).size);
    expect(last.accountedBytes).toBe(last.fileBytes);
    for (const table of TABLES) {
      const reported = last.tables.find((t) => t.table === table)!;
      expect({ table, bytes: reported.bytes, rows: reported.rows }).toEqual({ table, ...sqlite.tables[table] });
    }
    // At --sample 1 the table totals are those figures unscaled.
    const totals = tableTotals(today, 1);
    expect(totals.find((t) => t.table === "events")).toEqual({ table: "events", ...sqlite.tables.events });
  });

  it("writes every planned report, its events and their deliveries, and keeps deliveries 30 days", () => {
    const sqlite = sqliteAccounting(path.join(directory, "today-database.sqlite"));
    expect(sqlite.tables.vulns!.rows).toBe(TINY.reports);
    expect(sqlite.tables.vuln_records!.rows).toBe(TINY.reports);
    // Every report's events: created, received, stored at least.
    expect(sqlite.tables.events!.rows).toBeGreaterThan(3 * TINY.reports);
    const db = new DatabaseSync(path.join(directory, "today-database.sqlite"), { readOnly: true });
    try {
      const oldest = db.prepare("SELECT min(created_at) AS at FROM webhook_deliveries").get() as { at: string };
      const newest = db.prepare("SELECT max(created_at) AS at FROM events").get() as { at: string };
      expect(Date.parse(newest.at) - Date.parse(oldest.at)).toBeLessThanOrEqual(31 * 86_400_000);
      // A delivery carries its event's body, copied by the fan-out; the event is then emptied, unless it
      // is a triage move, whose body stays its delivery's byte for byte.
      const n = (query: string) => (db.prepare(query).get() as { n: number }).n;
      expect(n("SELECT count(*) AS n FROM webhook_deliveries WHERE request_body = '{}'")).toBe(0);
      expect(n("SELECT count(*) AS n FROM events WHERE processed_at IS NULL")).toBe(0);
      expect(n("SELECT count(*) AS n FROM events WHERE (payload = '{}') = (type = 'Vuln::Triage::Changed')")).toBe(0);
      expect(
        n(
          "SELECT count(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.type = 'Vuln::Triage::Changed' AND d.request_body IS NOT e.payload",
        ),
      ).toBe(0);
      expect(
        n(
          "SELECT count(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.type = 'Vuln::Inbox::Stored' AND json_extract(d.request_body, '$.vuln.inbox_state') = 'stored'",
        ),
      ).toBeGreaterThan(0);
      // Every body is JSON, as the Worker's are: the values put into bodies are escaped.
      for (const [table, column] of [
        ["events", "payload"],
        ["webhook_deliveries", "request_body"],
        ["notifications", "params"],
        ["advisory_revisions", "document"],
      ])
        expect([
          table,
          (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE NOT json_valid(${column})`).get() as { n: number }).n,
        ]).toEqual([table, 0]);
      expect((db.prepare("SELECT count(*) AS n FROM events WHERE type = 'Advisory::Published'").get() as { n: number }).n).toBeGreaterThan(
        0,
      );
      expect((db.prepare("PRAGMA foreign_key_check").all() as unknown[]).length).toBe(0);
    } finally {
      db.close();
    }
    expect(today.actions.submit!.count).toBe(TINY.reports);
    expect(today.actions.intake!.rows / today.actions.intake!.count).toBeGreaterThan(10);
  });
});

describe("the four layouts", () => {
  let run: Simulation;
  beforeAll(async () => {
    run = await simulate({ ...TINY, organizations: 4, reports: 120 }, directory, false);
  }, 120_000);

  it("prints a table per layout: today's emptied event bodies against the ones before, R2 taking the bodies out of the rows", () => {
    for (const heading of [
      "## In one table",
      "## Today's layout",
      "## Before event bodies were emptied",
      "## Today's layout with the bodies in R2",
      "shards by organization plus a catalog",
    ])
      expect(run.text).toContain(heading);
    expect(run.text).toMatch(
      new RegExp(`First to outgrow one database: \\w+, [\\d.]+ [kMG]?B at month ${TINY.months} today; alone it passes 5 GB `),
    );
    const [today, before, r2] = run.results;
    expect(run.results.map((r) => r.layout)).toEqual(["today", "before", "r2", "shards"]);
    const of = (r: LayoutResult, table: string) => tableTotals(r, 1).find((t) => t.table === table)!;
    // Emptying event bodies keeps every event row and shrinks the table.
    expect(of(today!, "events").rows).toBe(of(before!, "events").rows);
    expect(of(today!, "events").bytes).toBeLessThan(of(before!, "events").bytes);
    expect(of(r2!, "events").rows).toBe(of(today!, "events").rows);
    expect(of(r2!, "webhook_deliveries").bytes).toBeLessThan(of(today!, "webhook_deliveries").bytes);
    expect(r2!.r2!.objects).toBeGreaterThan(0);
    // The shards hold every tenant row today's database holds, and the catalog none of them.
    const shards = run.results[3]!;
    expect(shards.layout).toBe("shards");
    expect(shards.databases.map((db) => db.name)).toEqual(["catalog", ...Array.from({ length: run.shards.k }, (_, i) => `shard-${i + 1}`)]);
    for (const table of ["vulns", "events", "comments", "notifications"])
      expect([table, tableTotals(shards, 1).find((t) => t.table === table)!.rows]).toEqual([
        table,
        tableTotals(today!, 1).find((t) => t.table === table)!.rows,
      ]);
    const catalog = shards.databases[0]!.months.at(-1)!.tables;
    expect(catalog.find((t) => t.table === "vulns")!.rows).toBe(0);
    expect(catalog.find((t) => t.table === "api_keys")!.rows).toBe(4);
  });
});

describe("a statement built once, run with values", () => {
  it("puts a value into JSON the Worker stringified as JSON string content, and a whole value as itself", () => {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE TABLE t (a TEXT, b INTEGER)");
    const template = new Template(db, {
      sql: 'insert into "t" ("a", "b") values (?, ?)',
      params: [JSON.stringify({ title: slot("title") }), slot("n")],
    });
    expect(template.table).toBe("t");
    expect(template.writes).toBe("insert");
    expect(template.run({ title: 'a "quoted"\ntitle', n: 7 })).toBe(1);
    const row = db.prepare("SELECT a, b FROM t").get() as { a: string; b: number };
    expect(JSON.parse(row.a)).toEqual({ title: 'a "quoted"\ntitle' });
    expect(row.b).toBe(7);
    expect(() => template.run({ title: "x" })).toThrow("No value for slot n");
  });
});

describe("the table code", () => {
  it("shares volume by Zipf and apportions whole reports that sum exactly", () => {
    const shares = zipfShares(100, 1);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(shares[0]! / shares[1]!).toBeCloseTo(2, 12);
    const counts = apportion(shares, 12_345);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12_345);
    expect(counts.every((c, i) => i === 0 || c <= counts[i - 1]!)).toBe(true);
  });

  it("plans each report's moves in an order the Worker allows: read, asked for more, answered, triaged", () => {
    const { reports } = planYear({ ...TINY, reports: 2_000 });
    let asked = 0;
    for (const r of reports) {
      const at = (kind: string, detail?: string) =>
        r.actions.findIndex((a) => a.kind === kind && (detail === undefined || a.detail === detail));
      const more = at("triage", "needs_more_info");
      if (more === -1) continue;
      asked++;
      expect(more).toBeGreaterThan(at("read"));
      // The reporter answers before the next move, which takes the report out of needs_more_info.
      const next = r.actions.findIndex((a, i) => i > more && a.kind === "triage");
      expect(next).toBeGreaterThan(more);
      expect(r.actions.slice(more + 1, next).some((a) => a.kind === "comment" && a.detail === "reporter")).toBe(true);
    }
    expect(asked).toBeGreaterThan(100);
  });

  it("samples the same reports for every layout", () => {
    const { reports } = planYear({ ...TINY, reports: 2_000 });
    const a = sampleReports(reports, 0.1, 1);
    expect(a.map((r) => r.index)).toEqual(sampleReports(reports, 0.1, 1).map((r) => r.index));
    expect(a.map((r) => r.index)).not.toEqual(sampleReports(reports, 0.1, 2).map((r) => r.index));
    expect(sampleReports(reports, 1, 1)).toHaveLength(2_000);
    expect(a.length).toBeGreaterThan(150);
    expect(a.length).toBeLessThan(250);
  });

  it("projects growth from the last three months and finds the month a limit is passed", () => {
    expect(project([1, 2, 3, 4], 0, 6)).toEqual([1, 2, 3, 4, 5, 6]);
    // Three months measured or fewer: the first month's growth counts from the set-up, which is not growth.
    expect(project([10], 0, 3, 4)).toEqual([10, 16, 22]);
    expect(project([10, 14], 0, 4, 4)).toEqual([10, 14, 19, 24]);
    // Growth applies from the year after the last measured month.
    const grown = project(
      Array.from({ length: 12 }, (_, i) => i + 1),
      1,
      14,
    );
    expect(grown.slice(12)).toEqual([14, 16]);
    expect(monthPassing([1, 5, 10, 20], 10)).toBe(3);
    expect(monthPassing([1, 2], 10)).toBeNull();
    expect(scaled(150, 50, 0.1)).toBe(1_050);
  });

  it("counts the whole year's writes per database, each action at its second with its kind's mean rows", () => {
    const HOUR = 3_600_000;
    const report = (organization: number, at: number, actions: [number, "read" | "comment"][]) =>
      ({ organization, at, actions: actions.map(([when, kind]) => ({ at: when, kind })) }) as unknown as ReportPlan;
    const result = {
      actions: {
        submit: { rows: 40, count: 4 },
        read: { rows: 6, count: 2 },
        comment: { rows: 50, count: 5 },
        purge: { rows: 12, count: 2 },
      },
    } as unknown as LayoutResult;
    const reports = [
      // Organization 0 (database 0): a submission and a read in hour 2, the same second; a comment in hour 5.
      report(0, 2 * HOUR + 1_500, [
        [2 * HOUR + 1_900, "read"],
        [5 * HOUR, "comment"],
      ]),
      // Organization 1 (database 1): its busiest hour is hour 1, with two comments in different seconds.
      report(1, 1 * HOUR, [
        [1 * HOUR + 10_000, "comment"],
        [1 * HOUR + 20_000, "comment"],
      ]),
    ];
    const [a, b] = fullYearLoads(reports, result, (o) => o, 2, 2, 0.5, [0.25, 0.75]);
    // Database 0: hour 2 wrote 10 + 3 rows, all in one second; the day: 10 + 3 + 10, plus its quarter of (12 / 0.5) purged rows.
    expect(a).toEqual({ hourMean: 13 / 3600, second: 13, rowsPerDay: (23 + 6) / 2 });
    expect(b).toEqual({ hourMean: 30 / 3600, second: 10, rowsPerDay: (30 + 18) / 2 });
  });

  it("places organizations on as many shards as first fit needs, evenly, an oversized one alone", () => {
    // First fit needs three shards ([6], [3, 2], [2, 1]); the three are then filled evenly, largest first.
    const placed = placeShards([6, 3, 2, 2, 1], 5);
    expect(placed.oversized).toEqual([0]);
    expect(placed.shardOf).toEqual([0, 1, 2, 2, 1]);
    expect(placed.shards).toEqual([6, 4, 4]);
    // Where filling evenly would overfill a shard that first fit did not, first fit stands.
    const tight = placeShards([3, 3, 2, 2, 2], 6);
    expect(tight.shards.every((used) => used <= 6)).toBe(true);
    expect(tight.shards.length).toBe(2);
  });

  it("renders bytes per table with shares, and a database's months", () => {
    const layout = {
      layout: "today",
      databases: [
        {
          name: "database",
          setUp: { fileBytes: 100, accountedBytes: 100, tables: [{ table: "events", bytes: 100, rows: 0 }] },
          months: [
            {
              fileBytes: 4_000,
              accountedBytes: 4_000,
              tables: [
                { table: "events", bytes: 3_000, rows: 30 },
                { table: "vulns", bytes: 1_000, rows: 10 },
              ],
            },
          ],
          rowsWritten: 0,
          batches: 0,
        },
      ],
      actions: {},
      r2: null,
      seconds: 0,
    } satisfies LayoutResult;
    const text = renderTableBytes(layout, 0.5);
    // events: 100 + (3,000 - 100) / 0.5 = 5,900 bytes of 7,900.
    expect(text).toContain("| events | 60 | 5.9 kB | 74.7% |");
    expect(text).toContain("| vulns | 20 | 2.0 kB | 25.3% |");
    expect(
      renderDatabases(
        [{ name: "database", lastMonthBytes: 6e9, passes5: 9, passes10: null, rowsPerDay: 1_234.4, hourMean: 12.34, second: 40 }],
        12,
      ),
    ).toContain("| database | 6.00 GB | month 9 | after 36 | 1,234 | 12.3 | 40 | 1.2% |");
  });

  it("says whether the shards hold, and when one holding a single organization cannot be helped by more", () => {
    const shard = (name: string, passes5: number | null) => ({
      name,
      lastMonthBytes: 0,
      passes5,
      passes10: null,
      rowsPerDay: 0,
      hourMean: 0,
      second: 0,
    });
    const placed = { shardOf: [0, 1, 1] };
    expect(shardVerdict([shard("catalog", null), shard("shard-1", null), shard("shard-2", null)], placed)).toBe(
      "Checked by the replay: no shard passes 5 GB by month 36.",
    );
    const verdict = shardVerdict([shard("catalog", null), shard("shard-1", 30), shard("shard-2", 33)], placed);
    expect(verdict).toContain("shard-1 holds one organization alone and passes 5 GB in month 30: no number of shards helps it");
    expect(verdict).toContain("shard-2 passes 5 GB in month 33: more shards are needed");
    // An organization that shares its shard is no excuse: more shards would help the others.
    expect(shardVerdict([shard("catalog", null), shard("shard-1", 30)], { shardOf: [0, 0, 1] })).toContain(
      "shard-1 passes 5 GB in month 30: more shards are needed",
    );
  });

  it("refuses options it cannot run", () => {
    expect(() => parseOptions(["--months", "13"])).toThrow("--months");
    expect(() => parseOptions(["--sample", "0"])).toThrow("--sample");
    expect(() => parseOptions(["--reports", "-5"])).toThrow("--reports");
    expect(() => parseOptions(["--shards", "3"])).toThrow("shards");
    expect(parseOptions(["--organizations", "10"]).organizations).toBe(10);
    expect(parseOptions(["--help"]).help).toBe(true);
  });
});
