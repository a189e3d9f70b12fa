import { RESTORED, TENANT_TABLES, type TenantTable } from "./tenant-tables";

// The statements an organization's move runs in tenant databases, over the tables src/db/tenant-tables.ts
// derives from the schema. Rows travel as JSON (one bound value a statement, whatever a table's width:
// D1 binds at most 100 values), in the column order of the table's description; every write is
// idempotent, so a page written twice (a move killed after its batch, before it noted its cursor) adds
// nothing.

type D1 = D1Database | D1DatabaseSession;

const q = (name: string) => `"${name}"`;
const at = (i: number) => `j.value ->> '$[${i}]'`;

/** A bound value holds at most this much JSON: well under D1's 2 MB for a string, with room for escapes. */
const JSON_CHUNK_BYTES = 512 * 1024;

/** The organization's rows of each table (its fence keeps them still while they are compared), in one batch. */
export async function countRows(
  d1: D1,
  organizationId: string,
  tables: readonly TenantTable[] = TENANT_TABLES,
): Promise<Record<string, number>> {
  const results = await d1.batch(
    tables.map((t) => d1.prepare(`SELECT count(*) AS n FROM ${q(t.name)} WHERE ${t.owned}`).bind(organizationId)),
  );
  return Object.fromEntries(tables.map((t, i) => [t.name, (results[i]!.results[0] as { n: number }).n]));
}

/**
 * A page of the organization's rows of a table after `after` (a rowid of the database read), in rowid
 * order: each row as SQLite's own JSON array of its columns (integers, reals, text and nulls as they are
 * stored), beside its rowid.
 */
export function readPage(d1: D1, table: TenantTable, organizationId: string, { after, limit }: { after: number; limit: number }) {
  return readColumns(d1, { table, columns: table.columns }, organizationId, { after, limit });
}

/** The columns RESTORED writes back, read from the database the organization leaves: the row's key first. */
export function readRestored(d1: D1, organizationId: string, { after, limit }: { after: number; limit: number }) {
  const table = TENANT_TABLES.find((t) => t.name === RESTORED.table)!;
  return readColumns(d1, { table, columns: [...table.key, ...RESTORED.columns] }, organizationId, { after, limit });
}

function readColumns(
  d1: D1,
  { table, columns }: { table: TenantTable; columns: readonly string[] },
  organizationId: string,
  { after, limit }: { after: number; limit: number },
) {
  return d1
    .prepare(
      `SELECT rowid AS "r", json_array(${columns.map(q).join(", ")}) AS "j" FROM ${q(table.name)} ` +
        `WHERE (${table.owned}) AND rowid > ?2 ORDER BY rowid LIMIT ?3`,
    )
    .bind(organizationId, after, limit);
}

export type Page = { rows: string[]; next: number | null };

/** A page's rows, and the cursor after it: null once the table is read to its end. */
export function pageOf(result: D1Result, limit: number): Page {
  const raw = result.results as { r: number; j: string }[];
  return { rows: raw.map((row) => row.j), next: raw.length < limit ? null : raw[raw.length - 1]!.r };
}

function chunks(rows: readonly string[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const json of rows) {
    if (current.length && bytes + json.length > JSON_CHUNK_BYTES) {
      out.push(`[${current.join(",")}]`);
      current = [];
      bytes = 0;
    }
    current.push(json);
    bytes += json.length + 1;
  }
  if (current.length) out.push(`[${current.join(",")}]`);
  return out;
}

/**
 * Statements writing rows read by readPage into another database. A row already there is left as it is
 * (and fires no trigger: a BEFORE INSERT guard, a count, a search index), except in a derived table,
 * where the copied row replaces what the triggers made of the rows copied before it.
 */
export function insertRows(d1: D1, table: TenantTable, rows: readonly string[]): D1PreparedStatement[] {
  const columns = table.columns.map(q).join(", ");
  const values = table.columns.map((_, i) => at(i)).join(", ");
  const keyAt = table.key.map((k) => at(table.columns.indexOf(k))).join(", ");
  const keys = table.key.map(q).join(", ");
  const tail = table.derived
    ? `WHERE true ON CONFLICT (${keys}) DO UPDATE SET ${table.columns
        .filter((c) => !table.key.includes(c))
        .map((c) => `${q(c)} = excluded.${q(c)}`)
        .join(", ")}`
    : `WHERE NOT EXISTS (SELECT 1 FROM ${q(table.name)} WHERE (${keys}) = (${keyAt})) ON CONFLICT DO NOTHING`;
  return chunks(rows).map((json) =>
    d1.prepare(`INSERT INTO ${q(table.name)} (${columns}) SELECT ${values} FROM json_each(?1) AS j ${tail}`).bind(json),
  );
}

/** Before a derived table's first page: what the triggers made of the copied rows goes, the old database's rows replace it. */
export function clearDerived(d1: D1, table: TenantTable, organizationId: string): D1PreparedStatement {
  if (!table.derived) throw new Error(`${table.name} is not derived`);
  return d1.prepare(`DELETE FROM ${q(table.name)} WHERE ${table.owned}`).bind(organizationId);
}

