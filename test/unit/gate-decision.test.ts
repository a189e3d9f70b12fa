import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IntakePaused, RateLimited } from "../../src/lib/domain-errors";
import { decideGate, type GateSnapshot, powRequired, releaseDay } from "../../src/lib/gate";

// The gate's decision from what the submission's read saw: these hold its rules without D1.

const NOW = Date.parse("2026-11-29T10:00:00.000Z");
const open: GateSnapshot = {
  proofOfWork: "off",
  expectedHourly: 10,
  briefHour: 0,
  powOnUntilMs: null,
  addressUnverifiedHour: 0,
  oldestUnverifiedMs: null,
  dailyCap: null,
  admittedToday: 0,
  queuedAhead: 0,
  pausedUntil: null,
  pauseMessage: null,
  laneMinValid: null,
  keyValid: null,
};
const decide = (s: Partial<GateSnapshot>, powValid = false) => decideGate({ ...open, ...s }, { powValid, nowMs: NOW });

describe("decideGate", () => {
  it("leaves a brief without a gate as it was: not_required, admitted, no day counted", () => {
    expect(decide({})).toEqual({
      gate: "not_required",
      lane: false,
      unverified: false,
      inboxState: "dispatching",
      admittedDay: null,
      releaseExpectedOn: null,
    });
  });

  it("with proof of work on: a valid solution is verified, none is unverified, and the third without one is 429", () => {
    expect(decide({ proofOfWork: "on" }, true).gate).toBe("verified");
    expect(decide({ proofOfWork: "on", addressUnverifiedHour: 1 }).gate).toBe("unverified");
    const oldest = NOW - 20 * 60_000;
    try {
      decide({ proofOfWork: "on", addressUnverifiedHour: 2, oldestUnverifiedMs: oldest });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RateLimited);
      expect((err as RateLimited).retryAfterSeconds).toBe(40 * 60);
    }
    // A valid solution is never counted against the address.
    expect(decide({ proofOfWork: "on", addressUnverifiedHour: 5 }, true).gate).toBe("verified");
  });

  it("auto: off at the expected rate, on past it, and on for as long as its hysteresis says", () => {
    expect(powRequired({ ...open, proofOfWork: "auto", briefHour: 9 }, NOW)).toBe(false);
    expect(powRequired({ ...open, proofOfWork: "auto", briefHour: 10 }, NOW)).toBe(true);
    expect(powRequired({ ...open, proofOfWork: "auto", briefHour: 0, powOnUntilMs: NOW + 1 }, NOW)).toBe(true);
    expect(powRequired({ ...open, proofOfWork: "auto", briefHour: 0, powOnUntilMs: NOW }, NOW)).toBe(false);
  });

  it("a key with enough valid reports takes the verified lane; one short of it does not", () => {
    expect(decide({ proofOfWork: "on", laneMinValid: 3, keyValid: 3 })).toMatchObject({ gate: "verified", lane: true });
    expect(decide({ proofOfWork: "on", laneMinValid: 3, keyValid: 2 })).toMatchObject({ gate: "unverified", lane: false });
    expect(decide({ proofOfWork: "on", laneMinValid: null, keyValid: 50 })).toMatchObject({ gate: "unverified" });
  });

  it("refuses while paused, with the seconds left, and takes reports once the time has passed", () => {
    const until = new Date(NOW + 90_000).toISOString();
    expect(() => decide({ pausedUntil: until, pauseMessage: "Back after the release." })).toThrow(IntakePaused);
    try {
      decide({ pausedUntil: until, pauseMessage: "Back after the release." });
    } catch (err) {
      expect((err as IntakePaused).retryAfterSeconds).toBe(90);
      expect((err as IntakePaused).message).toContain("Back after the release.");
    }
    expect(decide({ pausedUntil: new Date(NOW).toISOString() }).inboxState).toBe("dispatching");
  });

  it("under a cap: admitted with today's day while there is room and no queue, else queued behind the others", () => {
    expect(decide({ dailyCap: 3, admittedToday: 2 })).toMatchObject({ inboxState: "dispatching", admittedDay: "2026-11-29" });
    expect(decide({ dailyCap: 3, admittedToday: 3 })).toMatchObject({ inboxState: "queued", releaseExpectedOn: "2026-11-30" });
    // Room today, but others wait: the queue is served in order.
    expect(decide({ dailyCap: 3, admittedToday: 0, queuedAhead: 1 })).toMatchObject({ inboxState: "queued", admittedDay: null });
    expect(decide({ dailyCap: 3, admittedToday: 3, queuedAhead: 3 }).releaseExpectedOn).toBe("2026-12-01");
  });

  it("never admits past the cap in a day, and every submission is admitted or queued (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 200 }), (cap, sent) => {
        let admitted = 0;
        let queued = 0;
        for (let i = 0; i < sent; i++) {
          const d = decide({ dailyCap: cap, admittedToday: admitted, queuedAhead: queued });
          if (d.inboxState === "queued") {
            expect(d.releaseExpectedOn).toBe(releaseDay(NOW, queued, cap));
            queued++;
          } else admitted++;
        }
        expect(admitted).toBe(Math.min(cap, sent));
        expect(admitted + queued).toBe(sent);
      }),
    );
  });
});
