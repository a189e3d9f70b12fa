// The order of a read asked of several databases at once (platformDatabase, test/helpers/shards.ts): each
// database sorts its own rows, so the rows joined are in order per database, not as one database holding them
// all would answer. A read that says ORDER BY is made to select what it sorts by (a column it does not show is
// added to its result, and taken off again), and the rows of every database are sorted as SQLite would sort
// them, then cut to its LIMIT.

type Row = Record<string, unknown>;

interface Token {
  /** A word in upper case, "," or "?" (a placeholder; "?N" is a word-less numbered one, kept as "?N"). */
  text: string;
  start: number;
  end: number;
  /** Inside how many parentheses. */
  depth: number;
}

/** The statement's words, commas and placeholders, skipping quoted text and comments, each with its depth. */
function tokens(sql: string): Token[] {
  const out: Token[] = [];
  let depth = 0;
  for (let i = 0; i < sql.length; ) {
    const c = sql[i]!;
    const closing = c === "'" || c === '"' || c === "`" ? c : c === "[" ? "]" : null;
    if (closing) {
      const end = sql.indexOf(closing, i + 1);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "(" || c === ")") {
      depth += c === "(" ? 1 : -1;
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j]!)) j++;
      out.push({ text: sql.slice(i, j).toUpperCase(), start: i, end: j, depth });
      i = j;
    } else if (c === "?") {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j]!)) j++;
      out.push({ text: sql.slice(i, j), start: i, end: j, depth });
      i = j;
    } else {
      if (c === ",") out.push({ text: ",", start: i, end: i + 1, depth });
      i++;
    }
  }
  return out;
}

interface Term {
  /** The result column it sorts by, once known; `position` for ORDER BY 1. */
  key?: string;
  position?: number;
  /** The expression as written, for a column the read does not show. */
  expression: string;
  descending: boolean;
  nocase: boolean;
}

