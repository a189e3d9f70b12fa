import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { RowWriter, seed } from "../../bench/seed";
import { met, renderTable, spread, type Row } from "../../bench/table";
import { API_KEY_PATTERN, sha256Hex } from "../../src/lib/crypto";
import { normalizeShortcode } from "../../src/lib/ids";

// What `npm run bench` builds on, without its timings: the seeder writes rows the API reads as its own,
// and the table turns fixed measurements into the right ratios and verdicts.

const root = path.resolve(import.meta.dirname, "../..");

/** A database laid out by the project's migrations, in the order wrangler applies them. */
function migrated(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  const dir = path.join(root, "migrations");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort())
    db.exec(readFileSync(path.join(dir, file), "utf8"));
  return db;
}

const count = (db: DatabaseSync, sql: string, ...params: string[]) => (db.prepare(sql).get(...params) as { n: number }).n;

describe("the bench seeder", () => {
  it("writes organizations whose vulns, keys, brief and directory listing are what the API reads", async () => {
    const db = migrated();
    const seeded = await seed(db, [
      { slug: "few", vulns: 50, keys: 3 },
      { slug: "none", vulns: 0, keys: 1 },
    ]);
    const [few, none] = seeded.organizations;

    expect(count(db, "SELECT count(*) n FROM vulns WHERE organization_id = ?", few!.id)).toBe(50);
    expect(count(db, "SELECT count(*) n FROM vulns WHERE organization_id = ?", none!.id)).toBe(0);
    expect(count(db, "SELECT count(*) n FROM vuln_records")).toBe(50);
    expect(count(db, "SELECT count(*) n FROM vuln_assets")).toBe(50);
    expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([]);

    // Each key is found the way authentication finds it: by the SHA-256 of the key, unrevoked.
    expect(few!.keys).toHaveLength(3);
    for (const key of few!.keys) {
      expect(key).toMatch(API_KEY_PATTERN);
      const row = db
        .prepare("SELECT organization_id, kind FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
        .get(await sha256Hex(key));
      expect(row).toEqual({ organization_id: few!.id, kind: "organization" });
    }

    // The brief is published and reachable by its public code; the directory lists it and the policy.
    expect(normalizeShortcode(few!.briefShortcode)).toBe(few!.briefShortcode);
    const brief = db.prepare("SELECT published_at, organization_id FROM briefs WHERE shortcode = ?").get(few!.briefShortcode) as {
      published_at: string;
      organization_id: string;
    };
    expect(brief.organization_id).toBe(few!.id);
    expect(brief.published_at < new Date().toISOString()).toBe(true);
    const items = db
      .prepare(
        "SELECT i.listable_type t FROM directory_listing_items i JOIN directory_listings l ON l.id = i.listing_id JOIN directories d ON d.id = l.directory_id WHERE d.slug = ? AND l.organization_id = ? ORDER BY i.position",
      )
      .all(seeded.directorySlug, few!.id);
    expect(items).toEqual([{ t: "Policy" }, { t: "Brief" }]);

    // Vulns are well-formed: JSON columns parse, shortcodes unique and of the API's form, ids sort like created_at.
    const vulns = db
      .prepare("SELECT id, shortcode, tags, submission, created_at FROM vulns WHERE organization_id = ? ORDER BY created_at")
      .all(few!.id) as {
      id: string;
      shortcode: string;
      tags: string;
      submission: string;
      created_at: string;
    }[];
    expect(new Set(vulns.map((v) => v.shortcode)).size).toBe(50);
    for (const v of vulns) {
      expect(v.shortcode).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      expect(Array.isArray(JSON.parse(v.tags))).toBe(true);
      expect(JSON.parse(v.submission)).toMatchObject({ received_at: v.created_at });
    }
    expect(vulns.map((v) => v.id)).toEqual([...vulns.map((v) => v.id)].sort());
  });

  it("writes a backlog as the API leaves fresh creates: dispatching, no intake record, one unsent Vuln::Created each", async () => {
    const db = migrated();
    const now = Date.now();
    const [org] = (await seed(db, [{ slug: "backlog-org", vulns: 30, keys: 1, backlog: true }], now)).organizations;
    expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([]);
    expect(
      count(
        db,
        "SELECT count(*) n FROM vulns WHERE organization_id = ? AND inbox_state = 'dispatching' AND processing_state = 'open' AND read_at IS NULL",
        org!.id,
      ),
    ).toBe(30);
    expect(count(db, "SELECT count(*) n FROM vuln_records")).toBe(0);
    const events = db
      .prepare(
        "SELECT e.*, v.title, v.shortcode, v.created_at AS vuln_created_at FROM events e JOIN vulns v ON v.id = e.vuln_id ORDER BY e.created_at",
      )
      .all() as Record<string, string | number | null>[];
    expect(events).toHaveLength(30);
    // Unsent and unprocessed, and old enough for the sweep, which leaves the last minute to the API's messages.
    for (const e of events) {
      expect(e).toMatchObject({
        type: "Vuln::Created",
        organization_id: org!.id,
        processed_at: null,
        last_sent_at: null,
        next_send_at: null,
        send_count: 0,
        created_at: e.vuln_created_at,
      });
      expect(Date.parse(String(e.created_at))).toBeLessThan(now - 60_000);
      // The receiver counts deliveries by the slug their body carries.
      expect(String(e.title)).toContain("backlog-org");
      // The documented body of Vuln::Created, key for key, describing the row.
      const { vuln } = JSON.parse(String(e.payload));
      expect(Object.keys(vuln)).toEqual([
        "id",
        "shortcode",
        "title",
        "description",
        "inbox_state",
        "processing_state",
        "organization_id",
        "tags",
        "assets",
        "created_at",
        "updated_at",
      ]);
      expect(vuln).toMatchObject({
        id: e.vuln_id,
        shortcode: e.shortcode,
        title: e.title,
        inbox_state: "dispatching",
        organization_id: org!.id,
      });
      expect(vuln.assets).toHaveLength(1);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(30);
    expect(count(db, "SELECT count AS n FROM vuln_counts WHERE organization_id = ? AND bucket = 'all'", org!.id)).toBe(30);
  });

  it("stops, naming the column, when the schema requires one it does not fill", () => {
    const db = migrated();
    db.exec("CREATE TABLE scratch (a text NOT NULL, b text NOT NULL, c text)");
    expect(() => new RowWriter(db).insert("scratch", { a: "x" })).toThrow(/^bench\/seed\.ts does not fill scratch\.b,/);
    expect(() => new RowWriter(db, "bench/simulate/writes.ts").insert("scratch", { a: "x" })).toThrow(
      /^bench\/simulate\/writes\.ts does not fill/,
    );
  });

  it("leaves the list counters exact, and stops when they disagree with the rows", async () => {
    const db = migrated();
    const [org] = (await seed(db, [{ slug: "few", vulns: 50, keys: 1 }])).organizations;
    const bucket = (name: string) =>
      (db.prepare("SELECT count FROM vuln_counts WHERE organization_id = ? AND bucket = ?").get(org!.id, name) as { count: number }).count;
    expect([bucket("all"), bucket("processing_state:closed"), bucket("processing_state:open"), bucket("inbox_state:stored")]).toEqual([
      50, 10, 40, 50,
    ]);

    const stale = migrated();
    stale.exec("DROP TRIGGER vuln_counts_insert");
    await expect(seed(stale, [{ slug: "few", vulns: 5, keys: 1 }])).rejects.toThrow(/vuln_counts disagrees/);
  });

  it("refuses a counter table it does not keep exact, and writes nothing", async () => {
    const db = migrated();
    db.exec("CREATE TABLE organization_counters (organization_id text PRIMARY KEY, vulns integer NOT NULL)");
    await expect(seed(db, [{ slug: "few", vulns: 5, keys: 1 }])).rejects.toThrow(/organization_counters/);
    expect(count(db, "SELECT count(*) n FROM vulns")).toBe(0);
  });
});

describe("the bench table", () => {
  const rows: Row[] = [
    {
      what: "brief HIT",
      unit: "req/s",
      api: [900, 1100, 1000],
      baseline: { label: "bare", samples: [1000, 1000, 1000] },
      ratio: true,
      target: { of: "ratio", op: ">=", value: 0.9 },
    },
    {
      what: "page 1",
      unit: "ms",
      api: [130, 120, 150],
      baseline: { label: "at 1k", samples: [100, 100, 100] },
      ratio: true,
      target: { of: "ratio", op: "<=", value: 1.2 },
    },
    {
      what: "deliveries",
      unit: "s",
      api: [12.5, 10],
      baseline: { label: "ideal", samples: [8.33] },
      ratio: true,
      target: { of: "ratio", op: "<=", value: 1.5 },
    },
    { what: "startup", unit: "ms", api: [30, 20, 24], target: { of: "value", op: "<=", value: 25 } },
    { what: "rows read", unit: "rows", api: [200], target: { of: "value", op: "<", value: 200 } },
    { what: "skipped", unit: "ms", api: [], target: { of: "value", op: "<", value: 1 }, note: "skipped: time budget" },
  ];

  it("takes medians and spreads", () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(spread([4, 1, 2, 3])).toEqual({ median: 2.5, min: 1, max: 4 });
    expect(spread([])).toBeNull();
  });

  it("judges each target on the median of per-repetition ratios, or of the figure", () => {
    expect(rows.map(met)).toEqual([true, false, true, true, false, null]);
  });

  it("prints one markdown row per measurement with the ratio and its spread", () => {
    const lines = renderTable(rows).split("\n");
    expect(lines[0]).toBe("| what | API | baseline | ratio | target | met? |");
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines[2]).toBe("| brief HIT | 1,000 req/s (900–1,100) | bare: 1,000 req/s | 1.00x (0.90–1.10) | >= 0.90x | yes |");
    expect(lines[3]).toBe("| page 1 | 130 ms (120–150) | at 1k: 100 ms | 1.30x (1.20–1.50) | <= 1.20x | no |");
    // A single baseline (the ideal) pairs with every repetition: 12.5/8.33 and 10/8.33.
    expect(lines[4]).toContain("| 1.35x (1.20–1.50) | <= 1.50x | yes |");
    expect(lines[5]).toBe("| startup | 24 ms (20–30) | — | — | <= 25 ms | yes |");
    expect(lines[7]).toBe("| skipped | n/a — skipped: time budget | — | — | < 1 ms | n/a |");
    // Runs cut short at a time limit make the figure and its ratio lower bounds.
    const cut = renderTable([{ ...rows[2]!, lowerBound: true }]).split("\n")[2];
    expect(cut).toBe("| deliveries | ≥ 11.3 s (10–12.5) | ideal: 8.33 s | ≥ 1.35x (1.20–1.50) | <= 1.50x | n/a |");
    expect(met({ ...rows[1]!, lowerBound: true })).toBe(false);
  });
});
