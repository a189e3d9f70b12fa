import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { waitFor } from "../helpers/wait";
import { d1Bindings, oneDatabaseConfig, oneDatabaseText, tenantBindings, WRANGLER_TOML } from "../../scripts/wrangler-layouts";

// The two layouts of the databases: wrangler.toml's (a catalog and tenant databases) and the one-database
// configuration derived from it; and what the commands make of them: `npm run dev` migrates every database
// and places the demo organizations in different shards, `npm run db:migrate:local` migrates each.

const root = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const { persistTo, banner } = inject("dev");
const migrations = readdirSync(path.join(root, "migrations")).filter((f) => f.endsWith(".sql")).length;

/** What a wrangler configuration's relative path (main, migrations_dir, an alias) leads to. */
const resolvedFrom = (config: string, value: string) => path.resolve(path.dirname(config), value);
const stringsOf = (text: string, key: string) => [...text.matchAll(new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+)"`, "gm"))].map((m) => m[1]!);

describe("the databases' two layouts", () => {
  it("wrangler.toml binds a catalog and tenant databases, distinct, each laid out by migrations/", () => {
    const bindings = d1Bindings();
    expect(bindings.map((d) => d.binding)).toEqual(["CATALOG", "TENANT_1", "TENANT_2"]);
    expect(tenantBindings()).toEqual(["TENANT_1", "TENANT_2"]);
    expect(new Set(bindings.map((d) => d.databaseId)).size).toBe(3);
    expect(new Set(bindings.map((d) => d.databaseName)).size).toBe(3);
    expect(bindings.map((d) => d.migrationsDir)).toEqual(["migrations", "migrations", "migrations"]);
  });

  it("the one-database configuration binds DB alone, and its paths lead where wrangler.toml's do", () => {
    const config = oneDatabaseConfig();
    expect(config.startsWith(path.join(root, ".wrangler"))).toBe(true);
    expect(d1Bindings(config).map((d) => d.binding)).toEqual(["DB"]);
    expect(tenantBindings(config)).toEqual([]);
    expect(resolvedFrom(config, d1Bindings(config)[0]!.migrationsDir!)).toBe(path.join(root, "migrations"));
    const [source, derived] = [readFileSync(WRANGLER_TOML, "utf8"), readFileSync(config, "utf8")];
    expect(resolvedFrom(config, stringsOf(derived, "main")[0]!)).toBe(resolvedFrom(WRANGLER_TOML, stringsOf(source, "main")[0]!));
    const aliases = (text: string) => [...text.matchAll(/^"[^"]+"\s*=\s*"(\.[^"]+)"/gm)].map((m) => m[1]!);
    expect(aliases(derived).map((a) => resolvedFrom(config, a))).toEqual(aliases(source).map((a) => resolvedFrom(WRANGLER_TOML, a)));
    expect(aliases(derived).every((a) => existsSync(resolvedFrom(config, a)))).toBe(true);
    // Everything else is wrangler.toml's own: the rate limits, the queue, the cron.
    const rest = (text: string) =>
      text
        .slice(text.indexOf("[[r2_buckets]]"))
        .replace(/^"[^"]+"\s*=\s*"[^"]+"$/gm, "")
        .replace(/\n{3,}/g, "\n\n");
    expect(rest(derived)).toBe(rest(source));
  });

  it("refuses a configuration that keeps no commented one-database block", () => {
    const text = readFileSync(WRANGLER_TOML, "utf8").replace(/^# \[\[d1_databases\]\]$/m, "#");
    expect(() => oneDatabaseText(text, WRANGLER_TOML, path.join(root, ".wrangler"))).toThrow(/one-database block/);
  });
});

describe("the commands on the sharded layout", () => {
  const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
  // The dev server writes the same local files (its cron, its queue): a read that finds them locked
  // (SQLITE_BUSY) waits for them, as scripts/wrangler.ts does; any other failure fails the test.
  const query = async (binding: string, sql: string, dir = persistTo): Promise<Record<string, unknown>[]> =>
    (await waitFor(
      `${binding} to answer ${sql}`,
      async () => {
        try {
          const { stdout } = await run(wrangler, ["d1", "execute", binding, "--local", "--persist-to", dir, "--json", "--command", sql], {
            cwd: root,
            env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
          });
          return (JSON.parse(stdout) as { results: Record<string, unknown>[] }[])[0]!.results;
        } catch (err) {
          if (/SQLITE_BUSY|database is locked/.test(String((err as { stderr?: string }).stderr ?? err))) return null;
          throw err;
        }
      },
      (results) => results !== null,
    ))!;

  it("npm run dev migrated every database and placed the two demo organizations in different shards, as it says", async () => {
    for (const binding of ["CATALOG", "TENANT_1", "TENANT_2"])
      expect(await query(binding, "SELECT count(*) AS n FROM d1_migrations")).toEqual([{ n: migrations }]);
    const placed = await query("CATALOG", "SELECT organization_id, shard FROM tenants WHERE organization_id LIKE '01900000-%' ORDER BY 1");
    expect(placed).toEqual([
      { organization_id: "01900000-0000-7000-8000-000000000001", shard: "TENANT_1" },
      { organization_id: "01900000-0000-7000-8000-0000000000c1", shard: "TENANT_2" },
    ]);
    expect(banner).toMatch(/the demo organization is in TENANT_1,\s+its neighbour \(Neighbour Security Co\) in TENANT_2/);
    // Each organization's rows are in its own shard only; the catalog keeps its copy.
    const demo = "SELECT id FROM organizations WHERE id = '01900000-0000-7000-8000-000000000001'";
    expect((await query("TENANT_1", demo)).length).toBe(1);
    expect((await query("TENANT_2", demo)).length).toBe(0);
    expect((await query("CATALOG", demo)).length).toBe(1);
  });

  it("npm run db:migrate:local migrates each database of the configuration, and again finds each up to date", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "vdp-migrate-"));
    try {
      const migrate = () => run(process.execPath, ["scripts/migrate.ts", "--local", "--persist-to", dir], { cwd: root });
      const first = (await migrate()).stdout;
      expect(first).toContain("Migrated 3 local D1 databases: CATALOG, TENANT_1, TENANT_2.");
      for (const binding of ["CATALOG", "TENANT_1", "TENANT_2"])
        expect(await query(binding, "SELECT count(*) AS n FROM d1_migrations", dir)).toEqual([{ n: migrations }]);
      expect((await migrate()).stdout).toMatch(/CATALOG: up to date\nTENANT_1: up to date\nTENANT_2: up to date/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
