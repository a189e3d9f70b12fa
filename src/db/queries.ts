import { and, Column, getTableName, is, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "./index";

// D1 helpers every layer above the database uses: conditions, run-time batches, what a refused
// write looks like, and D1's limit on bound parameters.

export function where(...conditions: (SQL | undefined)[]): SQL | undefined {
  return and(...conditions.filter((c): c is SQL => c !== undefined));
}

/** A batch of statements built at run time (Drizzle types a batch as a tuple known in advance). */
export async function batchOf(db: Db, statements: BatchItem<"sqlite">[]): Promise<unknown[]> {
  return (await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
}

/** How many rows a write statement of a batch changed. */
export function changedRows(result: unknown): number {
  return (result as D1Result | undefined)?.meta?.changes ?? 0;
}

/** D1 reports constraint failures as text; this tells a unique violation on one of the given columns. */
export function isUniqueViolation(err: unknown, column?: string): boolean {
  const text = `${(err as Error)?.message ?? ""} ${String((err as { cause?: unknown })?.cause ?? "")}`;
  return /UNIQUE constraint failed/i.test(text) && (column === undefined || text.includes(column));
}

export function isForeignKeyViolation(err: unknown): boolean {
  const text = `${(err as Error)?.message ?? ""} ${String((err as { cause?: unknown })?.cause ?? "")}`;
  return /FOREIGN KEY constraint failed/i.test(text);
}

export function isNotNullViolation(err: unknown): boolean {
  const text = `${(err as Error)?.message ?? ""} ${String((err as { cause?: unknown })?.cause ?? "")}`;
  return /NOT NULL constraint failed/i.test(text);
}

/**
 * Which constraint refused a write, as SQLite names it ("NOT NULL" or "UNIQUE", then `table.column`),
 * so a write with several guards can answer for the one that failed. Null: no constraint did.
 */
export function refusedConstraint(err: unknown): { kind: "not_null" | "unique" | "foreign_key"; column: string | null } | null {
  const text = `${(err as Error)?.message ?? ""} ${String((err as { cause?: unknown })?.cause ?? "")}`;
  const named = /(NOT NULL|UNIQUE) constraint failed: ([\w.]+)/i.exec(text);
  if (named) return { kind: named[1]!.toUpperCase() === "UNIQUE" ? "unique" : "not_null", column: named[2]! };
  return /FOREIGN KEY constraint failed/i.test(text) ? { kind: "foreign_key", column: null } : null;
}

/**
 * The one place where a write that lost a race becomes an answer. A write reads what it depends on,
 * then commits in a later batch; a delete can land in between. Its statements are built so that the
 * database refuses them then: a foreign key to the deleted row, or a guarded value (the owner, the
 * listable) that comes out NULL when what it depends on no longer holds. D1 runs a batch as one
 * transaction, so a refusal writes nothing of it: not the change, not its events, not the stored
 * response of its Idempotency-Key. (A guard that merely changed no rows would let the rest of the
 * batch commit, the 201 sealed for the key included.) `answer` says what the client gets, reading
 * again where it must name the member; every other error passes through.
 */
export async function whenRefused<T>(write: () => Promise<T>, answer: () => Promise<T> | T): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isForeignKeyViolation(err) || isNotNullViolation(err)) return answer();
    throw err;
  }
}

/**
 * SQL text holding a subquery, `(SELECT ...)`, with every column it names written with its table's name.
 * Drizzle writes a column bare ("policy_id") when it stands directly in a select field of a one-table
 * query, and a bare name inside `(SELECT ... FROM policy_versions WHERE policy_versions.policy_id = "policy_id")`
 * binds to the subquery's own table: the condition is always true. That bound reports to another
 * organization's policy version, and twice before bit other reads the same way. So every subquery written
 * as SQL text goes through this tag (the architecture test refuses `sql` text holding one), and names the
 * outer column as a column (`${briefs.policyId}`), never as text. A table aliased in the text (`FROM x a`)
 * has its own columns written as text (`a.vuln_id`).
 */
export function subquery<T = unknown>(strings: TemplateStringsArray, ...values: unknown[]): SQL<T> {
  return sql<T>(strings, ...values.map((value) => (is(value, Column) ? qualified(value) : value)));
}

function qualified(column: Column): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}

// D1 binds at most 100 parameters per statement. Lists of ids or values therefore travel as one JSON
// parameter, and multi-row inserts are split so no statement binds more than that.
export const D1_MAX_BOUND_PARAMETERS = 100;

/** `column IN (values)` with the whole list bound as one JSON parameter. */
export function inList(column: SQLiteColumn, values: readonly string[]): SQL {
  return subquery`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** Splits rows so that an insert of each chunk binds at most 100 parameters. */
export function insertChunks<T extends Record<string, unknown>>(rows: readonly T[]): T[][] {
  if (rows.length === 0) return [];
  const perRow = Object.keys(rows[0]!).length;
  const size = Math.max(1, Math.floor(D1_MAX_BOUND_PARAMETERS / perRow));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
