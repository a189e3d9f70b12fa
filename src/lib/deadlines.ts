import {
  CRA_KIND_NAMES,
  DEADLINE_KIND_NAMES,
  PROMISE_KIND_NAMES,
  DEFAULT_RESPONSE_TARGETS,
  type ResponseTargets,
  type Severity,
  type TriageState,
  type VulnTargets,
} from "../db/schema/vulns";

export { DEFAULT_RESPONSE_TARGETS, type ResponseTargets, type VulnTargets };

export const TARGET_BOUNDS = { hours: { min: 1, max: 8_760 }, days: { min: 1, max: 365 } } as const;

/** Targets as a client may give them: any member left out, any severity's days too. */
export type TargetsInput = Partial<Omit<ResponseTargets, "resolve_days">> & {
  resolve_days?: Partial<Record<Severity, number | undefined>>;
};

/** A policy's stored targets (null: none set), each member left out taking its default. */
export function responseTargetsOf(stored: TargetsInput | null | undefined): ResponseTargets {
  return {
    acknowledge_hours: stored?.acknowledge_hours ?? DEFAULT_RESPONSE_TARGETS.acknowledge_hours,
    triage_hours: stored?.triage_hours ?? DEFAULT_RESPONSE_TARGETS.triage_hours,
    resolve_days: Object.fromEntries(
      Object.entries(DEFAULT_RESPONSE_TARGETS.resolve_days).map(([s, d]) => [s, stored?.resolve_days?.[s as Severity] ?? d]),
    ) as Record<Severity, number>,
  };
}

export const DEADLINE_KINDS = DEADLINE_KIND_NAMES;
export type DeadlineKind = (typeof DEADLINE_KINDS)[number];
/** The organization's promises to the reporter: they wait while the report waits for the reporter. */
export const PROMISE_KINDS = PROMISE_KIND_NAMES;
export type PromiseKind = (typeof PROMISE_KINDS)[number];
/** The EU Cyber Resilience Act's filings for an actively exploited vulnerability: the law's clock never waits. */
export const CRA_KINDS = CRA_KIND_NAMES;
export type CraKind = (typeof CRA_KINDS)[number];
const isPromise = (kind: DeadlineKind): kind is PromiseKind => (PROMISE_KINDS as readonly string[]).includes(kind);
export const DEADLINE_STATES = ["pending", "met", "breached", "paused", "none"] as const;
export type DeadlineState = (typeof DEADLINE_STATES)[number];

