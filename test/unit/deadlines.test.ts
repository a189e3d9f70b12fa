import { describe, expect, it } from "vitest";
import { deadlinesAt, dueTimes, resumed, responseTargetsOf, type MetTimes, type VulnTargets } from "../../src/lib/deadlines";

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse("2026-11-01T00:00:00.000Z");
const targets: VulnTargets = { ...responseTargetsOf(null), disclosure_days: 90 };
const nothingMet: MetTimes = { acknowledgedAt: null, triagedAt: null, closedAt: null, disclosedAt: null };
const iso = (ms: number) => new Date(ms).toISOString();

describe("response targets", () => {
  it("fill every member left out with its default, each severity on its own", () => {
    expect(responseTargetsOf(null)).toEqual({
      acknowledge_hours: 72,
      triage_hours: 240,
      resolve_days: { critical: 15, high: 30, medium: 60, low: 90, none: 90 },
    });
    expect(responseTargetsOf({ triage_hours: 48, resolve_days: { critical: 7 } })).toEqual({
      acknowledge_hours: 72,
      triage_hours: 48,
      resolve_days: { critical: 7, high: 30, medium: 60, low: 90, none: 90 },
    });
  });
});

describe("due times", () => {
  it("count calendar time from the report's arrival: hours for acknowledge and triage, days by severity and timeline", () => {
    expect(dueTimes(targets, T0, "high", 0)).toEqual({
      acknowledge: T0 + 72 * H,
      triage: T0 + 240 * H,
      resolve: T0 + 30 * D,
      disclosure: T0 + 90 * D,
    });
  });

  it("give no resolve deadline until rated and no disclosure deadline without a timeline", () => {
    expect(dueTimes({ ...targets, disclosure_days: null }, T0, null, 0)).toMatchObject({ resolve: null, disclosure: null });
  });

  it("move later by the time already spent paused", () => {
    expect(dueTimes(targets, T0, "critical", 5 * H).resolve).toBe(T0 + 15 * D + 5 * H);
  });

  it("after a pause, move the pending ones only", () => {
    const due = dueTimes(targets, T0, "low", 0);
    const met = { ...nothingMet, acknowledgedAt: iso(T0 + H) };
    expect(resumed(due, met, 3 * D)).toEqual({
      acknowledge: due.acknowledge,
      triage: due.triage! + 3 * D,
      resolve: due.resolve! + 3 * D,
      disclosure: due.disclosure! + 3 * D,
    });
  });
});

describe("a deadline's state at a moment", () => {
  const due = dueTimes(targets, T0, null, 0);

  it("is pending before its due time, breached from it on, none without one", () => {
    expect(deadlinesAt(due, nothingMet, "new", T0 + 72 * H - 1).acknowledge).toEqual({
      due_at: iso(T0 + 72 * H),
      met_at: null,
      state: "pending",
    });
    expect(deadlinesAt(due, nothingMet, "new", T0 + 72 * H).acknowledge.state).toBe("breached");
    expect(deadlinesAt(due, nothingMet, "new", T0).resolve).toEqual({ due_at: null, met_at: null, state: "none" });
  });

  it("is met once met, late or not, and paused while the report waits for its reporter", () => {
    const late = { ...nothingMet, acknowledgedAt: iso(T0 + 100 * H) };
    expect(deadlinesAt(due, late, "triaged", T0 + 200 * H).acknowledge).toEqual({
      due_at: iso(T0 + 72 * H),
      met_at: iso(T0 + 100 * H),
      state: "met",
    });
    expect(deadlinesAt(due, late, "needs_more_info", T0 + 300 * H).triage.state).toBe("paused");
    expect(deadlinesAt(due, late, "needs_more_info", T0 + 300 * H).acknowledge.state).toBe("met");
  });

  it("meets triage by a close as well as by triage, and resolve by a close", () => {
    const closed = { ...nothingMet, closedAt: iso(T0 + D) };
    const d = deadlinesAt(dueTimes(targets, T0, "medium", 0), closed, "spam", T0 + 2 * D);
    expect([d.triage.state, d.triage.met_at, d.resolve.state]).toEqual(["met", iso(T0 + D), "met"]);
  });
});
