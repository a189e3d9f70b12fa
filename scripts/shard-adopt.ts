// `npm run shard -- adopt --local|--remote [--persist-to DIR] [--config FILE]`: turns a deployment of one
// database into a sharded one whose first shard is that database (docs/scale.md, "From one database to
// sharded"). The configuration binds the old database's id as TENANT_1 and a migrated CATALOG; this fills the
// catalog from TENANT_1: a `tenants` row and the catalog's copy of each organization, the directories, the
// operators' keys (with their names, as no organization's), and a `catalog_names` row for every name a
// request finds an organization by (the queries of src/db/adoption.ts). Safe to run again: names and
// placements are written with INSERT OR IGNORE, copies only where the tenant's row is newer.
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ADOPTED_NAMES, ADOPTED_ROWS, pageOf, type AdoptedName, type AdoptedTable } from "../src/db/adoption.ts";
import { migrateAll } from "./migrate.ts";
import { flagValue, runWrangler, sqlText } from "./wrangler.ts";
import { configOf, d1Bindings, d1Target } from "./wrangler-layouts.ts";

type Row = Record<string, unknown>;
type Kind = keyof typeof ADOPTED_NAMES;

const SHARD = "TENANT_1";
/** Rows read from TENANT_1 a query: one answer of a few megabytes at most. */
const READ_PAGE = 5_000;
/** Rows an INSERT writes, and statements a file holds: each statement stays far under D1's 100 KB. */
const ROWS_PER_STATEMENT = 100;
const STATEMENTS_PER_FILE = 50;

