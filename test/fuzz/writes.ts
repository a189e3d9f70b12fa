import { env } from "cloudflare:workers";

/**
 * The audit row of a key used from a new address, with the key's `last_used_ip`: written by design
 * whatever the request does (a GET, a refusal), so the counter leaves them out.
 */
const KEY_USE = "api_key.use_from_new_ip";

/**
 * Counts every row written to every table, with triggers the fuzzer adds to its own copy of the
 * database (storage is per test file): one tiny SELECT after a request tells which tables it changed.
 * That is cheaper than hashing tables after each request, and exact: an UPDATE counts only when it
 * changed a value, an INSERT or DELETE always.
 */
export class WriteCounter {
  private tables: string[] = [];

  /**
   * Tables a failed request may write by design. idempotency_keys: a POST with an Idempotency-Key
   * reserves the key before its change and deletes the reservation again when the request fails, so
   * the table ends as it was, but both writes are counted.
   */
  static readonly EXPECTED = new Set(["idempotency_keys"]);

  async install(): Promise<void> {
    const listed = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('d1_migrations', 'fuzz_writes')",
    ).all<{ name: string }>();
    // Full-text indexes (virtual tables, and the shadow tables that hold them) follow their source
    // tables by triggers: a write to one shows as a write to its source, which is counted.
    const virtual = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all<{
      name: string;
    }>();
    const indexes = virtual.results.map((r) => r.name);
    this.tables = listed.results.map((r) => r.name).filter((name) => !indexes.some((v) => name === v || name.startsWith(`${v}_`)));
    const statements = [env.DB.prepare("CREATE TABLE IF NOT EXISTS fuzz_writes (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0)")];
    for (const table of this.tables) {
      const columns = (await env.DB.prepare(`SELECT name FROM pragma_table_info('${table}')`).all<{ name: string }>()).results
        .filter((c) => !(table === "api_keys" && c.name === "last_used_ip"))
        .map((c) => `"${c.name}"`);
      // Any request with a key, refused or not, notes the key's use from a new address (KEY_USE).
      const inserted = table === "audit_events" ? `WHEN NEW.action <> '${KEY_USE}' ` : "";
      const bump = `UPDATE fuzz_writes SET n = n + 1 WHERE tbl = '${table}';`;
      statements.push(
        env.DB.prepare(`INSERT OR IGNORE INTO fuzz_writes (tbl) VALUES ('${table}')`),
        env.DB.prepare(`CREATE TRIGGER IF NOT EXISTS fuzz_${table}_i AFTER INSERT ON "${table}" ${inserted}BEGIN ${bump} END`),
        env.DB.prepare(`CREATE TRIGGER IF NOT EXISTS fuzz_${table}_d AFTER DELETE ON "${table}" BEGIN ${bump} END`),
        env.DB.prepare(
          `CREATE TRIGGER IF NOT EXISTS fuzz_${table}_u AFTER UPDATE ON "${table}" WHEN (${columns.map((c) => `OLD.${c}`).join(", ")}) IS NOT (${columns.map((c) => `NEW.${c}`).join(", ")}) BEGIN ${bump} END`,
        ),
      );
    }
    await env.DB.batch(statements);
  }

  /** Rows written so far, per table. */
  async read(): Promise<Map<string, number>> {
    const rows = await env.DB.prepare("SELECT tbl, n FROM fuzz_writes").all<{ tbl: string; n: number }>();
    return new Map(rows.results.map((r) => [r.tbl, r.n]));
  }

  /**
   * The binding as the Worker gets it, noting whether a request prepared anything but a SELECT: a
   * request that only read (most refused ones) needs no reading of the counts, which halves the cost
   * of a run. Sessions are wrapped alike, since every request runs its work in one.
   */
  static watch(inner: D1Database): { db: D1Database; mayHaveWritten: () => boolean; reset: () => void } {
    let wrote = false;
    const wrap = <T extends D1Database | D1DatabaseSession>(target: T): T =>
      new Proxy(target, {
        get(t, prop) {
          if (prop === "prepare") {
            return (query: string) => {
              if (!/^\s*select\b/i.test(query)) wrote = true;
              return t.prepare(query);
            };
          }
          if (prop === "exec") wrote = true;
          if (prop === "withSession" && "withSession" in t) return (start?: string) => wrap(t.withSession(start));
          const value = Reflect.get(t, prop, t);
          return typeof value === "function" ? value.bind(t) : value;
        },
      });
    return { db: wrap(inner), mayHaveWritten: () => wrote, reset: () => void (wrote = false) };
  }

  /** Tables written between two readings, apart from those a failed request may write. */
  static changed(before: Map<string, number>, after: Map<string, number>, all = false): string[] {
    return [...after].filter(([table, n]) => n !== before.get(table) && (all || !WriteCounter.EXPECTED.has(table))).map(([table]) => table);
  }
}
