import { describe, expect, it } from "vitest";
import { RETRY_WAITS_MS, retryRolledBack } from "../../src/db/retry";

// The rule behind createDb's retries, with the waits recorded instead of slept.
const ROLLED_BACK = new Error("D1_ERROR: Failed to get session commit token: internal error; reference = x");

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
    const a = attempts([ROLLED_BACK, ROLLED_BACK]);
    expect(await retryRolledBack(a.run, async (ms) => void waits.push(ms))).toBe("rows");
    expect(a.calls()).toBe(3);
    expect(waits).toEqual([25, 100]);
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
