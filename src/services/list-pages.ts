import { and, asc, count, desc, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import { encodeCursor, offsetOf, type Cursor, type Page } from "../db/pagination";
import { batchOf } from "../db/queries";
import { BadInput } from "../lib/domain-errors";

export type Sort = "created_at" | "-created_at" | "updated_at" | "-updated_at";

interface Sortable {
  id: SQLiteColumn;
  createdAt: SQLiteColumn;
  updatedAt: SQLiteColumn;
}

export interface Ordering {
  name: string;
  /** A table's column, or a computed value (a search's rank, always a number). */
  column: SQLiteColumn | SQL.Aliased<number>;
  /** The row field holding the column's value, for cursors. */
  field: string;
  id: SQLiteColumn;
  descending: boolean;
}

export function ordering(table: Sortable, sort: Sort = "-created_at"): Ordering {
  const created = sort.endsWith("created_at");
  return {
    name: sort,
    column: created ? table.createdAt : table.updatedAt,
    field: created ? "createdAt" : "updatedAt",
    id: table.id,
    descending: sort.startsWith("-"),
  };
}

type Comparison = "<" | ">" | "<=" | ">=";
const rowValue = (o: Ordering, op: Comparison, c: Cursor) => sql`(${o.column}, ${o.id}) ${sql.raw(op)} (${c.value}, ${c.id})`;

/** The ORDER BY of an ordering, or its reverse (to read the page before a cursor). */
function orderOf(o: Ordering, reverse = false): SQL[] {
  const dir = o.descending !== reverse ? desc : asc;
  return [dir(o.column), dir(o.id)];
}

/** Which rows of a list a page reads: past the cursor (`seek`), in `order`, `limit` of them from `offset`. */
export interface PageWindow {
  seek: SQL | undefined;
  order: SQL[];
  limit: number;
  offset: number;
}

export interface PageSpec {
  ordering: Ordering;
  page: Page;
  /** The page's rows: the list's own query with `seek` added to its filter, in `order`, limited and offset. */
  rows: (window: PageWindow) => BatchItem<"sqlite">;
  /** Whether any row of the list matches `where` (reads at most one row). */
  probe: (where: SQL) => BatchItem<"sqlite">;
  /** The list's total: a count, or a counter kept by the writes. */
  total: BatchItem<"sqlite">;
}

/**
 * One page of a list as statements for the caller's batch, by number (LIMIT/OFFSET) or by cursor (a
 * keyset seek on the ordering's index, so the last page costs what the first does). By cursor, one
 * row more than the page tells whether more follow, and a one-row probe whether any lie on the other
 * side of the cursor, so links are exact.
 */
export function pageStatements<Row>(spec: PageSpec): {
  statements: BatchItem<"sqlite">[];
  read: (results: unknown[]) => { rows: Row[]; total: number };
} {
  const { ordering: o, page } = spec;
  const totalOf = (results: unknown[]) => (results.at(-1) as { total: number }[])[0]?.total ?? 0;
  if (!page.cursor) {
    return {
      statements: [spec.rows({ seek: undefined, order: orderOf(o), limit: page.size, offset: offsetOf(page) }), spec.total],
      read: (results) => ({ rows: results[0] as Row[], total: totalOf(results) }),
    };
  }
  const { direction, at } = page.cursor;
  if (at && at.sort !== o.name) {
    throw new BadInput(`page[${direction}]: the cursor belongs to another sort or list.`, { parameter: `page[${direction}]` });
  }
  // Cursors are not signed: one made by hand may name the right sort with a value of another type,
  // which SQLite would compare anyway (every number sorts before every text) and page wrongly.
  const numeric = !("dataType" in o.column) || o.column.dataType === "number";
  if (at && typeof at.value !== (numeric ? "number" : "string")) {
    throw new BadInput(`page[${direction}]: not a cursor this API made.`, { parameter: `page[${direction}]` });
  }
  const after = direction === "after";
  // In list order: "later" rows come after the cursor, "earlier" ones before it.
  const [later, notLater, earlier, notEarlier] = (o.descending ? ["<", ">=", ">", "<="] : [">", "<=", "<", ">="]) as [
    Comparison,
    Comparison,
    Comparison,
    Comparison,
  ];
  const seek = at ? rowValue(o, after ? later : earlier, at) : undefined;
  const statements = [spec.rows({ seek, order: orderOf(o, !after), limit: page.size + 1, offset: 0 })];
  if (at) statements.push(spec.probe(rowValue(o, after ? notLater : notEarlier, at)));
  statements.push(spec.total);
  return {
    statements,
    read(results) {
      const fetched = results[0] as Record<string, unknown>[];
      const more = fetched.length > page.size;
      const rows = fetched.slice(0, page.size);
      if (!after) rows.reverse();
      const beyond = at ? (results[1] as unknown[]).length > 0 : false;
      page.window = windowOf(o, { after, more, beyond, rows });
      return { rows: rows as Row[], total: totalOf(results) };
    },
  };
}

type RowOf = Record<string, unknown>;

/** What a cursor page's links need: whether rows lie before and after it, and its first and last rows' cursors. */
function windowOf(o: Ordering, { after, more, beyond, rows }: { after: boolean; more: boolean; beyond: boolean; rows: RowOf[] }) {
  const cursor = (row: RowOf | undefined) =>
    row ? encodeCursor({ sort: o.name, value: row[o.field] as string | number, id: row.id as string }) : null;
  return { hasPrev: after ? beyond : more, hasNext: after ? more : beyond, first: cursor(rows[0]), last: cursor(rows.at(-1)) };
}

/**
 * A page of a list read from each of `readers` and merged, as one database holding all their rows would
 * answer it (see readersOf): one database is read as pageStatements says. Across several, each is asked
 * for everything up to the page's end (by number: its first offset + size rows; by cursor: the page and the
 * probe past the cursor), all at once; the rows are merged in the list's order and the totals summed.
 */
export async function readPage<Row>(readers: readonly Db[], specOf: (db: Db) => PageSpec): Promise<{ rows: Row[]; total: number }> {
  if (readers.length === 1) {
    const spec = pageStatements<Row>(specOf(readers[0]!));
    return spec.read(await batchOf(readers[0]!, spec.statements));
  }
  const { page } = specOf(readers[0]!);
  const reads = await Promise.all(
    readers.map(async (db) => {
      const { number, size, cursor } = page;
      const own: Page = cursor ? { number, size, cursor } : { number: 1, size: offsetOf(page) + size };
      const spec = specOf(db);
      const list = pageStatements<RowOf>({ ...spec, page: own });
      return { ...list.read(await batchOf(db, list.statements)), window: own.window, ordering: spec.ordering };
    }),
  );
  const o = reads[0]!.ordering;
  const total = reads.reduce((sum, r) => sum + r.total, 0);
  const merged = reads.flatMap((r) => r.rows).sort(inListOrder(o));
  if (!page.cursor) return { rows: merged.slice(offsetOf(page), offsetOf(page) + page.size) as Row[], total };
  const after = page.cursor.direction === "after";
  // Past the page's far end: more than a page merged, or a database that had more than a page itself.
  const more = merged.length > page.size || reads.some((r) => (after ? r.window!.hasNext : r.window!.hasPrev));
  const beyond = reads.some((r) => (after ? r.window!.hasPrev : r.window!.hasNext));
  const rows = after ? merged.slice(0, page.size) : merged.slice(Math.max(0, merged.length - page.size));
  page.window = windowOf(o, { after, more, beyond, rows });
  return { rows: rows as Row[], total };
}

/**
 * Two rows in a list's order, as SQLite orders them: by the ordering's value (NULL before numbers before
 * text, text by its bytes: the values compared are timestamps, ids and numbers, all ASCII), then by id.
 */
export function inListOrder(o: Ordering): (a: RowOf, b: RowOf) => number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === "number" ? 1 : 2);
  const compare = (a: unknown, b: unknown) => rank(a) - rank(b) || (a === b || rank(a) === 0 ? 0 : (a as string) < (b as string) ? -1 : 1);
  return (a, b) => (compare(a[o.field], b[o.field]) || compare(a.id, b.id)) * (o.descending ? -1 : 1);
}

