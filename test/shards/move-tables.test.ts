import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DERIVED_TABLES, fenceTriggers, PLATFORM_TABLES, RESTORED, TENANT_TABLES } from "../../src/db/tenant-tables";

// What a move carries is derived from the schema (src/db/tenant-tables.ts); these hold the database the
// migrations lay out to it, so a new table, column or trigger that a move would mishandle fails here
// first, saying what to decide.

type Master = { type: string; name: string; tbl_name: string; sql: string | null };

async function master(): Promise<Master[]> {
  return (await env.TENANT_1.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master").all<Master>()).results;
}

/** The tables of the database, without SQLite's, D1's, and the full-text indexes (kept by triggers) with their shadow tables. */
async function tables(): Promise<string[]> {
  const all = await master();
  const fts = all.filter((m) => m.type === "table" && /^CREATE VIRTUAL TABLE/i.test(m.sql ?? "")).map((m) => m.name);
  return all
    .filter((m) => m.type === "table")
    .map((m) => m.name)
    .filter((n) => !/^(sqlite_|_cf_|d1_)/.test(n) && !fts.some((f) => n === f || n.startsWith(`${f}_`)))
    .sort();
}

/** Triggers that fire on `op` of a table of an organization's rows, the fence's own aside. */
async function triggersOn(op: "INSERT" | "DELETE"): Promise<string[]> {
  const carried = new Set(TENANT_TABLES.map((t) => t.name));
  return (await master())
    .filter((m) => m.type === "trigger" && carried.has(m.tbl_name) && new RegExp(`\\b(BEFORE|AFTER) ${op} ON`, "i").test(m.sql ?? ""))
    .map((m) => m.name)
    .filter((n) => !n.includes("_fenced_"))
    .sort();
}

describe("the tables a move carries", () => {
  it("are every table of the database but the platform's, each once", async () => {
    const carried = TENANT_TABLES.map((t) => t.name);
    expect(new Set(carried).size).toBe(carried.length);
    expect(carried.filter((t) => t in PLATFORM_TABLES)).toEqual([]);
    // A table missing here holds rows the move would leave behind: say how they are an organization's
    // (organization_id, a foreign key, or LINKS in src/db/tenant-tables.ts), or why they are nobody's (PLATFORM_TABLES).
    expect([...carried, ...Object.keys(PLATFORM_TABLES)].sort()).toEqual(await tables());
  });

  it("put every table after the tables it hangs off", () => {
    const at = new Map(TENANT_TABLES.map((t, i) => [t.name, i]));
    for (const t of TENANT_TABLES) for (const p of t.parents) expect([t.name, at.get(p)! < at.get(t.name)!]).toEqual([t.name, true]);
    expect(
      TENANT_TABLES.slice(-DERIVED_TABLES.size)
        .map((t) => t.name)
        .sort(),
    ).toEqual([...DERIVED_TABLES].sort());
    expect(TENANT_TABLES.find((t) => t.name === RESTORED.table)!.columns).toEqual(expect.arrayContaining([...RESTORED.columns]));
  });

  it("are each fenced by the triggers the move relies on", async () => {
    const fences = (await master()).filter((m) => m.type === "trigger" && m.name.includes("_fenced_"));
    const expected = TENANT_TABLES.flatMap((t) => fenceTriggers(t)).sort();
    // A table without them (or with stale ones) can change while the move copies it: add a migration with
    // DROP TRIGGER for the stale ones and the expected CREATE TRIGGER statements (fenceTriggers).
    expect(fences.map((m) => m.sql).sort()).toEqual(expected);
  });

  it("know what every trigger of an insert or a delete does to the move", async () => {
    // Copying rows inserts them, deleting them after the switch deletes them; a trigger of either that writes
    // elsewhere must be one the move accounts for. A new one fails here: decide, then list it.
    expect(await triggersOn("INSERT")).toEqual(
      [
        // Full-text indexes: rebuilt for the copied rows in the new database, as they should be.
        "comments_search_insert",
        "vulns_search_insert",
        // Derived tables (DERIVED_TABLES): copied over last.
        "reporter_key_records_insert",
        "vuln_counts_activity_insert",
        "vuln_counts_insert",
        "vuln_counts_overdue_insert",
        "vuln_counts_severity_insert",
        "vuln_counts_triage_insert",
        // The report's activity and acknowledgement: written back from the old database (RESTORED).
        "vuln_acknowledged_by_comment",
        "vuln_activity_attachment",
        "vuln_activity_comment",
        // A guard: a row already copied is not inserted again, so it never fires for one.
        "webhooks_per_organization_limit",
      ].sort(),
    );
    expect(await triggersOn("DELETE")).toEqual(
      [
        "comments_search_delete",
        "vulns_search_delete",
        "reporter_key_records_delete",
        "vuln_counts_activity_delete",
        "vuln_counts_delete",
        "vuln_counts_overdue_delete",
        "vuln_counts_severity_delete",
        "vuln_counts_triage_delete",
        // Within the organization's own rows, all deleted.
        "vuln_duplicates_orphaned",
        "vuln_possible_duplicates_orphaned",
        // Records of deletions, which let a departing organization's rows go (the fence's `departing`).
        "vulns_keep_deleted_report_token",
        "audit_events_kept_400_days",
      ].sort(),
    );
  });
});
