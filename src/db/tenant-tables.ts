import { is, Table } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

// Which rows of a tenant database are one organization's, derived from the schema: a table's rows are
// the organization's if it has `organization_id`, or if a column names a row that is (a declared foreign
// key, or one of the LINKS below). What an organization's move copies, counts and deletes, and what the
// fence triggers guard, all come from here; test/shards/move-tables.test.ts holds the database's tables
// and triggers to it, so a new table of an organization's rows cannot be left behind by a move.

/** The tables no organization's move carries, and why. */
export const PLATFORM_TABLES: Readonly<Record<string, string>> = {
  tenants: "the catalog's",
  catalog_names: "the catalog's",
  shard_rooms: "the catalog's",
  shard_moves: "the catalog's",
  tenant_fences: "the moves' own fences",
  directories: "the platform's directories (an organization's listings in them move)",
  sign_in_failures: "counted by address or e-mail, nobody's organization",
  deleted_report_tokens: "the tokens of deleted reports, whose organization no row says",
};

/** Columns that name a row of another table without a declared foreign key. */
const LINKS: Readonly<Record<string, { column: string; parent: string }>> = {
  inbound_emails: { column: "vuln_id", parent: "vulns" },
  gate_marks: { column: "brief_id", parent: "briefs" },
};

/**
 * Tables that triggers keep from other tables' rows (counts, a reporter key's record): copying the rows
 * they count fills them again in the new database, so they are copied last, over what the triggers made
 * (the old database's values win), and deleted last, after the rows whose deletion updates them.
 */
export const DERIVED_TABLES: ReadonlySet<string> = new Set(["vuln_counts", "reporter_key_records"]);

/**
 * Columns that triggers on other tables' inserts set (a comment or a file is a report's activity, an
 * organization's first reply acknowledges it): copying those rows sets them again to the copied row's
 * time, so they are written back from the old database once those tables are copied.
 */
export const RESTORED: { table: string; columns: readonly string[]; after: readonly string[] } = {
  table: "vulns",
  columns: ["activity_at", "activity_by", "acknowledged_at", "next_alert_ms"],
  after: ["comments", "attachments"],
};

export interface TenantTable {
  name: string;
  /** Its stored columns (generated ones are computed again by the database they are written into). */
  columns: readonly string[];
  /** Its primary key's columns. */
  key: readonly string[];
  /** The tables its rows hang off (they go in first and out last). */
  parents: readonly string[];
  /** Whether triggers keep it from other tables' rows (see DERIVED_TABLES). */
  derived: boolean;
  /** SQL: the condition on the table's own rows (unqualified) that they are the organization's, whose id is ?1. */
  owned: string;
  /** SQL: the organization a row is of, `row` naming it (NEW, OLD, or a table). */
  ownerOf(row: string): string;
}

const q = (name: string) => `"${name}"`;

interface Raw {
  name: string;
  columns: { name: string; generated: boolean; primary: boolean }[];
  key: string[];
  refs: { column: string; parent: string; parentColumn: string }[];
}

function rawTables(): Map<string, Raw> {
  const tables = new Map<string, Raw>();
  for (const value of Object.values(schema)) {
    if (!is(value, Table)) continue;
    const config = getTableConfig(value as SQLiteTable);
    const columns = config.columns.map((c) => ({ name: c.name, generated: c.generated !== undefined, primary: c.primary }));
    const composite = config.primaryKeys[0]?.columns.map((c) => c.name);
    tables.set(config.name, {
      name: config.name,
      columns,
      key: composite ?? columns.filter((c) => c.primary).map((c) => c.name),
      refs: config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        return {
          column: ref.columns[0]!.name,
          parent: getTableConfig(ref.foreignTable).name,
          parentColumn: ref.foreignColumns[0]!.name,
        };
      }),
    });
  }
  return tables;
}

/** The columns of an idempotency key's scope: the API key's or session's id, or `report:` and the report's. */
function idempotencyTable(raw: Raw): Omit<TenantTable, "columns" | "key" | "derived"> {
  return {
    name: raw.name,
    parents: ["api_keys", "sessions", "vulns"],
    owned: [
      `"scope" IN (SELECT "id" FROM "api_keys" WHERE "organization_id" = ?1)`,
      `"scope" IN (SELECT "id" FROM "sessions" WHERE "organization_id" = ?1)`,
      `"scope" IN (SELECT 'report:' || "id" FROM "vulns" WHERE "organization_id" = ?1)`,
    ].join(" OR "),
    ownerOf: (row) =>
      `coalesce((SELECT "organization_id" FROM "api_keys" WHERE "id" = ${row}."scope"), ` +
      `(SELECT "organization_id" FROM "sessions" WHERE "id" = ${row}."scope"), ` +
      `CASE WHEN ${row}."scope" LIKE 'report:%' THEN (SELECT "organization_id" FROM "vulns" WHERE "id" = substr(${row}."scope", 8)) END)`,
  };
}

