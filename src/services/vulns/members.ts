import type { MetTimes } from "../../lib/deadlines";
import { severityOf } from "../../lib/cvss";
import type { VulnInput, VulnRecord } from "./types";
import { attribute, type Member } from "../../lib/domain-errors";

/**
 * A refusal of one change, pure: the member it is at (an attribute, the duplicate_of relationship) and
 * why. The service places it in its request (`placed`: which resource of a bulk change) and throws it.
 */
export interface Problem {
  member: Member;
  detail: string;
}

/** A member of the `item`-th resource of a request naming several (undefined: the request's one resource). */
export const placed = (member: Member, item: number | undefined): Member => (item === undefined ? member : { ...member, item });

export const unique = (values: string[] | undefined): string[] => [...new Set(values ?? [])];

export const NOTHING_MET: MetTimes = {
  acknowledgedAt: null,
  triagedAt: null,
  closedAt: null,
  disclosedAt: null,
  filed: { cra_early_warning: null, cra_notification: null, cra_final_report: null },
};

export type Triage = Pick<VulnRecord, "severity" | "cvssVector" | "cvssScore" | "cvssVersion" | "cweIds">;
export type Exploitation = Pick<VulnRecord, "activelyExploited" | "exploitationKnownAt">;

/**
 * Whether a report is actively exploited, and since when that is known, after a create or an update:
 * flagged without a time, the moment it is flagged (a report already flagged keeps its time); a time
 * is given only with the flag, and never later than now. Unflagged, it has none. A refused member
 * leaves the report as it was, with the problem.
 */
export function exploitationOf(
  input: Partial<VulnInput>,
  existing: Exploitation | undefined,
  now: string,
): { value: Exploitation; problem?: Problem } {
  const unchanged = { activelyExploited: existing?.activelyExploited ?? false, exploitationKnownAt: existing?.exploitationKnownAt ?? null };
  const refused = (detail: string) => ({ value: unchanged, problem: { member: attribute("exploitation_known_at"), detail } });
  const exploited = input.actively_exploited ?? existing?.activelyExploited ?? false;
  const given = input.exploitation_known_at;
  if (!exploited) {
    if (given) return refused("only an actively exploited vuln has one: set actively_exploited to true with it.");
    return { value: { activelyExploited: false, exploitationKnownAt: null } };
  }
  if (given === null) return refused("an actively exploited vuln has one: leave it out to keep it, or set actively_exploited to false.");
  if (given && Date.parse(given) > Date.parse(now)) return refused("must not be in the future.");
  const kept = existing?.activelyExploited ? existing.exploitationKnownAt : null;
  return { value: { activelyExploited: true, exploitationKnownAt: given ? new Date(given).toISOString() : (kept ?? now) } };
}

/**
 * The triage columns after a create or an update. A member left out keeps its value (`existing`;
 * nothing on create), null clears it. A vector given without a severity sets the severity to the
 * score's qualitative rating; a severity given with it wins, as an analyst's judgement may.
 */
export function triageOf(input: Partial<VulnInput>, existing?: Triage): Triage {
  const rating = input.cvss_vector;
  const cvss =
    rating === undefined
      ? { cvssVector: existing?.cvssVector ?? null, cvssScore: existing?.cvssScore ?? null, cvssVersion: existing?.cvssVersion ?? null }
      : { cvssVector: rating?.vector ?? null, cvssScore: rating?.score ?? null, cvssVersion: rating?.version ?? null };
  const severity = input.severity !== undefined ? input.severity : rating ? severityOf(rating.score) : (existing?.severity ?? null);
  return { ...cvss, severity, cweIds: input.cwe_ids === undefined ? (existing?.cweIds ?? []) : unique(input.cwe_ids) };
}
