import { env } from "cloudflare:workers";
import { type UnionOrder, unionOrder } from "./union-order";

// The databases of a test world: one (DB), or a catalog and two tenant databases (the workers-sharded project).

/** Whether this test file runs against the sharded layout. */
export const sharded = (): boolean => Boolean((env as unknown as Record<string, unknown>).TENANT_1);

/** The tenant databases' bindings by name. */
export function tenantBindings(): Record<string, D1Database> {
  const all = env as unknown as Record<string, D1Database>;
  return sharded() ? { TENANT_1: all.TENANT_1!, TENANT_2: all.TENANT_2! } : { DB: env.DB };
}

/** The shard the catalog places an organization in (DB in a one-database world). */
export async function shardOf(organizationId: string): Promise<string> {
  if (!sharded()) return "DB";
  const row = await env.CATALOG.prepare("SELECT shard FROM tenants WHERE organization_id = ?")
    .bind(organizationId)
    .first<{ shard: string }>();
  if (!row) throw new Error(`the catalog places no organization ${organizationId}`);
  return row.shard;
}

/** The database holding an organization's rows. */
export async function databaseOf(organizationId: string): Promise<D1Database> {
  return tenantBindings()[await shardOf(organizationId)]!;
}

/**
 * Wrappers of a D1 binding made for the one database of a test (counting, faults) carry how to wrap another
 * binding alike, sharing their state: a sharded world wraps its catalog and every shard with them.
 */
export const REWRAP = Symbol("rewrap");
export type Rewrappable = D1Database & { [REWRAP]?: (other: D1Database) => D1Database };

/**
 * The env a request of the tests sees: `db` as DB, and in a sharded world its wrapping (and that of
 * `inner`, a test's own wrapper of DB: a fault, a counter) applied to the catalog and every shard too.
 */
export function withDatabases(base: Record<string, unknown>, db: D1Database, inner?: D1Database): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base, DB: db };
  if (!sharded()) return out;
  const outer = (db as Rewrappable)[REWRAP];
  const own = inner ? (inner as Rewrappable)[REWRAP] : undefined;
  for (const name of ["CATALOG", "TENANT_1", "TENANT_2"]) {
    let binding = base[name] as D1Database;
    if (own) binding = own(binding);
    if (outer) binding = outer(binding);
    out[name] = binding;
  }
  return out;
}

type Row = Record<string, unknown>;
const AGGREGATE = /\b(count|sum|total|max|min)\s*\(/i;
const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP)\b/i;

