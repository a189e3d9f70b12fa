import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_ATTEMPTS,
  MAX_QUEUE_DELAY_SECONDS,
  nextDelaySeconds,
  parseRetryAfter,
  RETRY_STEPS_SECONDS,
} from "../../src/lib/retry-schedule";

describe("the retry schedule", () => {
  it("is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts in all", () => {
    expect(RETRY_STEPS_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect([0, 0.5].map((r) => nextDelaySeconds(1, null, r))).toEqual([4, 5]);
  });

  it.each(RETRY_STEPS_SECONDS.map((step, i) => [i + 1, step] as const))(
    "after attempt %i waits the step %i s, within +-20%",
    (attempt, step) => {
      expect(nextDelaySeconds(attempt, null, 0.5)).toBe(step);
      expect(nextDelaySeconds(attempt, null, 0)).toBe(Math.round(step * 0.8));
      expect(nextDelaySeconds(attempt, null, 0.999999)).toBe(Math.min(Math.round(step * 1.2), MAX_QUEUE_DELAY_SECONDS));
    },
  );

  it("stops after the eighth attempt", () => {
    expect(nextDelaySeconds(8, null, 0.5)).toBeNull();
    expect(nextDelaySeconds(9, 10, 0.5)).toBeNull();
  });

  it("keeps any jitter within the bounds (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const step = RETRY_STEPS_SECONDS[attempt - 1]!;
        const delay = nextDelaySeconds(attempt, null, random)!;
        return delay >= Math.round(step * 0.8) && delay <= Math.min(Math.round(step * 1.2), MAX_QUEUE_DELAY_SECONDS);
      }),
    );
  });

  it("honours Retry-After within one to two times the step", () => {
    expect(nextDelaySeconds(2, 60, 0.5)).toBe(300); // shorter than the step: the step
    expect(nextDelaySeconds(2, 450, 0.5)).toBe(450); // within: as asked
    expect(nextDelaySeconds(2, 9999, 0.5)).toBe(600); // longer: twice the step
    expect(nextDelaySeconds(1, 0, 0.9)).toBe(5);
    expect(nextDelaySeconds(6, 86400, 0.5)).toBe(MAX_QUEUE_DELAY_SECONDS); // the Queue delays at most 12 h
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Sat, 21 Nov 2026 12:02:00 GMT", now)).toBe(120);
    expect(parseRetryAfter("Sat, 21 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
  });
});