export interface Deadline {
  due_at: string | null;
  met_at: string | null;
  state: DeadlineState;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HOUR_MS = HOUR;

/** The due times, in milliseconds since the epoch, as a report's columns keep them (null: none). */
export type DueTimes = Record<DeadlineKind, number | null>;

/** The Cyber Resilience Act's windows: an early warning in 24 hours and a notification in 72 from when
 * the exploitation became known, a final report 14 days after a fix is out. */
export const CRA_WINDOWS: Record<CraKind, number> = {
  cra_early_warning: 24 * HOUR_MS,
  cra_notification: 72 * HOUR_MS,
  cra_final_report: 14 * 24 * HOUR_MS,
};

/**
 * The due times of a report created at `createdMs`, its clock stopped for `pausedMs` so far. The
 * resolve deadline waits for a severity; the disclosure deadline for a timeline.
 */
export function dueTimes(
  targets: VulnTargets,
  createdMs: number,
  severity: Severity | null,
  pausedMs: number,
): Record<PromiseKind, number | null> {
  const at = (window: number) => createdMs + window + pausedMs;
  return {
    acknowledge: at(targets.acknowledge_hours * HOUR),
    triage: at(targets.triage_hours * HOUR),
    resolve: severity ? at(targets.resolve_days[severity] * DAY) : null,
    disclosure: targets.disclosure_days === null ? null : at(targets.disclosure_days * DAY),
  };
}

/** What the Cyber Resilience Act's clock reads of a report. */
export interface CraColumns {
  activelyExploited: boolean;
  exploitationKnownAt: string | null;
  triageState: TriageState;
  closedAt: string | null;
}

/**
 * The filings' due times: none while the report is not actively exploited; the early warning and the
 * notification from when the exploitation became known; the final report from its close as resolved
 * (none while no fix is out).
 */
export function craDueTimes(v: CraColumns): Record<CraKind, number | null> {
  const known = v.activelyExploited && v.exploitationKnownAt ? Date.parse(v.exploitationKnownAt) : null;
  const fixed = known !== null && v.triageState === FIXED_STATE && v.closedAt ? Date.parse(v.closedAt) : null;
  return {
    cra_early_warning: known === null ? null : known + CRA_WINDOWS.cra_early_warning,
    cra_notification: known === null ? null : known + CRA_WINDOWS.cra_notification,
    cra_final_report: fixed === null ? null : finalReportDue(fixed),
  };
}

/** The state that says a fix is out: the final report's window runs from the close into it. */
export const FIXED_STATE = "resolved" satisfies TriageState;

/** When the final report is due, for a report closed as fixed at `fixedMs`. */
export const finalReportDue = (fixedMs: number) => fixedMs + CRA_WINDOWS.cra_final_report;

/** How long each kind's window is, in milliseconds (the approaching alert fires when 80 % of it has passed). */
export function windowOf(kind: DeadlineKind, targets: VulnTargets, severity: Severity | null): number | null {
  if (!isPromise(kind)) return CRA_WINDOWS[kind];
  if (kind === "acknowledge") return targets.acknowledge_hours * HOUR;
  if (kind === "triage") return targets.triage_hours * HOUR;
  if (kind === "resolve") return severity ? targets.resolve_days[severity] * DAY : null;
  return targets.disclosure_days === null ? null : targets.disclosure_days * DAY;
}

/** A report's deadline columns, as the vulns table keeps them (a reader of the promises alone may leave out the law's). */
export interface DeadlineColumns {
  acknowledgeDueMs: number | null;
  triageDueMs: number | null;
  resolveDueMs: number | null;
  disclosureDueMs: number | null;
  craEarlyWarningDueMs?: number | null;
  craNotificationDueMs?: number | null;
  craFinalReportDueMs?: number | null;
  acknowledgedAt: string | null;
  triagedAt: string | null;
  closedAt: string | null;
  disclosedAt?: string | null;
  craEarlyWarningMetAt?: string | null;
  craNotificationMetAt?: string | null;
  craFinalReportMetAt?: string | null;
}

export const dueOf = (v: DeadlineColumns): DueTimes => ({
  acknowledge: v.acknowledgeDueMs,
  triage: v.triageDueMs,
  resolve: v.resolveDueMs,
  disclosure: v.disclosureDueMs,
  cra_early_warning: v.craEarlyWarningDueMs ?? null,
  cra_notification: v.craNotificationDueMs ?? null,
  cra_final_report: v.craFinalReportDueMs ?? null,
});

/** The due-time columns of `due`, to write. */
export const dueColumns = (due: DueTimes) => ({
  acknowledgeDueMs: due.acknowledge,
  triageDueMs: due.triage,
  resolveDueMs: due.resolve,
  disclosureDueMs: due.disclosure,
  craEarlyWarningDueMs: due.cra_early_warning,
  craNotificationDueMs: due.cra_notification,
  craFinalReportDueMs: due.cra_final_report,
});

/** What met each deadline; the first published advisory naming the report meets disclosure. */
export const metOf = (v: DeadlineColumns): MetTimes => ({
  acknowledgedAt: v.acknowledgedAt,
  triagedAt: v.triagedAt,
  closedAt: v.closedAt,
  disclosedAt: v.disclosedAt ?? null,
  filed: {
    cra_early_warning: v.craEarlyWarningMetAt ?? null,
    cra_notification: v.craNotificationMetAt ?? null,
    cra_final_report: v.craFinalReportMetAt ?? null,
  },
});

/**
 * What meets each deadline: the acknowledgement, the triage (or a close), the close, a published
 * advisory; a filing of the matching kind (its submitted_at, the first one's) for the law's.
 */
export interface MetTimes {
  acknowledgedAt: string | null;
  triagedAt: string | null;
  closedAt: string | null;
  disclosedAt: string | null;
  filed: Record<CraKind, string | null>;
}

/**
 * What meets each of the organization's promises: the first of these times that is set. A table, so
 * that a move decided in SQL (the reporter's answer, src/services/vulns/info-requests.ts) reads the
 * same rule as one decided here.
 */
export const PROMISE_MET_BY = {
  acknowledge: ["acknowledgedAt"],
  triage: ["triagedAt", "closedAt"],
  resolve: ["closedAt"],
  disclosure: ["disclosedAt"],
} as const satisfies Record<PromiseKind, readonly Exclude<keyof MetTimes, "filed">[]>;

export const metAt = (kind: DeadlineKind, m: MetTimes): string | null =>
  isPromise(kind) ? (PROMISE_MET_BY[kind].map((k) => m[k]).find((t) => t !== null) ?? null) : m.filed[kind];

/**
 * Each deadline as a reader sees it at `now`: met once met (late or not), paused while the report
 * waits in needs_more_info (the promises only), breached from its due time until met, else pending;
 * none without a due time. The law's three are there only while the report is actively exploited.
 */
export function deadlinesAt(
  due: DueTimes,
  met: MetTimes,
  triageState: TriageState,
  now: number,
  exploited: boolean,
): Record<PromiseKind, Deadline> & Partial<Record<CraKind, Deadline>> {
  const one = (kind: DeadlineKind): Deadline => {
    const dueMs = due[kind];
    const metTime = metAt(kind, met);
    if (dueMs === null) return { due_at: null, met_at: metTime, state: "none" };
    const dueAt = new Date(dueMs).toISOString();
    if (metTime) return { due_at: dueAt, met_at: metTime, state: "met" };
    if (triageState === "needs_more_info" && isPromise(kind)) return { due_at: dueAt, met_at: null, state: "paused" };
    return { due_at: dueAt, met_at: null, state: now >= dueMs ? "breached" : "pending" };
  };
  const kinds = exploited ? DEADLINE_KINDS : PROMISE_KINDS;
  return Object.fromEntries(kinds.map((k) => [k, one(k)])) as Record<PromiseKind, Deadline> & Partial<Record<CraKind, Deadline>>;
}

/** A pause of `pausedFor` ms ends: every promise still pending moves later by it; met ones, and the law's, keep their time. */
export function resumed(due: DueTimes, met: MetTimes, pausedFor: number): DueTimes {
  const shift = (kind: DeadlineKind) => (!isPromise(kind) || due[kind] === null || metAt(kind, met) ? due[kind] : due[kind]! + pausedFor);
  return Object.fromEntries(DEADLINE_KINDS.map((k) => [k, shift(k)])) as DueTimes;
}

export type AlertKind = "approaching" | "breached";
/** An alert the cron sends: `kind`'s deadline, due at `dueMs`. */
export interface Alert {
  deadline: DeadlineKind;
  alert: AlertKind;
  dueMs: number;
}

/** What the cron needs of a report to know its alerts. */
export interface AlertView {
  due: DueTimes;
  met: MetTimes;
  triageState: TriageState;
  targets: VulnTargets;
  severity: Severity | null;
}

/** The deadlines still running (not met, not paused, with a due time), each with its due time and when it approaches. */
function running(v: AlertView): { deadline: DeadlineKind; dueMs: number; approachingMs: number }[] {
  return DEADLINE_KINDS.flatMap((deadline) => {
    if (v.triageState === "needs_more_info" && isPromise(deadline)) return [];
    const dueMs = v.due[deadline];
    const window = windowOf(deadline, v.targets, v.severity);
    if (dueMs === null || window === null || metAt(deadline, v.met)) return [];
    // 80 % of the window has passed.
    return [{ deadline, dueMs, approachingMs: dueMs - Math.round(window / 5) }];
  });
}

export const alertKey = (a: Pick<Alert, "deadline" | "alert">) => `${a.deadline}:${a.alert}`;

/**
 * The alerts due at `now` that were not sent yet, and when to look again: approaching once 80 % of a
 * running deadline's window has passed while it is still pending (a deadline first seen breached only
 * breaches), breached from its due time. `sent` holds "deadline:alert" keys.
 */
export function alertsAt(v: AlertView, sent: ReadonlySet<string>, now: number): { due: Alert[]; nextMs: number | null; overdue: boolean } {
  const due: Alert[] = [];
  const later: number[] = [];
  for (const d of running(v)) {
    // Every due time still ahead is a time to look again: the report turns overdue then, alert or not.
    if (d.dueMs > now) later.push(d.dueMs);
    const breached = { deadline: d.deadline, alert: "breached" as const, dueMs: d.dueMs };
    const approaching = { deadline: d.deadline, alert: "approaching" as const, dueMs: d.dueMs };
    if (!sent.has(alertKey(breached))) now >= d.dueMs ? due.push(breached) : later.push(d.dueMs);
    if (!sent.has(alertKey(approaching)) && now < d.dueMs) now >= d.approachingMs ? due.push(approaching) : later.push(d.approachingMs);
  }
  return { due, nextMs: later.length ? Math.min(...later) : null, overdue: isOverdue(v, now) };
}

/** Whether a running deadline (not met, not paused) is past its due time at `now`. */
export function isOverdue(v: AlertView, now: number): boolean {
  return running(v).some((d) => d.dueMs <= now);
}

/** When the cron should look at a report after a change that did not read its alerts: never later than an alert. */
export function nextLookMs(v: AlertView): number | null {
  const times = running(v).flatMap((d) => [d.approachingMs, d.dueMs]);
  return times.length ? Math.min(...times) : null;
}