const unquoted = (name: string) => name.replace(/^["`[]|["`\]]$/g, "");
const IDENTIFIER = /^(?:(?:"[^"]+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][A-Za-z0-9_$]*)\.)?("[^"]+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][A-Za-z0-9_$]*)$/;

/** The value a placeholder binds (`?` counted from the statement's start, `?N` by its number). */
function bound(sql: string, token: Token, values: unknown[]): number {
  const index =
    token.text.length > 1 ? Number(token.text.slice(1)) - 1 : tokens(sql).filter((t) => t.text === "?" && t.start < token.start).length;
  return Number(values[index]);
}

/** How to read an ordered SELECT of several databases as one: the statement each runs, and how their rows join. */
export interface UnionOrder {
  sql: string;
  join(lists: Row[][], values: unknown[]): Row[];
}

const ADDED = "__union_order_";

/** An ordered read's plan, or null for a statement whose rows need no ordering across databases. */
export function unionOrder(sql: string): UnionOrder | null {
  const top = tokens(sql).filter((t) => t.depth === 0);
  if (top[0]?.text !== "SELECT" && top[0]?.text !== "WITH") return null;
  if (top.some((t) => ["INSERT", "UPDATE", "DELETE", "REPLACE"].includes(t.text))) return null;
  const order = top.findLastIndex((t, i) => t.text === "ORDER" && top[i + 1]?.text === "BY");
  if (order < 0) return null;
  const select = top.findIndex((t) => t.text === "SELECT");
  const limit = top.findIndex((t, i) => i > order && t.text === "LIMIT");
  const clauseEnd = limit >= 0 ? top[limit]!.start : sql.replace(/[\s;]*$/, "").length;
  const clauseStart = top[order + 1]!.end;
  const commas = top.filter((t) => t.text === "," && t.start > clauseStart && t.start < clauseEnd).map((t) => t.start);
  const bounds = [clauseStart, ...commas.map((c) => c + 1)];
  const texts = bounds.map((from, k) => sql.slice(from, commas[k] ?? clauseEnd).trim());

  // Columns can be added to one plain SELECT's result only (not a compound's, nor a DISTINCT one's).
  const from = top.findIndex((t, i) => i > select && ["FROM", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER"].includes(t.text));
  const listEnd = top[from]!.start;
  const selectList = sql.slice(top[select]!.end, listEnd);
  const canAdd = !top.some((t) => ["UNION", "INTERSECT", "EXCEPT"].includes(t.text)) && top[select + 1]?.text !== "DISTINCT";
  const added: string[] = [];
  const terms: Term[] = texts.map((text) => {
    let expression = text;
    const descending = /\s+DESC(\s+NULLS\s+(FIRST|LAST))?$/i.test(expression);
    expression = expression.replace(/\s+NULLS\s+(FIRST|LAST)$/i, "").replace(/\s+(ASC|DESC)$/i, "");
    const nocase = /\s+COLLATE\s+NOCASE$/i.test(expression);
    expression = expression.replace(/\s+COLLATE\s+\w+$/i, "");
    if (/^[0-9]+$/.test(expression)) return { position: Number(expression), expression, descending, nocase };
    const name = IDENTIFIER.exec(expression)?.[1];
    // A column the select list names (or an alias it gives, or any column of its `*`) is in the result already.
    const shown = name && (/(^|[\s,.])\*/.test(selectList) || tokens(selectList).some((t) => t.text === unquoted(name).toUpperCase()));
    if (shown || !canAdd || expression.includes("?")) return { key: name ? unquoted(name) : expression, expression, descending, nocase };
    added.push(`${expression} AS "${ADDED}${added.length}"`);
    return { key: `${ADDED}${added.length - 1}`, expression, descending, nocase };
  });
  const ordered = added.length ? `${sql.slice(0, listEnd).trimEnd()}, ${added.join(", ")} ${sql.slice(listEnd)}` : sql;
  const limitAt = limit >= 0 ? top[limit]!.start + (ordered.length - sql.length) : -1;

  return {
    sql: ordered,
    join(lists, values) {
      const strip = (row: Row) => Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith(ADDED)));
      const filled = lists.filter((l) => l.length > 0);
      // One database's rows are in its own order already.
      if (filled.length <= 1) return (filled[0] ?? []).map(strip);
      const rows = filled.flat();
      const keys = Object.keys(rows[0]!);
      const sortKeys = terms.map((term) => {
        const key = term.key ?? keys[term.position! - 1];
        if (!key || !(key in rows[0]!))
          throw new Error(`platformDatabase: cannot order the rows of several databases by ${term.expression}: ${sql}`);
        return key;
      });
      rows.sort((a, b) => {
        for (const [i, term] of terms.entries()) {
          const c = compare(a[sortKeys[i]!], b[sortKeys[i]!], term.nocase);
          if (c !== 0) return term.descending ? -c : c;
        }
        return 0;
      });
      if (limitAt < 0) return rows.map(strip);
      const { limit, offset } = limitOf(ordered, limitAt, values);
      if (offset > 0) throw new Error(`platformDatabase: an OFFSET over several databases has no one answer: ${sql}`);
      return rows.slice(0, limit < 0 ? undefined : limit).map(strip);
    },
  };
}

/** A LIMIT clause's count and offset, read from the text or the values bound. */
function limitOf(sql: string, at: number, values: unknown[]): { limit: number; offset: number } {
  const m = /^LIMIT\s+(\?\d*|-?\d+)\s*(?:(OFFSET|,)\s*(\?\d*|\d+))?\s*;?\s*$/i.exec(sql.slice(at));
  if (!m) throw new Error(`platformDatabase: cannot read the LIMIT of: ${sql}`);
  const placeholders = tokens(sql).filter((t) => t.text.startsWith("?") && t.start >= at);
  let next = 0;
  const read = (text: string) => (text.startsWith("?") ? bound(sql, placeholders[next++]!, values) : Number(text));
  const first = read(m[1]!);
  const second = m[3] === undefined ? undefined : read(m[3]);
  return m[2] === "," ? { limit: second!, offset: first } : { limit: first, offset: second ?? 0 };
}

/** SQLite's order of values: NULL, then numbers, then text (binary, or NOCASE), then blobs. */
function compare(a: unknown, b: unknown, nocase: boolean): number {
  const rank = (v: unknown) =>
    v === null || v === undefined ? 0 : typeof v === "number" || typeof v === "bigint" ? 1 : typeof v === "string" ? 2 : 3;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (rank(a) === 1) return Number(a) - Number(b);
  if (rank(a) === 2) {
    const [x, y] = nocase ? [(a as string).toLowerCase(), (b as string).toLowerCase()] : [a as string, b as string];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return 0;
}
