import { type Closer, NO_DISCLOSURE_STATES, processingStateOf, type TriageState } from "../../db/schema";
import { type AlertView, craDueTimes, dueColumns, dueOf, dueTimes, isOverdue, metOf, nextLookMs, resumed } from "../../lib/deadlines";
import { type Exploitation, exploitationOf, type Problem, triageOf, unique } from "./members";
import { movedKeyRecord } from "./key-record";
import type { VulnRecord, VulnUpdate } from "./types";
import { attribute, relationship } from "../../lib/domain-errors";

/** An event a change fires, with what its body needs beyond the vuln as the change leaves it. */
export type VulnChangeEvent =
  | { type: "Vuln::Updated" }
  | { type: "Vuln::Processing::Closed" }
  | { type: "Vuln::Processing::Reopened" }
  | { type: "Vuln::Triage::Changed"; previous: TriageState };

/** What a change of one vuln does, decided without the database. */
export interface VulnDecision {
  /** The vuln as the change leaves it (`existing` itself when nothing changes). */
  next: VulnRecord;
  /** Whether anything changes: when nothing does, nothing is written and nothing fires. */
  changed: boolean;
  domainsChanged: boolean;
  /** The report closed or reopened: the organization's activity, which the reporter's page shows. */
  answered: boolean;
  /** In the order they fire. */
  events: VulnChangeEvent[];
  /** The change's refusals, in the order they are told; any refuses the whole change. */
  problems: Problem[];
}

const owesNoDisclosure = (state: TriageState) => (NO_DISCLOSURE_STATES as readonly string[]).includes(state);

/**
 * The triage state a PATCH asks for: triage_state as given; else processing_state alone, where
 * closed means resolved and open goes back to triaged (if the report ever was) or new.
 */
export function requestedTriageState(existing: VulnRecord, input: VulnUpdate): TriageState {
  if (input.triage_state) return input.triage_state;
  if (!input.processing_state || input.processing_state === existing.processingState) return existing.triageState;
  return input.processing_state === "closed" ? "resolved" : existing.triagedAt ? "triaged" : "new";
}

/** The original a change leaves its vuln pointing at: the one named, else the one it had; null unless a duplicate. */
export function namedOriginal(existing: VulnRecord, input: VulnUpdate): string | null {
  if (requestedTriageState(existing, input) !== "duplicate") return null;
  return (input.duplicateOf === undefined ? existing.duplicateOfId : input.duplicateOf) ?? null;
}

/** The relationship a duplicate names its original by (the relationship object itself). */
export const DUPLICATE_OF = relationship("duplicate_of", { whole: true });

/**
 * The refusals of a move that need no read: both states in one change must agree, only a duplicate
 * names an original, and a duplicate names one. (Whether the original exists, and is no loop, is read.)
 */
export function moveProblems(existing: VulnRecord, input: VulnUpdate): Problem[] {
  if (input.triage_state && input.processing_state && processingStateOf(input.triage_state) !== input.processing_state) {
    const detail = `processing_state must be ${processingStateOf(input.triage_state)} with triage_state ${input.triage_state} (or left out).`;
    return [{ member: attribute("processing_state"), detail }];
  }
  const duplicate = requestedTriageState(existing, input) === "duplicate";
  const member = DUPLICATE_OF;
  if (!duplicate && input.duplicateOf)
    return [{ member, detail: "only a duplicate has an original: set triage_state to duplicate with it." }];
  if (duplicate && !namedOriginal(existing, input)) return [{ member, detail: "a duplicate names its original: give duplicate_of." }];
  return [];
}

type TriageColumns = Pick<
  VulnRecord,
  | "triageState"
  | "processingState"
  | "duplicateOfId"
  | "infoRequestedFrom"
  | "infoRequestedAt"
  | "acknowledgedAt"
  | "triagedAt"
  | "closedAt"
  | "closedBy"
>;

/** The triage columns after a move to `state` (with `duplicateOf`, already resolved) at `now`. */
function triageMove(
  existing: VulnRecord,
  { state, duplicateOf, closer }: { state: TriageState; duplicateOf: string | null; closer: Closer },
  now: string,
): TriageColumns {
  if (state === existing.triageState && duplicateOf === existing.duplicateOfId) return existing;
  const moved = state !== existing.triageState;
  const closed = processingStateOf(state) === "closed";
  return {
    triageState: state,
    processingState: processingStateOf(state),
    duplicateOfId: state === "duplicate" ? duplicateOf : null,
    infoRequestedFrom: state === "needs_more_info" ? (moved ? existing.triageState : existing.infoRequestedFrom) : null,
    infoRequestedAt: state === "needs_more_info" ? (moved ? now : existing.infoRequestedAt) : null,
    acknowledgedAt: existing.acknowledgedAt ?? (existing.triageState === "new" && moved ? now : null),
    triagedAt: existing.triagedAt ?? (state === "triaged" ? now : null),
    closedAt: closed ? (moved ? now : existing.closedAt) : null,
    closedBy: closed ? (moved ? closer : existing.closedBy) : null,
  };
}

/** What the cron reads of a report to know its deadline alerts. */
export const alertView = (v: VulnRecord): AlertView => ({
  due: dueOf(v),
  met: metOf(v),
  triageState: v.triageState,
  targets: v.targets,
  severity: v.severity,
});

/**
 * The due times after a change: leaving needs_more_info moves every promise still pending later by
 * the time spent there (and adds it to paused_ms); a new severity gives a new resolve deadline; the
 * law's follow the exploitation and the fix (craDueTimes).
 */
