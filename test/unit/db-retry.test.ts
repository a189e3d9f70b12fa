import { describe, expect, it } from "vitest";
import { RETRY_WAITS_MS, retryingRolledBack, retryRolledBack } from "../../src/db/retry";
import { LOCKED, ROLLED_BACK as ROLLED_BACK_MESSAGE } from "../helpers/d1-faults";

// The rule behind createDb's retries, with the waits recorded instead of slept.
const ROLLED_BACK = new Error(ROLLED_BACK_MESSAGE);

function attempts(failures: Error[]) {
  let calls = 0;
  return {
    run: async () => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return "rows";
    },
    calls: () => calls,
  };
}

describe("retryRolledBack", () => {
  it("runs a rolled-back attempt again after each wait, and returns the first success", async () => {
    const waits: number[] = [];
    // The file's lock held by another process rolls back the same way.
    const a = attempts([ROLLED_BACK, new Error(LOCKED), ROLLED_BACK]);
    expect(await retryRolledBack(a.run, async (ms) => void waits.push(ms))).toBe("rows");
    expect(a.calls()).toBe(4);
    expect(waits).toEqual([25, 100, 400]);
  });

  it("gives up after the last wait with the last error", async () => {
    const waits: number[] = [];
    const a = attempts(Array.from({ length: 10 }, () => ROLLED_BACK));
    await expect(retryRolledBack(a.run, async (ms) => void waits.push(ms))).rejects.toBe(ROLLED_BACK);
    expect(a.calls()).toBe(RETRY_WAITS_MS.length + 1);
    expect(waits).toEqual([...RETRY_WAITS_MS]);
  });

  it.each([
    "D1_ERROR: UNIQUE constraint failed: policies.id: SQLITE_CONSTRAINT",
    // Deployed D1's transient errors are not proof that nothing was written: they are answered 503.
    "D1_ERROR: Network connection lost.",
    "D1_ERROR: internal error",
  ])("never runs again an attempt that failed otherwise: %s", async (message) => {
    const waits: number[] = [];
    const a = attempts([new Error(message)]);
    await expect(retryRolledBack(a.run, async (ms) => void waits.push(ms))).rejects.toThrow(message);
    expect(a.calls()).toBe(1);
    expect(waits).toEqual([]);
  });
});

describe("retryingRolledBack", () => {
  // A session whose first `fails` runs are rolled back; it records what reaches it.
  function session(fails: number) {
    const seen: { sql: string; values: unknown[]; method: string }[] = [];
    const batches: unknown[][] = [];
    let runs = 0;
    const attempt = <T>(value: T) => (++runs <= fails ? Promise.reject(ROLLED_BACK) : Promise.resolve(value));
    const running =
      <T>(sql: string, values: unknown[], method: string, value: T) =>
      (column?: string) => {
        seen.push({ sql, values, method: method === "first" ? `first:${column ?? ""}` : method });
        return attempt(value);
      };
    const statement = (sql: string, values: unknown[] = []): D1PreparedStatement =>
      ({
        sql,
        values,
        bind: (...more: unknown[]) => statement(sql, [...values, ...more]),
        first: running(sql, values, "first", { n: 1 }),
        all: running(sql, values, "all", { results: [{ n: 1 }] }),
        raw: running(sql, values, "raw", [[1]]),
        run: running(sql, values, "run", { meta: {} }),
      }) as unknown as D1PreparedStatement;
    const inner = {
      prepare: (sql: string) => statement(sql),
      batch: (statements: D1PreparedStatement[]) => {
        batches.push(statements);
        return attempt(statements.map(() => ({ results: [] })));
      },
    } as unknown as D1DatabaseSession;
    return { inner, seen, batches };
  }

  it("runs a bound statement again with the same values, through each way of running it", async () => {
    for (const method of ["first", "all", "raw", "run"] as const) {
      const s = session(2);
      const waits: number[] = [];
      const db = retryingRolledBack(s.inner, async (ms) => void waits.push(ms));
      const bound = db.prepare("select ? + ?").bind(1, 2);
      await (method === "first" ? bound.first("n") : bound[method]());
      expect(s.seen.map((x) => x.values)).toEqual([
        [1, 2],
        [1, 2],
        [1, 2],
      ]);
      expect(new Set(s.seen.map((x) => x.method))).toEqual(new Set([method === "first" ? "first:n" : method]));
      expect(waits).toEqual([25, 100]);
    }
  });

  it("hands D1 its own statements in a batch, and runs the batch again", async () => {
    const s = session(1);
    const db = retryingRolledBack(s.inner, async () => {});
    const one = db.prepare("select 1");
    const two = db.prepare("select ?").bind(2);
    expect(await db.batch([one, two])).toHaveLength(2);
    expect(s.batches).toHaveLength(2);
    for (const sent of s.batches) {
      expect(sent).toHaveLength(2);
      // The session's statements, not the wrappers: D1's batch takes only its own.
      expect(sent.map((x) => (x as { sql: string }).sql)).toEqual(["select 1", "select ?"]);
      expect((sent[1] as { values: unknown[] }).values).toEqual([2]);
      expect(sent.every((x) => typeof (x as { inner?: unknown }).inner === "undefined")).toBe(true);
    }
  });
});
