import type { Severity, TriageState } from "../db/schema";
import { type Deadline, type DeadlineKind, deadlinesAt, dueOf, metOf } from "../lib/deadlines";
import type { VulnRecord } from "../services/vulns/types";

// What the console says of a report's states, for the people who triage it: every state in words
// (a badge's colour only repeats them).

export const TRIAGE_LABELS: Record<TriageState, string> = {
  new: "New",
  triaged: "Triaged",
  needs_more_info: "Needs more information",
  resolved: "Resolved",
  duplicate: "Duplicate",
  informative: "Informative",
  not_applicable: "Not applicable",
  spam: "Spam",
  accepted_risk: "Risk accepted",
};

export const SEVERITY_LABELS: Record<Severity, string> = {
  critical: "Critical",
  high: "High",
  medium: "Medium",
  low: "Low",
  none: "None",
};

export const DEADLINE_LABELS: Record<DeadlineKind, string> = {
  acknowledge: "Acknowledge",
  triage: "Triage",
  resolve: "Resolve",
  disclosure: "Disclose",
  cra_early_warning: "CRA early warning",
  cra_notification: "CRA notification",
  cra_final_report: "CRA final report",
};

/** A span of time in the largest whole unit a reader needs: "3 days", "5 hours", "12 minutes". */
export function span(ms: number): string {
  const minutes = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  const [n, unit] =
    minutes >= 2 * 1440 ? [Math.floor(minutes / 1440), "day"] : minutes >= 120 ? [Math.floor(minutes / 60), "hour"] : [minutes, "minute"];
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** Each deadline of a report as it stands at `now`. */
export const deadlinesOf = (v: VulnRecord, now: number): [DeadlineKind, Deadline][] =>
  Object.entries(deadlinesAt(dueOf(v), metOf(v), v.triageState, now, v.activelyExploited)) as [DeadlineKind, Deadline][];

export interface NextDeadline {
  kind: DeadlineKind;
  dueAt: string;
  /** "overdue" once past, "soon" within a day, else "later". */
  urgency: "overdue" | "soon" | "later";
  words: string;
}

/** The report's earliest deadline still running (neither met nor paused), in words; null when none runs. */
export function nextDeadline(v: VulnRecord, now: number): NextDeadline | null {
  const running = deadlinesOf(v, now)
    .filter(([, d]) => d.due_at && (d.state === "pending" || d.state === "breached"))
    .sort(([, a], [, b]) => Date.parse(a.due_at!) - Date.parse(b.due_at!));
  const first = running[0];
  if (!first) return null;
  const [kind, d] = first;
  const left = Date.parse(d.due_at!) - now;
  const urgency = left <= 0 ? "overdue" : left <= 24 * 3_600_000 ? "soon" : "later";
  const words = left <= 0 ? `${DEADLINE_LABELS[kind]}: overdue by ${span(left)}` : `${DEADLINE_LABELS[kind]}: due in ${span(left)}`;
  return { kind, dueAt: d.due_at!, urgency, words };
}