/** Every table of an organization's rows, parents before the rows that hang off them. */
function deriveTenantTables(): TenantTable[] {
  const raws = rawTables();
  const found = new Map<string, TenantTable>();
  const resolve = (name: string, seen: string[] = []): TenantTable | null => {
    if (found.has(name)) return found.get(name)!;
    if (seen.includes(name) || name in PLATFORM_TABLES) return null;
    const raw = raws.get(name);
    if (!raw) return null;
    const base = { columns: raw.columns.filter((c) => !c.generated).map((c) => c.name), key: raw.key, derived: DERIVED_TABLES.has(name) };
    let table: TenantTable | null = null;
    const parentsOf = () => [...new Set(raw.refs.map((r) => r.parent).filter((p) => resolve(p, [...seen, name])))];
    if (name === "organizations") table = { ...base, name, parents: [], owned: `"id" = ?1`, ownerOf: (row) => `${row}."id"` };
    else if (name === "idempotency_keys") table = { ...base, ...idempotencyTable(raw) };
    else if (raw.columns.some((c) => c.name === "organization_id")) {
      table = { ...base, name, parents: parentsOf(), owned: `"organization_id" = ?1`, ownerOf: (row) => `${row}."organization_id"` };
    } else {
      // The first link to a table of the organization's rows says whose a row is (any would: they agree).
      const links = [...raw.refs, ...(LINKS[name] ? [{ ...LINKS[name], parentColumn: "id" }] : [])].sort((a, b) =>
        a.column.localeCompare(b.column),
      );
      for (const link of links) {
        const parent = resolve(link.parent, [...seen, name]);
        if (!parent) continue;
        table = {
          ...base,
          name,
          parents: [...new Set([...parentsOf(), link.parent])],
          owned: `${q(link.column)} IN (SELECT ${q(link.parentColumn)} FROM ${q(parent.name)} WHERE ${parent.owned})`,
          ownerOf: (row) =>
            `(SELECT ${parent.ownerOf(q(parent.name))} FROM ${q(parent.name)} WHERE ${q(parent.name)}.${q(link.parentColumn)} = ${row}.${q(link.column)})`,
        };
        break;
      }
    }
    if (table) found.set(name, table);
    return table;
  };
  for (const name of [...raws.keys()].sort()) resolve(name);
  // Parents first; among tables free to go, by name, so the order is the same on every run.
  const ordered: TenantTable[] = [];
  const placed = new Set<string>();
  while (ordered.length < found.size) {
    const next = [...found.values()]
      .filter((t) => !placed.has(t.name) && t.parents.every((p) => placed.has(p) || p === t.name))
      .sort((a, b) => Number(a.derived) - Number(b.derived) || a.name.localeCompare(b.name))[0];
    if (!next) throw new Error("the tables of an organization's rows hang off each other in a circle");
    ordered.push(next);
    placed.add(next.name);
  }
  return [...ordered.filter((t) => !t.derived), ...ordered.filter((t) => t.derived)];
}

/** The tables of an organization's rows in the order a move copies them: parents first, derived tables last. */
export const TENANT_TABLES: readonly TenantTable[] = deriveTenantTables();

/** The order a move deletes them in: the rows that hang off others first, derived tables last. */
export const DELETION_ORDER: readonly TenantTable[] = [
  ...TENANT_TABLES.filter((t) => !t.derived).reverse(),
  ...TENANT_TABLES.filter((t) => t.derived),
];

export function tenantTable(name: string): TenantTable {
  const table = TENANT_TABLES.find((t) => t.name === name);
  if (!table) throw new Error(`${name} holds no organization's rows`);
  return table;
}

/**
 * The fence's triggers on a table of an organization's rows: a write of a fenced organization's row that
 * is not the move's own is dropped (the statement goes on with its other rows). The first test costs an
 * empty table's read when nothing moves.
 */
export function fenceTriggers(table: TenantTable): string[] {
  return (["insert", "update", "delete"] as const).map((op) => {
    const row = op === "insert" ? "NEW" : "OLD";
    return (
      `CREATE TRIGGER ${q(`${table.name}_fenced_${op}`)} BEFORE ${op.toUpperCase()} ON ${q(table.name)}\n` +
      `WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND ` +
      `"organization_id" = ${table.ownerOf(row)})\n` +
      "BEGIN\n  SELECT RAISE(IGNORE);\nEND"
    );
  });
}
