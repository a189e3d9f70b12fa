import { describe, expect, it } from "vitest";
import { LOCAL_READS_PER_MINUTE, PUBLIC_READS_PER_MINUTE, ReadBudget } from "../../src/http/rate-limit";

const MINUTE = 60_000;
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE);

/** A fixed-window limiter like the binding's: `limit` reads a minute per key, windows on the minute. */
function windowLimiter(limit: number, clock: () => number) {
  const counts = new Map<string, number>();
  const calls: string[] = [];
  const limiter = {
    limit: async ({ key }: { key: string }) => {
      calls.push(key);
      const k = `${Math.floor(clock() / MINUTE)}:${key}`;
      const n = counts.get(k) ?? 0;
      if (n >= limit) return { success: false };
      counts.set(k, n + 1);
      return { success: true };
    },
  } as RateLimit;
  return { limiter, calls };
}

async function readsAllowed(budget: ReadBudget, limiter: RateLimit, ip: string, tries: number, now: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < tries; i++) if (await budget.allow(limiter, ip, now)) allowed++;
  return allowed;
}

describe("ReadBudget", () => {
  it("allows exactly 300 reads a minute from one address in one isolate, with the limiter set to the other 270", async () => {
    let now = T0 + 1000;
    const { limiter, calls } = windowLimiter(PUBLIC_READS_PER_MINUTE - LOCAL_READS_PER_MINUTE, () => now);
    const budget = new ReadBudget();
    expect(await readsAllowed(budget, limiter, "192.0.2.1", 400, now)).toBe(PUBLIC_READS_PER_MINUTE);
    // Only the reads past the isolate's share were asked for, plus the one refusal; then none.
    expect(calls.length).toBe(PUBLIC_READS_PER_MINUTE - LOCAL_READS_PER_MINUTE + 1);
    // The next minute starts a whole budget again.
    now = T0 + MINUTE + 5;
    expect(await readsAllowed(budget, limiter, "192.0.2.1", 400, now)).toBe(PUBLIC_READS_PER_MINUTE);
  });

  it("counts an address's first reads of a minute without the limiter, and each address on its own", async () => {
    const { limiter, calls } = windowLimiter(1000, () => T0);
    const budget = new ReadBudget();
    expect(await readsAllowed(budget, limiter, "192.0.2.2", LOCAL_READS_PER_MINUTE, T0)).toBe(LOCAL_READS_PER_MINUTE);
    expect(await readsAllowed(budget, limiter, "192.0.2.3", LOCAL_READS_PER_MINUTE, T0)).toBe(LOCAL_READS_PER_MINUTE);
    expect(calls).toEqual([]);
    await budget.allow(limiter, "192.0.2.2", T0);
    expect(calls).toEqual(["192.0.2.2"]);
  });

  it("refuses an address the limiter refused until the minute ends, without asking again", async () => {
    const calls: string[] = [];
    const refusing = {
      limit: async ({ key }: { key: string }) => {
        calls.push(key);
        return { success: false };
      },
    } as RateLimit;
    const budget = new ReadBudget(2);
    expect(await readsAllowed(budget, refusing, "192.0.2.4", 10, T0)).toBe(2);
    expect(calls).toEqual(["192.0.2.4"]);
    expect(await budget.allow(refusing, "192.0.2.4", T0 + MINUTE)).toBe(true);
  });

  it("sends addresses past its memory straight to the limiter, so a flood of addresses gains nothing", async () => {
    const { limiter, calls } = windowLimiter(1, () => T0);
    const budget = new ReadBudget(LOCAL_READS_PER_MINUTE, 2);
    await budget.allow(limiter, "a", T0);
    await budget.allow(limiter, "b", T0);
    expect(calls).toEqual([]);
    expect(await readsAllowed(budget, limiter, "c", 3, T0)).toBe(1);
    expect(calls).toEqual(["c", "c"]);
    // Addresses it already counts keep their share.
    expect(await budget.allow(limiter, "a", T0)).toBe(true);
  });
});
