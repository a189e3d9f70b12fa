import { env } from "cloudflare:workers";

/**
 * D1 bindings that misbehave on purpose, for the fault tests: every other call goes to the real
 * binding. Faults are injected by position (the n-th batch) or by SQL text, as a real outage would
 * strike whatever statement happens to be running.
 */
function wrap(override: Partial<Record<"batch" | "prepare", unknown>>): D1Database {
  return new Proxy(env.DB, {
    get(target, prop) {
      if (prop in override) return override[prop as "batch" | "prepare"];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The n-th batch fails with `message`: before running (nothing written) or after (written, answer lost). */
export function failingBatch(n: number, message: string, when: "before" | "after"): D1Database {
  let batches = 0;
  return wrap({
    batch: async (statements: D1PreparedStatement[]) => {
      const mine = ++batches === n;
      if (mine && when === "before") throw new Error(message);
      const result = await env.DB.batch(statements);
      if (mine) throw new Error(message);
      return result;
    },
  });
}

/** Runs `before` just before the n-th batch, as if another request or the consumer wrote in between. */
export function interleaved(n: number, before: () => Promise<unknown>): D1Database {
  let batches = 0;
  return wrap({
    batch: async (statements: D1PreparedStatement[]) => {
      if (++batches === n) await before();
      return env.DB.batch(statements);
    },
  });
}

/** Rewrites the SQL of every statement, e.g. to make one INSERT of a batch fail inside D1. */
export function rewritingSql(rewrite: (sql: string) => string): D1Database {
  return wrap({ prepare: (sql: string) => env.DB.prepare(rewrite(sql)) });
}

/** Every statement and batch fails with `message`; the key lookup (api_keys) can be spared. */
export function unavailable(message: string, opts: { spareKeyLookup?: boolean } = {}): D1Database {
  return wrap({
    prepare: (sql: string) => {
      if (opts.spareKeyLookup && sql.includes("api_keys")) return env.DB.prepare(sql);
      throw new Error(message);
    },
    batch: () => Promise.reject(new Error(message)),
  });
}