function duesAfter(existing: VulnRecord, next: VulnRecord, now: string) {
  let due = dueOf(existing);
  let pausedMs = existing.pausedMs;
  if (existing.triageState === "needs_more_info" && next.triageState !== "needs_more_info" && existing.infoRequestedAt) {
    const pausedFor = Math.max(0, Date.parse(now) - Date.parse(existing.infoRequestedAt));
    due = resumed(due, metOf(existing), pausedFor);
    pausedMs += pausedFor;
  }
  if (next.severity !== existing.severity) {
    due = { ...due, resolve: dueTimes(existing.targets, Date.parse(existing.createdAt), next.severity, pausedMs).resolve };
  }
  // Junk owes the world no disclosure; reopened (or closed otherwise), the clock from its arrival is back.
  if (owesNoDisclosure(next.triageState)) due = { ...due, disclosure: null };
  else if (owesNoDisclosure(existing.triageState)) {
    due = { ...due, disclosure: dueTimes(existing.targets, Date.parse(existing.createdAt), next.severity, pausedMs).disclosure };
  }
  return { ...dueColumns({ ...due, ...craDueTimes(next) }), pausedMs };
}

/** The vuln with the change's members applied and its deadlines recomputed; updatedAt, revision and activity not yet moved. */
function applied(existing: VulnRecord, { change, exploitation }: { change: VulnUpdate; exploitation: Exploitation }, now: string) {
  const duplicateOf = change.duplicateOf === undefined ? existing.duplicateOfId : change.duplicateOf;
  const state = requestedTriageState(existing, change);
  const next: VulnRecord = {
    ...existing,
    ...triageMove(existing, { state, duplicateOf, closer: change.closer ?? "organization" }, now),
    title: change.title ?? existing.title,
    description: change.description ?? existing.description,
    briefId: change.briefId ?? existing.briefId,
    assigneeId: change.assigneeId === undefined ? existing.assigneeId : change.assigneeId,
    contactEmail: change.contact_email === undefined ? existing.contactEmail : change.contact_email,
    tags: change.tags === undefined ? existing.tags : unique(change.tags),
    domains: change.domains === undefined ? existing.domains : unique(change.domains).sort(),
    ...triageOf(change, existing),
    ...exploitation,
  };
  Object.assign(next, duesAfter(existing, next, now));
  next.nextAlertMs = nextLookMs(alertView(next));
  next.overdue = isOverdue(alertView(next), Date.parse(now)) ? 1 : 0;
  return next;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join("\u0000") === [...b].sort().join("\u0000");
const sameList = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b);

/** The columns whose change is a change of the vuln (what follows from them, deadlines and alerts, is not on its own). */
const COMPARED = [
  "title",
  "description",
  "briefId",
  "assigneeId",
  "contactEmail",
  "triageState",
  "duplicateOfId",
  "severity",
  "cvssVector",
  "cvssScore",
  "cvssVersion",
  "activelyExploited",
  "exploitationKnownAt",
  // A close or reopen of an exploited report starts or stops the final report's clock.
  "craFinalReportDueMs",
] as const;

const differs = (existing: VulnRecord, next: VulnRecord) =>
  COMPARED.some((k) => next[k] !== existing[k]) || !sameList(next.tags, existing.tags) || !sameList(next.cweIds, existing.cweIds);

/** The events of a change, in the order they fire: always Vuln::Updated, then a close or reopen, then a triage move. */
function eventsOf(existing: VulnRecord, next: VulnRecord): VulnChangeEvent[] {
  const events: VulnChangeEvent[] = [{ type: "Vuln::Updated" }];
  if (next.processingState !== existing.processingState)
    events.push({ type: next.processingState === "closed" ? "Vuln::Processing::Closed" : "Vuln::Processing::Reopened" });
  if (next.triageState !== existing.triageState || next.duplicateOfId !== existing.duplicateOfId)
    events.push({ type: "Vuln::Triage::Changed", previous: existing.triageState });
  return events;
}

/**
 * Decides one change of a vuln, pure (no database, no clock of its own): the vuln as the change leaves
 * it at `now` (states, the times that met a deadline, due times, pauses, the cron's next look), the
 * events it fires, and what refuses it. `change.duplicateOf` is the original already resolved (a
 * duplicate of a duplicate names the first's original, which takes a read). The service turns the
 * decision into statements; a race between the read and the write is the statements' to answer.
 */
export function nextVuln(existing: VulnRecord, change: VulnUpdate, now: string): VulnDecision {
  const exploitation = exploitationOf(change, existing, now);
  const problems = [...moveProblems(existing, change), ...(exploitation.problem ? [exploitation.problem] : [])];
  const next = applied(existing, { change, exploitation: exploitation.value }, now);
  const domainsChanged = !sameSet(next.domains, existing.domains);
  if (!domainsChanged && !differs(existing, next))
    return { next: existing, changed: false, domainsChanged, answered: false, events: [], problems };
  const answered = next.processingState !== existing.processingState;
  next.updatedAt = now;
  next.revision = existing.revision + 1;
  // The key's record as the update's statement (its trigger, migration 0041) leaves it.
  next.keyRecord = movedKeyRecord(existing.keyRecord, existing.triageState, next.triageState);
  // Closing or reopening is said to the reporter (their page shows it): the organization's activity.
  if (answered) Object.assign(next, { lastActivityAt: now, lastActivityBy: "organization" });
  return { next, changed: true, domainsChanged, answered, events: eventsOf(existing, next), problems };
}