/** A page of a constant list (its order is fixed: the cursor holds a row's index). */
export function pageInMemory<T extends { id: string }>(items: readonly T[], page: Page): { rows: T[]; total: number } {
  if (!page.cursor) return { rows: items.slice(offsetOf(page), offsetOf(page) + page.size), total: items.length };
  const { direction, at } = page.cursor;
  if (at && (at.sort !== "position" || typeof at.value !== "number")) {
    throw new BadInput(`page[${direction}]: the cursor belongs to another sort or list.`, { parameter: `page[${direction}]` });
  }
  const index = at ? (at.value as number) : -1;
  const from = direction === "after" ? index + 1 : Math.max(0, index - page.size);
  const to = direction === "after" ? index + 1 + page.size : Math.max(0, index);
  const rows = items.slice(from, to);
  const cursor = (i: number) => (rows.length ? encodeCursor({ sort: "position", value: i, id: items[i]!.id }) : null);
  page.window = { hasPrev: from > 0, hasNext: to < items.length, first: cursor(from), last: cursor(from + rows.length - 1) };
  return { rows, total: items.length };
}

/** What a list request asks for: a page, in a sort (the list's default when none). */
export interface ListQuery {
  page: Page;
  sort?: Sort;
}

/**
 * One page and the total in one D1 round trip (a batch) of each database read (see readPage). Extra columns (correlated subqueries such as
 * a vuln's domains) are computed for the page's rows only: the page's ids are chosen first, so rows
 * skipped by an offset never pay for them.
 */
export async function listPage<T extends SQLiteTable & Sortable, X extends Record<string, SQL.Aliased | SQL> = {}>(
  readers: readonly Db[],
  table: T,
  {
    page,
    sort,
    filter,
    extraColumns,
    total,
  }: ListQuery & { filter: SQL | undefined; extraColumns?: X; total?: (db: Db) => BatchItem<"sqlite"> },
): Promise<{ rows: (T["$inferSelect"] & { [K in keyof X]: X[K] extends SQL<infer V> ? V : unknown })[]; total: number }> {
  const from = table as SQLiteTable;
  const columns = { ...getTableColumns(table), ...extraColumns };
  return readPage(readers, (db) => ({
    ordering: ordering(table, sort),
    page,
    rows: ({ seek, order, limit, offset }) => {
      const matching = and(filter, seek);
      if (!extraColumns)
        return db
          .select(columns)
          .from(from)
          .where(matching)
          .orderBy(...order)
          .limit(limit)
          .offset(offset);
      const ids = db
        .select({ id: table.id })
        .from(from)
        .where(matching)
        .orderBy(...order)
        .limit(limit)
        .offset(offset);
      return db
        .select(columns)
        .from(from)
        .where(inArray(table.id, ids))
        .orderBy(...order);
    },
    probe: (at) => db.select({ id: table.id }).from(from).where(and(filter, at)).limit(1),
    total: total?.(db) ?? db.select({ total: count() }).from(from).where(filter),
  }));
}