/** One row of each database's answer to an aggregate, made one: counts and sums added, max and min kept. */
function mergedAggregate(sql: string, rows: Row[]): Row {
  const merged: Row = {};
  for (const key of Object.keys(rows[0] ?? {})) {
    const values = rows.map((r) => r[key]);
    const numbers = values.filter((v): v is number => typeof v === "number");
    if (numbers.length !== values.filter((v) => v !== null).length || numbers.length === 0)
      merged[key] = values.find((v) => v !== null) ?? null;
    else if (/\bmax\s*\(/i.test(sql) && !/\b(count|sum|total)\s*\(/i.test(sql)) merged[key] = Math.max(...numbers);
    else if (/\bmin\s*\(/i.test(sql) && !/\b(count|sum|total)\s*\(/i.test(sql)) merged[key] = Math.min(...numbers);
    else merged[key] = numbers.reduce((a, b) => a + b, 0);
  }
  return merged;
}

/** Whether a read is an aggregate of one row per database (added up, never ordered). */
const oneRowAggregate = (sql: string) => !WRITE.test(sql) && AGGREGATE.test(sql) && !/GROUP BY/i.test(sql);

/**
 * Each database's result of one statement, as one: rows joined (in the statement's ORDER BY, cut to its
 * LIMIT), an aggregate's added up, changes summed.
 */
function mergedResults(statement: { sql: string; order: UnionOrder | null; values: unknown[] }, results: D1Result<Row>[]): D1Result<Row> {
  const { sql, order } = statement;
  const lists = results.map((r) => r.results ?? []);
  const aggregate = oneRowAggregate(sql) && lists.every((l) => l.length === 1);
  const rows = aggregate
    ? [
        mergedAggregate(
          sql,
          lists.map((l) => l[0]!),
        ),
      ]
    : order
      ? order.join(lists, statement.values)
      : lists.flat();
  const meta = { ...results[0]!.meta };
  meta.changes = results.reduce((n, r) => n + (r.meta?.changes ?? 0), 0);
  meta.rows_read = results.reduce((n, r) => n + (r.meta?.rows_read ?? 0), 0);
  return { ...results[0]!, results: rows, meta };
}

const FOREIGN_KEY = /FOREIGN KEY constraint failed/i;

/**
 * A write another database refuses for want of its parent row (the organization lives elsewhere) is no
 * error; any other refusal (a trigger's, a constraint's) is the write's answer, as with one database.
 */
async function settled<T>(sql: string, runs: Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(runs);
  const done = outcomes.filter((o): o is PromiseFulfilledResult<Awaited<T>> => o.status === "fulfilled").map((o) => o.value);
  const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
  const real = failed.find((f) => !WRITE.test(sql) || !FOREIGN_KEY.test(String((f.reason as Error)?.message ?? f.reason)));
  if (real) throw real.reason;
  if (failed.length && done.length === 0) throw failed[0]!.reason;
  return done;
}

const INSERT = /^\s*(INSERT|REPLACE)\b/i;

/** The databases an insert goes to: its organization's shard when a value it binds is an organization the catalog places. */
async function insertTargets(values: unknown[]): Promise<number[] | null> {
  const ids = values.filter((v): v is string => typeof v === "string" && /^[0-9a-f-]{36}$/.test(v));
  for (const id of ids) {
    const row = await env.CATALOG.prepare("SELECT shard FROM tenants WHERE organization_id = ?").bind(id).first<{ shard: string }>();
    if (row) return [Number(row.shard.slice("TENANT_".length))];
  }
  return null;
}

class UnionStatement {
  constructor(
    readonly sql: string,
    readonly parts: D1PreparedStatement[],
    readonly order: UnionOrder | null,
    readonly values: unknown[] = [],
  ) {}
  /** A statement of every database; an ordered read selects what it sorts by (see union-order.ts). */
  static of(dbs: D1Database[], sql: string): UnionStatement {
    const order = oneRowAggregate(sql) ? null : unionOrder(sql);
    return new UnionStatement(
      sql,
      dbs.map((d) => d.prepare(order?.sql ?? sql)),
      order,
    );
  }
  bind(...values: unknown[]) {
    return new UnionStatement(
      this.sql,
      this.parts.map((p) => p.bind(...values)),
      this.order,
      values,
    );
  }
  /** The parts an execution runs: every database's, or for an insert naming a placed organization, its shard's. */
  async targets(): Promise<D1PreparedStatement[]> {
    if (!INSERT.test(this.sql)) return this.parts;
    const only = await insertTargets(this.values);
    return only ? only.map((i) => this.parts[i]!) : this.parts;
  }
  async all<T = Row>() {
    return mergedResults(
      this,
      await settled(
        this.sql,
        (await this.targets()).map((p) => p.all<Row>()),
      ),
    ) as unknown as D1Result<T>;
  }
  run<T = Row>() {
    return this.all<T>();
  }
  async first<T = Row>(column?: string): Promise<T | null> {
    const row = (await this.all<Row>()).results[0];
    if (!row) return null;
    return (column === undefined ? row : row[column]) as T;
  }
  async raw<T = unknown[]>(): Promise<T[]> {
    return (await this.all<Row>()).results.map((r) => Object.values(r)) as T[];
  }
}

/**
 * The sharded world's databases seen as one, for the tests that look inside (as `env.DB`): a read runs in
 * the catalog and every shard, its rows joined (in its ORDER BY) and an aggregate's one row added up; an insert that binds an
 * organization the catalog places goes to that organization's shard; any other write runs in each, and one
 * refused where its parent row is not (its organization lives in another shard) is no error.
 */
export function platformDatabase(dbs: D1Database[]): D1Database {
  const union = {
    prepare: (sql: string) => UnionStatement.of(dbs, sql),
    async batch(statements: UnionStatement[]) {
      const sql = statements.map((s) => s.sql).join(";");
      // Inserts that all name one placed organization go to its shard alone; anything else runs in each.
      const inserts = statements.every((s) => INSERT.test(s.sql));
      const targets = inserts ? await Promise.all(statements.map((s) => insertTargets(s.values))) : [];
      const one = inserts && targets.every((t) => t && t.length === 1 && t[0] === targets[0]![0]) ? targets[0]![0]! : null;
      const indexes = one === null ? dbs.map((_, i) => i) : [one];
      const perDb = await settled(
        WRITE.test(statements.find((s) => WRITE.test(s.sql))?.sql ?? "") ? "INSERT" : sql,
        indexes.map((i) => dbs[i]!.batch(statements.map((s) => s.parts[i]!))),
      );
      return statements.map((s, k) =>
        mergedResults(
          s,
          perDb.map((results) => results[k] as D1Result<Row>),
        ),
      );
    },
    async exec(sql: string) {
      const results = await Promise.all(dbs.map((d) => d.exec(sql)));
      return results[0];
    },
    withSession: () => union,
    dump: () => Promise.reject(new Error("no dump of several databases")),
  };
  return union as unknown as D1Database;
}

const MESSAGE_TABLES = { event_id: "events", delivery_id: "webhook_deliveries", notification_id: "notifications" } as const;

/**
 * A queue message as the Worker sends it: in a sharded world it names the shard its row is in (found by
 * looking in each). A message that already names one, or whose row is nowhere, is left as it is.
 */
export async function withShard<T extends object>(body: T): Promise<T> {
  if (!sharded() || "shard" in body) return body;
  for (const [field, table] of Object.entries(MESSAGE_TABLES)) {
    const id = (body as Record<string, unknown>)[field];
    if (typeof id !== "string") continue;
    for (const [shard, d1] of Object.entries(tenantBindings()))
      if (await d1.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).bind(id).first()) return { ...body, shard };
  }
  return body;
}
