import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { nowIso, SHORTCODE_PATTERN, shortcode } from "../../src/lib/ids";

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MAX_48 = 2 ** 48 - 1;

/** The first 48 bits of a UUID as a number of milliseconds. */
const timestampOf = (id: string): number => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

/** An id made with the clock set to `ms`. */
function idAt(ms: number): string {
  vi.setSystemTime(ms);
  return uuidv7();
}

// uuidv7 reads Date.now() and keeps per-isolate state (monotonic: it never goes back in time), so
// these tests take a fresh copy of the module (the test world's seed has made ids at today's time) and
// run in order with a clock that only moves forward, the far-future ones last.
let uuidv7: () => string;

describe("uuidv7", () => {
  beforeAll(async () => {
    vi.resetModules();
    ({ uuidv7 } = await import("../../src/lib/ids"));
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it.each([
    [0, "00000000-0000"],
    [1, "00000000-0001"],
    [0x0123456789ab, "01234567-89ab"],
    [1_700_000_000_000, "018bcfe5-6800"],
  ])("embeds timestamp %i in the first 48 bits as %s", (ms, prefix) => {
    const id = idAt(ms);
    expect(id).toMatch(UUIDV7);
    expect(id.slice(0, 13)).toBe(prefix);
    expect(timestampOf(id)).toBe(ms);
  });

  it("has the version 7 / variant 10 layout", () => {
    for (let i = 0; i < 200; i++) expect(idAt(1_700_000_001_000 + i)).toMatch(UUIDV7);
  });

  it("embeds each increasing timestamp it is given", () => {
    let clock = 1_800_000_000_000;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1_000_000_000 }), { minLength: 1, maxLength: 5 }), (gaps) => {
        for (const gap of gaps) {
          clock += gap;
          const id = idAt(clock);
          expect(id).toMatch(UUIDV7);
          expect(timestampOf(id)).toBe(clock);
        }
      }),
    );
  });

  it("sorts as strings in time order for increasing times", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 41, max: 2 ** 42 }), fc.integer({ min: 1, max: 2 ** 40 }), (t, gap) => {
        expect(idAt(t) < idAt(t + gap)).toBe(true);
      }),
    );
    const start = 2 ** 43;
    const ids = Array.from({ length: 100 }, (_, i) => idAt(start + i * 7));
    expect([...ids].reverse().sort()).toEqual(ids);
    expect(ids.map(timestampOf)).toEqual(Array.from({ length: 100 }, (_, i) => start + i * 7));
  });

  it("makes distinct ids within one millisecond, sorting in creation order", () => {
    const ms = 2 ** 44;
    vi.setSystemTime(ms);
    const ids = Array.from({ length: 1000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => timestampOf(id) === ms)).toBe(true);
  });

  it("stays in creation order past 4096 ids in one millisecond", () => {
    const ms = 2 ** 44 + 1000;
    vi.setSystemTime(ms);
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(5000);
    expect([...ids].sort()).toEqual(ids);
    expect(timestampOf(ids[0]!)).toBe(ms);
    expect(ids.every((id) => timestampOf(id) === ms || timestampOf(id) === ms + 1)).toBe(true);
  });

  it("never sorts an id before an earlier one when the clock goes back", () => {
    const first = idAt(2 ** 45);
    const second = idAt(2 ** 45 - 60_000);
    expect(second > first).toBe(true);
    expect(timestampOf(second)).toBe(2 ** 45);
  });

  it("embeds the largest 48-bit timestamp", () => {
    const id = idAt(MAX_48);
    expect(id).toMatch(UUIDV7);
    expect(id.slice(0, 13)).toBe("ffffffff-ffff");
  });
});

describe("shortcode", () => {
  it("matches SHORTCODE_PATTERN: XXXX-XXXX", () => {
    for (let i = 0; i < 500; i++) {
      const code = shortcode();
      expect(code).toMatch(SHORTCODE_PATTERN);
      expect(code).toHaveLength(9);
      expect(code[4]).toBe("-");
    }
  });

  it("never uses I, L, O or U, nor lowercase letters", () => {
    const all = Array.from({ length: 2000 }, () => shortcode()).join("");
    expect(all).not.toMatch(/[ILOU]/);
    expect(all).not.toMatch(/[a-z]/);
  });

  it("uses the whole 32-character alphabet", () => {
    const chars = new Set(Array.from({ length: 2000 }, () => shortcode().replace("-", "")).join(""));
    expect([...chars].sort().join("")).toBe("0123456789ABCDEFGHJKMNPQRSTVWXYZ");
  });

  it("makes 10,000 distinct codes", () => {
    const codes = Array.from({ length: 10_000 }, () => shortcode());
    expect(new Set(codes).size).toBe(10_000);
  });

  it.each(["ABCD-EFGH", "0000-ZZZZ", "7KQ2-M9XD"])("SHORTCODE_PATTERN accepts %s", (code) => {
    expect(SHORTCODE_PATTERN.test(code)).toBe(true);
  });

  it.each(["ABCD-EFGI", "ABCD-EFGL", "ABCO-EFGH", "UBCD-EFGH", "abcd-efgh", "ABCDEFGH", "ABCD-EFG", "ABCD-EFGHJ", " ABCD-EFGH"])(
    "SHORTCODE_PATTERN rejects %j",
    (code) => {
      expect(SHORTCODE_PATTERN.test(code)).toBe(false);
    },
  );
});

describe("nowIso", () => {
  it("is an ISO timestamp with milliseconds in UTC", () => {
    expect(nowIso()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