/** Writes back the RESTORED columns where the copy's triggers changed them. */
export function restoreRows(d1: D1, rows: readonly string[]): D1PreparedStatement[] {
  const table = TENANT_TABLES.find((t) => t.name === RESTORED.table)!;
  const keyCount = table.key.length;
  const set = RESTORED.columns.map((c, i) => `${q(c)} = ${at(keyCount + i)}`).join(", ");
  const differs = RESTORED.columns.map((c, i) => `${q(table.name)}.${q(c)} IS NOT ${at(keyCount + i)}`).join(" OR ");
  const key = table.key.map((k, i) => `${q(table.name)}.${q(k)} = ${at(i)}`).join(" AND ");
  return chunks(rows).map((json) =>
    d1.prepare(`UPDATE ${q(table.name)} SET ${set} FROM json_each(?1) AS j WHERE ${key} AND (${differs})`).bind(json),
  );
}

/** Deletes a page of the organization's rows of a table; fewer changes than `limit` means none are left. */
export function deleteRows(d1: D1, table: TenantTable, organizationId: string, limit: number): D1PreparedStatement {
  return d1
    .prepare(`DELETE FROM ${q(table.name)} WHERE rowid IN (SELECT rowid FROM ${q(table.name)} WHERE ${table.owned} LIMIT ?2)`)
    .bind(organizationId, limit);
}

export type FenceState = "open" | "departing";

/**
 * A batch of the move's own in a fenced database: the fence opened for its statements (made first if the
 * database has none yet) and closed again after them, all in one transaction, so no other writer ever
 * finds it open.
 */
export function fenced(d1: D1, organizationId: string, state: FenceState, statements: D1PreparedStatement[], now: string) {
  return [
    d1
      .prepare(`INSERT INTO "tenant_fences" ("organization_id", "state", "since") VALUES (?1, 'closed', ?2) ON CONFLICT DO NOTHING`)
      .bind(organizationId, now),
    d1.prepare(`UPDATE "tenant_fences" SET "state" = ?2 WHERE "organization_id" = ?1`).bind(organizationId, state),
    ...statements,
    d1.prepare(`UPDATE "tenant_fences" SET "state" = 'closed' WHERE "organization_id" = ?1`).bind(organizationId),
  ];
}

/** Lifts the fence: the organization's rows in this database are anyone's to write again. */
export function unfence(d1: D1, organizationId: string): D1PreparedStatement {
  return d1.prepare(`DELETE FROM "tenant_fences" WHERE "organization_id" = ?1`).bind(organizationId);
}

/**
 * The organization's queue work still under way in the database it leaves: events not yet processed (but
 * not those the sweep gave up on: they wait for an operator, and move as they are), and deliveries and
 * e-mails a consumer holds the lease of (its request is out; its record is still to come).
 */
const UNDER_WAY = {
  events: `FROM "events", "p" WHERE "organization_id" = "p"."org" AND "processed_at" IS NULL AND "send_count" < "p"."sends"`,
  deliveries: `FROM "webhook_deliveries", "p" WHERE "organization_id" = "p"."org" AND "status" = 'pending' AND "lease_until" > "p"."now"`,
  notifications: `FROM "notifications", "p" WHERE "organization_id" = "p"."org" AND "status" IN ('pending', 'delayed') AND "lease_until" > "p"."now"`,
};
export type UnderWay = Record<keyof typeof UNDER_WAY, number>;
const PARAMETERS = `WITH "p" AS (SELECT ?1 AS "org", ?2 AS "now", ?3 AS "sends")`;

/**
 * Fences the organization in the database it leaves once its queue work has settled: one conditional
 * write, so no consumer can take a lease or leave an event unprocessed between the look and the fence.
 * Then says what is still under way, and whether the fence stands.
 */
export async function fenceWhenSettled(d1: D1, organizationId: string, { now, maxSends }: { now: string; maxSends: number }) {
  const none = Object.values(UNDER_WAY)
    .map((from) => `NOT EXISTS (SELECT 1 ${from})`)
    .join(" AND ");
  const statements = [
    d1
      .prepare(
        `${PARAMETERS} INSERT INTO "tenant_fences" ("organization_id", "state", "since") SELECT "org", 'closed', "now" FROM "p" WHERE ${none} ` +
          "ON CONFLICT DO NOTHING",
      )
      .bind(organizationId, now, maxSends),
    ...Object.values(UNDER_WAY).map((from) => d1.prepare(`${PARAMETERS} SELECT count(*) AS n ${from}`).bind(organizationId, now, maxSends)),
    d1.prepare(`SELECT count(*) AS n FROM "tenant_fences" WHERE "organization_id" = ?1`).bind(organizationId),
  ];
  const results = await d1.batch(statements);
  const n = (i: number) => (results[i]!.results[0] as { n: number }).n;
  const underWay = Object.fromEntries(Object.keys(UNDER_WAY).map((k, i) => [k, n(i + 1)])) as UnderWay;
  return { fenced: n(statements.length - 1) > 0, underWay };
}

/** The organization's deliveries and e-mails still to send, for the queue of the database they are in. */
export function pendingWork(d1: D1, organizationId: string) {
  return [
    d1
      .prepare(`SELECT "id", "next_attempt_at" FROM "webhook_deliveries" WHERE "organization_id" = ?1 AND "status" = 'pending'`)
      .bind(organizationId),
    d1
      .prepare(`SELECT "id", "next_attempt_at" FROM "notifications" WHERE "organization_id" = ?1 AND "status" IN ('pending', 'delayed')`)
      .bind(organizationId),
  ];
}