export async function adopt(args: readonly string[]): Promise<void> {
  const target = args.includes("--remote") ? "--remote" : args.includes("--local") ? "--local" : null;
  const persistTo = flagValue([...args], "--persist-to");
  const config = configOf(args);
  if (!target) {
    console.error("Usage: npm run shard -- adopt --local|--remote [--persist-to DIR] [--config FILE]");
    process.exit(2);
  }
  const bindings = d1Bindings(config).map((d) => d.binding);
  if (!bindings.includes("CATALOG") || !bindings.includes(SHARD)) {
    console.error(
      `${path.relative(process.cwd(), config) || config} binds ${bindings.join(", ")}: adopt needs CATALOG and ${SHARD}, ` +
        `${SHARD} naming the one database's database_id (docs/scale.md, "From one database to sharded").`,
    );
    process.exit(2);
  }
  const options = d1Target({ target, config, persistTo });
  // Local D1 may be brand new; remote D1 is migrated by `npm run db:migrate:remote` first.
  if (target === "--local") await migrateAll({ target, config, persistTo });

  /** The rows of each statement, run as one command (one wrangler call for all of them). */
  const query = (binding: string, sqls: readonly string[]): Row[][] => {
    const out = JSON.parse(runWrangler(["d1", "execute", binding, ...options, "--json", "--command", sqls.join(";\n")])) as {
      results: Row[];
    }[];
    return out.map((r) => r.results ?? []);
  };
  /** Every row of each query of TENANT_1, a page at a time in the order of its key, every query's next page in one call. */
  const readAll = (queries: readonly { sql: string; key: "name" | "id" }[]): Row[][] => {
    const rows = queries.map(() => [] as Row[]);
    let pending = queries.map((q, i) => ({ ...q, i, after: "" }));
    while (pending.length) {
      const pages = query(
        SHARD,
        pending.map((q) => pageOf(q.sql, q.key, q.after, READ_PAGE)),
      );
      pending = pending.flatMap((q, k) => {
        const page = pages[k]!;
        rows[q.i]!.push(...page);
        return page.length < READ_PAGE ? [] : [{ ...q, after: String(page.at(-1)![q.key]) }];
      });
    }
    return rows;
  };
  const counts = () =>
    new Map(
      query("CATALOG", ["SELECT kind, count(*) AS n FROM catalog_names GROUP BY kind"])[0]!.map(
        (r) => [String(r.kind), Number(r.n)] as const,
      ),
    );

  const tables = Object.keys(ADOPTED_ROWS) as AdoptedTable[];
  const kinds = Object.keys(ADOPTED_NAMES) as Kind[];
  const read = readAll([
    ...tables.map((t) => ({ sql: ADOPTED_ROWS[t], key: "id" as const })),
    ...kinds.map((k) => ({ sql: ADOPTED_NAMES[k], key: "name" as const })),
  ]);
  const copies = Object.fromEntries(tables.map((t, i) => [t, read[i]!])) as Record<AdoptedTable, Row[]>;
  const names = Object.fromEntries(kinds.map((k, i) => [k, read[tables.length + i]!])) as unknown as Record<Kind, AdoptedName[]>;
  const operatorNames = copies.api_keys
    .filter((k) => k.revoked_at === null)
    .map((k) => ({ name: String(k.key_hash), organization_id: "", created_at: String(k.created_at) }));

  const at = new Date().toISOString();
  const before = counts();
  // Placements and copies first, so no name is written that leads nowhere.
  const statements = [
    ...insertsOf(
      "INSERT OR IGNORE INTO tenants (organization_id, shard, created_at, updated_at) VALUES",
      copies.organizations.map((o) => [o.id, SHARD, at, at]),
    ),
    ...upserts("organizations", copies.organizations),
    ...upserts("directories", copies.directories),
    ...upserts("api_keys", copies.api_keys),
    ...Object.entries({ ...names, api_key: [...names.api_key, ...operatorNames] }).flatMap(([kind, rows]) =>
      insertsOf(
        "INSERT OR IGNORE INTO catalog_names (kind, name, organization_id, created_at) VALUES",
        rows.map((r) => [kind, r.name, r.organization_id, r.created_at]),
      ),
    ),
  ];
  const dir = mkdtempSync(path.join(tmpdir(), "vdp-adopt-"));
  try {
    for (let i = 0; i < statements.length; i += STATEMENTS_PER_FILE) {
      const file = path.join(dir, `fill-${i / STATEMENTS_PER_FILE}.sql`);
      writeFileSync(file, `${statements.slice(i, i + STATEMENTS_PER_FILE).join("\n")}\n`);
      runWrangler(["d1", "execute", "CATALOG", ...options, "--yes", "--file", file]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const after = counts();

  const where = `${target.slice(2)} D1`;
  console.log(`Adopted ${SHARD} into the catalog (${where}):`);
  console.log(
    `  ${copies.organizations.length} organizations placed in ${SHARD} and copied, ${copies.directories.length} directories, ` +
      `${copies.api_keys.length} operator keys copied`,
  );
  for (const kind of kinds) {
    const held = names[kind].length + (kind === "api_key" ? operatorNames.length : 0);
    const added = (after.get(kind) ?? 0) - (before.get(kind) ?? 0);
    console.log(`  ${kind}: ${held} in ${SHARD}, ${added} new in the catalog`);
  }
  if (copies.api_keys.length)
    console.log(
      `Once the sharded Worker is deployed, its operators' keys are read in the catalog; drop the old copies from ${SHARD} ` +
        `(an operator's list of keys reads both): npx wrangler d1 execute ${SHARD} ${target} --command "DELETE FROM api_keys WHERE organization_id IS NULL"`,
    );
}

const literal = (value: unknown): string =>
  value === null || value === undefined
    ? "NULL"
    : typeof value === "number"
      ? String(value)
      : typeof value === "boolean"
        ? String(Number(value))
        : sqlText(String(value));

/** INSERTs of `head` (ending in VALUES), a statement per ROWS_PER_STATEMENT rows. */
function insertsOf(head: string, rows: readonly unknown[][]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const values = rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => `(${r.map(literal).join(", ")})`);
    out.push(`${head} ${values.join(", ")};`);
  }
  return out;
}

/** The catalog's copies of whole rows: new ones written, older ones brought up to the tenant's (a later write there wins). */
function upserts(table: string, rows: readonly Row[]): string[] {
  if (!rows.length) return [];
  const columns = Object.keys(rows[0]!);
  const set = columns.filter((c) => c !== "id").map((c) => `${c} = excluded.${c}`);
  return insertsOf(
    `INSERT INTO ${table} (${columns.join(", ")}) VALUES`,
    rows.map((r) => columns.map((c) => r[c])),
  ).map((s) => `${s.slice(0, -1)} ON CONFLICT (id) DO UPDATE SET ${set.join(", ")} WHERE excluded.updated_at > ${table}.updated_at;`);
}
