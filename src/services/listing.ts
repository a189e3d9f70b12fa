import { and, asc, count, desc, getTableColumns, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import { offsetOf, type Page } from "../http/jsonapi";

export type Sort = "created_at" | "-created_at" | "updated_at" | "-updated_at";

interface Sortable {
  id: SQLiteColumn;
  createdAt: SQLiteColumn;
  updatedAt: SQLiteColumn;
}

/** The ORDER BY of a `sort` parameter; the time-ordered id breaks ties so pages never overlap. */
export function orderBy(table: Sortable, sort: Sort = "-created_at"): SQL[] {
  const column = sort.endsWith("created_at") ? table.createdAt : table.updatedAt;
  const dir = sort.startsWith("-") ? desc : asc;
  return [dir(column), dir(table.id)];
}

export function where(...conditions: (SQL | undefined)[]): SQL | undefined {
  return and(...conditions.filter((c): c is SQL => c !== undefined));
}

/**
 * One page and the total count in one D1 round trip (a batch).
 */
export async function listPage<T extends SQLiteTable & Sortable, X extends Record<string, SQL.Aliased | SQL> = {}>(
  db: Db,
  table: T,
  filter: SQL | undefined,
  sort: Sort | undefined,
  page: Page,
  extraColumns?: X,
): Promise<{ rows: (T["$inferSelect"] & { [K in keyof X]: X[K] extends SQL<infer V> ? V : unknown })[]; total: number }> {
  const columns = { ...getTableColumns(table), ...extraColumns };
  const [rows, totals] = await db.batch([
    db.select(columns).from(table as SQLiteTable).where(filter).orderBy(...orderBy(table, sort)).limit(page.size).offset(offsetOf(page)),
    db.select({ total: count() }).from(table as SQLiteTable).where(filter),
  ]);
  return { rows: rows as never, total: totals[0]?.total ?? 0 };
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
