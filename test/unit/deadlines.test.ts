import { describe, expect, it } from "vitest";
import {
  alertsAt,
  craDueTimes,
  deadlinesAt,
  dueTimes,
  resumed,
  responseTargetsOf,
  type DueTimes,
  type MetTimes,
  type VulnTargets,
} from "../../src/lib/deadlines";

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse("2026-11-01T00:00:00.000Z");
const targets: VulnTargets = { ...responseTargetsOf(null), disclosure_days: 90 };
const nothingMet: MetTimes = {
  acknowledgedAt: null,
  triagedAt: null,
  closedAt: null,
  disclosedAt: null,
  filed: { cra_early_warning: null, cra_notification: null, cra_final_report: null },
};
const NO_CRA = { cra_early_warning: null, cra_notification: null, cra_final_report: null };
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
    const due = { ...dueTimes(targets, T0, "low", 0), ...NO_CRA };
    const met = { ...nothingMet, acknowledgedAt: iso(T0 + H) };
    expect(resumed(due, met, 3 * D)).toEqual({
      ...NO_CRA,
      acknowledge: due.acknowledge,
      triage: due.triage! + 3 * D,
      resolve: due.resolve! + 3 * D,
      disclosure: due.disclosure! + 3 * D,
    });
  });
});

describe("a deadline's state at a moment", () => {
  const due: DueTimes = { ...dueTimes(targets, T0, null, 0), ...NO_CRA };

  it("is pending before its due time, breached from it on, none without one", () => {
    expect(deadlinesAt(due, nothingMet, "new", T0 + 72 * H - 1, false).acknowledge).toEqual({
      due_at: iso(T0 + 72 * H),
      met_at: null,
      state: "pending",
    });
    expect(deadlinesAt(due, nothingMet, "new", T0 + 72 * H, false).acknowledge.state).toBe("breached");
    expect(deadlinesAt(due, nothingMet, "new", T0, false).resolve).toEqual({ due_at: null, met_at: null, state: "none" });
  });

  it("is met once met, late or not, and paused while the report waits for its reporter", () => {
    const late = { ...nothingMet, acknowledgedAt: iso(T0 + 100 * H) };
    expect(deadlinesAt(due, late, "triaged", T0 + 200 * H, false).acknowledge).toEqual({
      due_at: iso(T0 + 72 * H),
      met_at: iso(T0 + 100 * H),
      state: "met",
    });
    expect(deadlinesAt(due, late, "needs_more_info", T0 + 300 * H, false).triage.state).toBe("paused");
    expect(deadlinesAt(due, late, "needs_more_info", T0 + 300 * H, false).acknowledge.state).toBe("met");
  });

  it("meets triage by a close as well as by triage, and resolve by a close", () => {
    const closed = { ...nothingMet, closedAt: iso(T0 + D) };
    const d = deadlinesAt({ ...dueTimes(targets, T0, "medium", 0), ...NO_CRA }, closed, "spam", T0 + 2 * D, false);
    expect([d.triage.state, d.triage.met_at, d.resolve.state]).toEqual(["met", iso(T0 + D), "met"]);
  });
});

describe("the Cyber Resilience Act's clock", () => {
  const known = T0 + 5 * H;
  const exploited = { activelyExploited: true, exploitationKnownAt: iso(known), triageState: "triaged" as const, closedAt: null };

  it("runs 24 and 72 hours from when the exploitation became known, and 14 days from a fix; not at all unflagged", () => {
    expect(craDueTimes(exploited)).toEqual({ cra_early_warning: known + 24 * H, cra_notification: known + 72 * H, cra_final_report: null });
    const fixed = { ...exploited, triageState: "resolved" as const, closedAt: iso(T0 + 3 * D) };
    expect(craDueTimes(fixed).cra_final_report).toBe(T0 + 3 * D + 14 * D);
    // Closed some other way, no fix is out.
    expect(craDueTimes({ ...fixed, triageState: "informative" }).cra_final_report).toBeNull();
    expect(craDueTimes({ ...exploited, activelyExploited: false })).toEqual(NO_CRA);
  });

  it("shows its three deadlines only while exploited, never paused, met by a filing", () => {
    const due: DueTimes = { ...dueTimes(targets, T0, null, 0), ...craDueTimes(exploited) };
    const waiting = deadlinesAt(due, nothingMet, "needs_more_info", known + 30 * H, true);
    expect([
      waiting.acknowledge.state,
      waiting.cra_early_warning,
      waiting.cra_notification?.state,
      waiting.cra_final_report?.state,
    ]).toEqual(["paused", { due_at: iso(known + 24 * H), met_at: null, state: "breached" }, "pending", "none"]);
    const filed = { ...nothingMet, filed: { ...NO_CRA, cra_early_warning: iso(known + 20 * H) } };
    expect(deadlinesAt(due, filed, "triaged", known + 30 * H, true).cra_early_warning?.state).toBe("met");
    expect(Object.keys(deadlinesAt(due, nothingMet, "triaged", known, false))).toEqual(["acknowledge", "triage", "resolve", "disclosure"]);
    // A pause moves the promises, not the law's.
    expect(resumed(due, nothingMet, 2 * D).cra_notification).toBe(known + 72 * H);
  });

  it("alerts while the report waits for its reporter: approaching at 80 % of 24 hours, then breached", () => {
    const view = {
      due: { ...dueTimes(targets, T0, null, 0), ...craDueTimes(exploited) },
      met: nothingMet,
      triageState: "needs_more_info" as const,
      targets,
      severity: null,
    };
    const before = alertsAt(view, new Set(), known + 19 * H);
    expect(before.due).toEqual([]);
    expect(before.nextMs).toBe(known + 19.2 * H);
    expect(alertsAt(view, new Set(), known + 19.2 * H).due).toEqual([
      { deadline: "cra_early_warning", alert: "approaching", dueMs: known + 24 * H },
    ]);
    const late = alertsAt(view, new Set(["cra_early_warning:approaching"]), known + 24 * H);
    expect([late.due, late.overdue]).toEqual([[{ deadline: "cra_early_warning", alert: "breached", dueMs: known + 24 * H }], true]);
  });
});
