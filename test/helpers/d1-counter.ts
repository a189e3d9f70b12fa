import { REWRAP } from "./shards";

/**
 * Wraps a D1 binding so a test can count round trips: every statement execution (all, run, first,
 * raw) and every batch or exec is one trip to the database, which at the edge is one network hop.
 * It also adds up the rows D1 reports read (`meta.rows_read`, what D1 bills) of batches and of
 * statements run with all or run.
 */
export function countingD1(inner: D1Database): {
  db: D1Database;
  /** Another binding counted with this one (the shards of a sharded world). */
  wrap: (other: D1Database) => D1Database;
  count: () => number;
  rowsRead: () => number;
} {
  let trips = 0;
  let rows = 0;
  const tally = (result: unknown) => {
    for (const r of Array.isArray(result) ? result : [result]) rows += (r as D1Result | undefined)?.meta?.rows_read ?? 0;
    return result;
  };
  const originals = new WeakMap<object, D1PreparedStatement>();

  const wrapStatement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...args: unknown[]) => wrapStatement(target.bind(...args));
        if (prop === "all" || prop === "run" || prop === "first" || prop === "raw") {
          return async (...args: unknown[]) => {
            trips++;
            const result = await (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            return prop === "all" || prop === "run" ? tally(result) : result;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    originals.set(proxy, stmt);
    return proxy;
  };

  // The binding and its sessions (every request runs in one) count alike.
  const wrapDb = <T extends D1Database | D1DatabaseSession>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === "prepare") return (query: string) => wrapStatement(t.prepare(query));
        if (prop === "batch") {
          return (statements: D1PreparedStatement[]) => {
            trips++;
            return t.batch(statements.map((s) => originals.get(s) ?? s)).then(tally);
          };
        }
        if (prop === "exec" && "exec" in t) {
          return (query: string) => {
            trips++;
            return t.exec(query);
          };
        }
        if (prop === "withSession" && "withSession" in t) return (start?: string) => wrapDb(t.withSession(start));
        if (prop === REWRAP) return wrapDb;
        const value = Reflect.get(t, prop, t);
        return typeof value === "function" ? value.bind(t) : value;
      },
    });
  const db = wrapDb(inner);
  return { db, wrap: wrapDb, count: () => trips, rowsRead: () => rows };
}
