import { env } from "cloudflare:workers";
import { REWRAP } from "./shards";

type Inner = D1Database | D1DatabaseSession;
type Override = Partial<Record<"batch" | "prepare", (inner: Inner) => unknown>>;

/**
 * D1 bindings that misbehave on purpose, for the fault tests: every other call goes to the real
 * binding. Faults are injected by position (the n-th batch) or by SQL text, as a real outage would
 * strike whatever statement happens to be running. Requests run their queries in a D1 session
 * (withSession), so the session is wrapped too, sharing the binding's fault.
 */
function wrap<T extends Inner>(inner: T, override: Override): T {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === REWRAP) return (other: D1Database) => wrap(other, override);
      if (prop in override) return override[prop as "batch" | "prepare"]!(target);
      if (prop === "withSession") return (...args: unknown[]) => wrap((target as D1Database).withSession(...(args as [string])), override);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The n-th batch fails with `message`: before running (nothing written) or after (written, answer lost). */
export function failingBatch(n: number, message: string, when: "before" | "after"): D1Database {
  let batches = 0;
  return wrap(env.DB, {
    batch: (inner) => async (statements: D1PreparedStatement[]) => {
      const mine = ++batches === n;
      if (mine && when === "before") throw new Error(message);
      const result = await inner.batch(statements);
      if (mine) throw new Error(message);
      return result;
    },
  });
}

/** Runs `before` just before the n-th batch, as if another request or the consumer wrote in between. */
export function interleaved(n: number, before: () => Promise<unknown>): D1Database {
  let batches = 0;
  return wrap(env.DB, {
    batch: (inner) => async (statements: D1PreparedStatement[]) => {
      if (++batches === n) await before();
      return inner.batch(statements);
    },
  });
}

/** Rewrites the SQL of every statement, e.g. to make one INSERT of a batch fail inside D1. */
export function rewritingSql(rewrite: (sql: string) => string): D1Database {
  return wrap(env.DB, { prepare: (inner) => (sql: string) => inner.prepare(rewrite(sql)) });
}

/** Every statement and batch fails with `message` (or the error it makes); the key lookup (api_keys) can be spared. */
export function unavailable(message: string | (() => Error), opts: { spareKeyLookup?: boolean } = {}): D1Database {
  const error = typeof message === "string" ? () => new Error(message) : message;
  return wrap(env.DB, {
    prepare: (inner) => (sql: string) => {
      if (opts.spareKeyLookup && sql.includes("api_keys")) return inner.prepare(sql);
      throw error();
    },
    batch: () => () => Promise.reject(error()),
  });
}

/** What the local runtime says when another process wrote its database file: the statement rolled back. */
export const ROLLED_BACK = "D1_ERROR: Failed to get session commit token: internal error; reference = test";
/** What it says when another process holds the file's lock (seen beside operator-key --local): rolled back too. */
export const LOCKED = "D1_ERROR: database is locked: SQLITE_BUSY";

/**
 * The first `times` runs (a statement's first, all, raw or run, or a batch) fail with `ROLLED_BACK`
 * before reaching D1, as the local runtime does while another process writes its file; `runs` counts
 * every attempt, failed ones included.
 */
export function rollingBack(times: number): { db: D1Database; runs: () => number } {
  let runs = 0;
  const fails = () => ++runs <= times;
  const statement = (inner: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(inner, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => statement(target.bind(...args));
        if (["first", "all", "raw", "run"].includes(String(prop)))
          return (...args: unknown[]) => (fails() ? Promise.reject(new Error(ROLLED_BACK)) : value.apply(target, args));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const db = wrap(env.DB, {
    prepare: (inner) => (sql: string) => statement(inner.prepare(sql)),
    batch: (inner) => (statements: D1PreparedStatement[]) => (fails() ? Promise.reject(new Error(ROLLED_BACK)) : inner.batch(statements)),
  });
  return { db, runs: () => runs };
}
