import { describe, expect, it } from "vitest";
import { dueTimes, responseTargetsOf, type VulnTargets } from "../../src/lib/deadlines";
import { nextVuln } from "../../src/services/vulns/next";
import { UNGATED, type VulnRecord } from "../../src/services/vulns/types";

// nextVuln decides an update without D1: these hold its rules, from a report made here as a row.

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse("2026-11-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const targets: VulnTargets = { ...responseTargetsOf(null), disclosure_days: 90 };
const due = dueTimes(targets, T0, null, 0);

/** A report as the table holds it: new and open since T0, the default targets and a 90-day disclosure timeline. */
function report(overrides: Partial<VulnRecord> = {}): VulnRecord {
  return {
    ...UNGATED,
    keyRecord: null,
    revision: 3,
    assigneeId: null,
    id: "00000000-0000-7000-8000-000000000001",
    organizationId: "00000000-0000-7000-8000-0000000000aa",
    briefId: "00000000-0000-7000-8000-0000000000bb",
    shortcode: "VULN-0001",
    title: "XSS in search",
    description: "The q parameter is echoed.",
    contactEmail: "reporter@example.com",
    notifyReporter: true,
    reporterUnsubscribedAt: null,
    policyVersionId: null,
    policyVersionNumber: null,
    policyVersionSha256: null,
    tags: ["web"],
    inboxState: "stored",
    processingState: "open",
    triageState: "new",
    duplicateOfId: null,
    infoRequestedFrom: null,
    infoRequestedAt: null,
    acknowledgedAt: null,
    triagedAt: null,
    closedAt: null,
    closedBy: null,
    disclosedAt: null,
    creditName: null,
    creditConsent: false,
    targets,
    acknowledgeDueMs: due.acknowledge,
    triageDueMs: due.triage,
    resolveDueMs: due.resolve,
    disclosureDueMs: due.disclosure,
    craEarlyWarningDueMs: null,
    craNotificationDueMs: null,
    craFinalReportDueMs: null,
    pausedMs: 0,
    activelyExploited: false,
    exploitationKnownAt: null,
    craEarlyWarningMetAt: null,
    craNotificationMetAt: null,
    craFinalReportMetAt: null,
    nextAlertMs: null,
    overdue: 0,
    readAt: null,
    severity: null,
    cvssVector: null,
    cvssScore: null,
    cvssVersion: null,
    cweIds: [],
    submission: {
      title: "XSS in search",
      description: "The q parameter is echoed.",
      contact_email: null,
      domains: [],
      received_at: iso(T0),
    },
    followUpTokenHash: "f".repeat(64),
    createdAt: iso(T0),
    updatedAt: iso(T0),
    lastActivityAt: iso(T0),
    lastActivityBy: "reporter",
    domains: ["example.com"],
    ...overrides,
  };
}

/** The row, frozen all the way down: a decision that wrote into it would throw. */
function frozen<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

const types = (d: ReturnType<typeof nextVuln>) => d.events.map((e) => e.type);

describe("nextVuln: state moves", () => {
  it("triaging a new report acknowledges and triages it now, and fires Updated and Triage::Changed from new", () => {
    const now = iso(T0 + 5 * H);
    const d = nextVuln(frozen(report()), { triage_state: "triaged" }, now);
    expect(d.problems).toEqual([]);
    expect(d.changed).toBe(true);
    expect(d.next).toMatchObject({ triageState: "triaged", processingState: "open", acknowledgedAt: now, triagedAt: now, closedAt: null });
    expect(d.next.revision).toBe(4);
    expect(d.next.updatedAt).toBe(now);
    expect(d.events).toEqual([{ type: "Vuln::Updated" }, { type: "Vuln::Triage::Changed", previous: "new" }]);
    // Staying open is no answer to the reporter: their last activity stands.
    expect(d.answered).toBe(false);
    expect(d.next.lastActivityBy).toBe("reporter");
  });

  it("closing sets closed_at and who closed it, fires Processing::Closed, and is the organization's activity", () => {
    const now = iso(T0 + 2 * D);
    const existing = report({ triageState: "triaged", acknowledgedAt: iso(T0 + H), triagedAt: iso(T0 + H) });
    const d = nextVuln(frozen(existing), { triage_state: "resolved" }, now);
    expect(d.next).toMatchObject({ triageState: "resolved", processingState: "closed", closedAt: now, closedBy: "organization" });
    expect(d.next).toMatchObject({ acknowledgedAt: iso(T0 + H), triagedAt: iso(T0 + H) });
    expect(types(d)).toEqual(["Vuln::Updated", "Vuln::Processing::Closed", "Vuln::Triage::Changed"]);
    expect(d.answered).toBe(true);
    expect(d.next).toMatchObject({ lastActivityAt: now, lastActivityBy: "organization" });
    // The cron's close of an unanswered request says so.
    expect(nextVuln(existing, { triage_state: "informative", closer: "timeout" }, now).next.closedBy).toBe("timeout");
  });

  it("processing_state alone closes as resolved, and reopens to triaged if the report ever was, else new", () => {
    const now = iso(T0 + 3 * D);
    expect(nextVuln(report(), { processing_state: "closed" }, now).next.triageState).toBe("resolved");
    const closedUntriaged = report({ triageState: "spam", processingState: "closed", closedAt: iso(T0 + D), closedBy: "organization" });
    expect(nextVuln(closedUntriaged, { processing_state: "open" }, now).next.triageState).toBe("new");
    const closedTriaged = { ...closedUntriaged, triagedAt: iso(T0 + H) };
    expect(nextVuln(closedTriaged, { processing_state: "open" }, now).next.triageState).toBe("triaged");
  });

  it("reopening clears the close and fires Processing::Reopened", () => {
    const now = iso(T0 + 4 * D);
    const closed = report({
      triageState: "resolved",
      processingState: "closed",
      triagedAt: iso(T0 + H),
      closedAt: iso(T0 + D),
      closedBy: "timeout",
    });
    const d = nextVuln(frozen(closed), { triage_state: "triaged" }, now);
    expect(d.next).toMatchObject({ processingState: "open", closedAt: null, closedBy: null, triagedAt: iso(T0 + H) });
    expect(d.events).toEqual([
      { type: "Vuln::Updated" },
      { type: "Vuln::Processing::Reopened" },
      { type: "Vuln::Triage::Changed", previous: "resolved" },
    ]);
  });

  it("a duplicate keeps its original; naming another one is a triage change of its own", () => {
    const now = iso(T0 + D);
    const d = nextVuln(report(), { triage_state: "duplicate", duplicateOf: "original-1" }, now);
    expect(d.next).toMatchObject({ triageState: "duplicate", duplicateOfId: "original-1", processingState: "closed" });
    const again = nextVuln(frozen(d.next), { duplicateOf: "original-2" }, iso(T0 + 2 * D));
    expect(again.next.duplicateOfId).toBe("original-2");
    // Still closed, and closed when it first was.
    expect(again.next.closedAt).toBe(now);
    expect(again.events).toEqual([{ type: "Vuln::Updated" }, { type: "Vuln::Triage::Changed", previous: "duplicate" }]);
  });

  it("changes nothing, fires nothing and keeps the row when the change asks for what is there", () => {
    const existing = frozen(report({ severity: "high" }));
    const d = nextVuln(existing, { title: existing.title, tags: ["web", "web"], severity: "high", domains: ["example.com"] }, iso(T0 + D));
    expect(d).toEqual({ next: existing, changed: false, domainsChanged: false, answered: false, events: [], problems: [] });
    expect(d.next).toBe(existing);
  });

  it("a new domain alone is a change, with its links to write", () => {
    const d = nextVuln(frozen(report()), { domains: ["b.example.com", "example.com", "b.example.com"] }, iso(T0 + D));
    expect(d.domainsChanged).toBe(true);
    expect(d.next.domains).toEqual(["b.example.com", "example.com"]);
    expect(types(d)).toEqual(["Vuln::Updated"]);
  });
});

describe("nextVuln: refusals", () => {
  const now = iso(T0 + D);
  it("refuses a triage_state and processing_state that disagree", () => {
    expect(nextVuln(report(), { triage_state: "spam", processing_state: "open" }, now).problems).toEqual([
      { member: { attribute: "processing_state" }, detail: "processing_state must be closed with triage_state spam (or left out)." },
    ]);
  });

  it("refuses a duplicate without an original, and an original for anything but a duplicate", () => {
    expect(nextVuln(report(), { triage_state: "duplicate" }, now).problems).toEqual([
      { member: { relationship: "duplicate_of", whole: true }, detail: "a duplicate names its original: give duplicate_of." },
    ]);
    expect(nextVuln(report(), { triage_state: "triaged", duplicateOf: "original-1" }, now).problems).toEqual([
      {
        member: { relationship: "duplicate_of", whole: true },
        detail: "only a duplicate has an original: set triage_state to duplicate with it.",
      },
    ]);
    // A duplicate already has one: another move that keeps it a duplicate needs none.
    const duplicate = report({ triageState: "duplicate", processingState: "closed", duplicateOfId: "original-1", closedAt: now });
    expect(nextVuln(duplicate, { title: "Renamed" }, now).problems).toEqual([]);
  });

  it("refuses an exploitation time in the future, without the flag, or cleared while flagged", () => {
    const member = { attribute: "exploitation_known_at" };
    expect(nextVuln(report(), { actively_exploited: true, exploitation_known_at: iso(T0 + D + 1) }, now).problems).toEqual([
      { member, detail: "must not be in the future." },
    ]);
    expect(nextVuln(report(), { exploitation_known_at: iso(T0) }, now).problems).toEqual([
      { member, detail: "only an actively exploited vuln has one: set actively_exploited to true with it." },
    ]);
    const exploited = report({ activelyExploited: true, exploitationKnownAt: iso(T0) });
    expect(nextVuln(exploited, { exploitation_known_at: null }, now).problems).toEqual([
      { member, detail: "an actively exploited vuln has one: leave it out to keep it, or set actively_exploited to false." },
    ]);
  });
});

describe("nextVuln: deadlines", () => {
  it("a request for information records where it came from and when; the answer's move resumes the promises later by the wait", () => {
    const asked = iso(T0 + D);
    const triaged = report({ triageState: "triaged", acknowledgedAt: iso(T0 + H), triagedAt: iso(T0 + H), severity: "high" });
    const withResolve = { ...triaged, resolveDueMs: T0 + 30 * D };
    const waiting = nextVuln(frozen(withResolve), { triage_state: "needs_more_info" }, asked);
    expect(waiting.next).toMatchObject({ triageState: "needs_more_info", infoRequestedFrom: "triaged", infoRequestedAt: asked });
    // Paused, nothing to look at until the report runs again.
    expect(waiting.next.nextAlertMs).toBeNull();
    const back = nextVuln(frozen(waiting.next), { triage_state: "triaged" }, iso(T0 + 4 * D));
    expect(back.next).toMatchObject({
      infoRequestedFrom: null,
      infoRequestedAt: null,
      pausedMs: 3 * D,
      // Met before the wait: they keep their time.
      acknowledgeDueMs: due.acknowledge,
      triageDueMs: due.triage,
      // Still pending: later by the three days waited.
      resolveDueMs: T0 + 33 * D,
      disclosureDueMs: T0 + 93 * D,
    });
    expect(back.next.nextAlertMs).toBe(T0 + 33 * D - 6 * D);
  });

  it("a report closed as junk owes no disclosure; reopened, the clock from its arrival is back, pauses included", () => {
    const existing = report({ pausedMs: 2 * D, disclosureDueMs: T0 + 92 * D });
    const spam = nextVuln(frozen(existing), { triage_state: "spam" }, iso(T0 + 5 * D));
    expect(spam.next.disclosureDueMs).toBeNull();
    const reopened = nextVuln(frozen(spam.next), { triage_state: "triaged" }, iso(T0 + 6 * D));
    expect(reopened.next.disclosureDueMs).toBe(T0 + 92 * D);
    // A fix is no junk: the world is still owed its disclosure.
    expect(nextVuln(existing, { triage_state: "resolved" }, iso(T0 + 5 * D)).next.disclosureDueMs).toBe(T0 + 92 * D);
    // Nor is an accepted risk.
    expect(nextVuln(existing, { triage_state: "accepted_risk" }, iso(T0 + 5 * D)).next.disclosureDueMs).toBe(T0 + 92 * D);
  });

  it("a new severity gives a new resolve deadline, from the report's arrival and its pauses", () => {
    const existing = report({ pausedMs: D });
    const d = nextVuln(frozen(existing), { severity: "critical" }, iso(T0 + 2 * D));
    expect(d.next.resolveDueMs).toBe(T0 + 15 * D + D);
    const later = nextVuln(frozen(d.next), { severity: null }, iso(T0 + 3 * D));
    expect(later.next.resolveDueMs).toBeNull();
  });

  it("a report flagged exploited runs the law's clock from when that became known; a fix starts the final report's", () => {
    const known = iso(T0 + 2 * H);
    const flagged = nextVuln(frozen(report()), { actively_exploited: true, exploitation_known_at: known }, iso(T0 + D));
    expect(flagged.next).toMatchObject({
      activelyExploited: true,
      exploitationKnownAt: known,
      craEarlyWarningDueMs: T0 + 2 * H + 24 * H,
      craNotificationDueMs: T0 + 2 * H + 72 * H,
      craFinalReportDueMs: null,
    });
    const fixedAt = iso(T0 + 3 * D);
    const fixed = nextVuln(frozen(flagged.next), { triage_state: "resolved" }, fixedAt);
    expect(fixed.next.craFinalReportDueMs).toBe(T0 + 3 * D + 14 * D);
    const reopened = nextVuln(frozen(fixed.next), { processing_state: "open" }, iso(T0 + 4 * D));
    expect(reopened.next.craFinalReportDueMs).toBeNull();
    // Flagged without a time: known from the moment it is flagged, and kept while it stays flagged.
    const now = iso(T0 + 5 * D);
    expect(nextVuln(report(), { actively_exploited: true }, now).next.exploitationKnownAt).toBe(now);
    expect(nextVuln(flagged.next, { actively_exploited: true }, now).next.exploitationKnownAt).toBe(known);
    // Unflagged, the law's clock stops.
    expect(nextVuln(flagged.next, { actively_exploited: false }, now).next).toMatchObject({
      exploitationKnownAt: null,
      craEarlyWarningDueMs: null,
    });
  });

  it("sets overdue and the cron's next look for the time of the change", () => {
    // Past the acknowledgement's due time (72 h), not yet acknowledged: a title edit finds it overdue.
    const late = nextVuln(frozen(report()), { title: "Renamed" }, iso(T0 + 80 * H));
    expect(late.next.overdue).toBe(1);
    expect(late.next.nextAlertMs).toBe(due.acknowledge! - Math.round((72 * H) / 5));
    const early = nextVuln(frozen(report()), { title: "Renamed" }, iso(T0 + H));
    expect(early.next.overdue).toBe(0);
  });

  it("leaves the row it was given as it was, and decides the same twice from nothing but its arguments", () => {
    const existing = report({ triageState: "needs_more_info", infoRequestedFrom: "new", infoRequestedAt: iso(T0 + H) });
    const before = structuredClone(existing);
    const change = { triage_state: "triaged" as const, severity: "low" as const, tags: ["web", "xss"] };
    const first = nextVuln(existing, change, iso(T0 + D));
    expect(existing).toEqual(before);
    expect(nextVuln(existing, change, iso(T0 + D))).toEqual(first);
  });
});
