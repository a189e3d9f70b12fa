import type { AiUse, Closer, Evidence, ProcessingState, Severity, TriageState, VulnRow } from "../../db/schema";
import type { CvssRating } from "../../lib/cvss";

export interface VulnInput {
  title: string;
  description: string;
  contact_email?: string | null;
  domains?: string[];
  tags?: string[];
  severity?: Severity | null;
  /** The vector, already parsed and scored (null clears it). */
  cvss_vector?: CvssRating | null;
  cwe_ids?: string[];
  /** Under attack (the Cyber Resilience Act's clock runs); false stops it. */
  actively_exploited?: boolean;
  /** Since when the organization knows it is exploited: by default the moment it is flagged; never in the future. */
  exploitation_known_at?: string | null;
  /** A reporter's own submission: e-mail them about the report (default true with a contact_email). */
  notify_me?: boolean;
  /** The evidence the brief asks for, by field, and how AI was used. */
  evidence?: Evidence;
  ai_use?: AiUse | null;
}

/** A PATCH: every member optional (left out: unchanged), plus the states and a duplicate's original. */
export interface VulnUpdate extends Partial<VulnInput> {
  briefId?: string;
  processing_state?: ProcessingState;
  triage_state?: TriageState;
  /** The member the report is assigned to (null: nobody): a joined member of the vuln's organization. */
  assigneeId?: string | null;
  /** The original's id as sent (null: none); resolved to the original's original by updateVulns. */
  duplicateOf?: string | null;
  /** Who makes a move to a closed state: the organization unless the cron closes an unanswered request. */
  closer?: Closer;
}

/** The columns a record leaves out: sort keys SQLite computes, and what `last_activity_*` and `read_at` read through. */
export type Internal =
  | "cvssRankDesc"
  | "cvssRankAsc"
  | "severityRankDesc"
  | "severityRankAsc"
  | "activityAt"
  | "activityBy"
  | "unread"
  | "nextDueMs"
  | "nextDueAsc"
  | "nextDueDesc"
  | "possibleDuplicate";

/** A reporter key's record with the report's organization: its reports and how they ended. */
export type KeyRecord = { reports: number; valid: number; spam: number; not_applicable: number; duplicate: number };

/** A vuln with the values of its domain assets, and its reporter key's record (null: not signed). */
export type VulnRecord = Omit<VulnRow, Internal> & { domains: string[]; keyRecord: KeyRecord | null };

/** The gate's columns of a report that did not come through it (the organization's own entry), or before it decides. */
export const UNGATED = {
  gate: "not_required",
  evidence: {},
  evidenceComplete: true,
  aiUse: null,
  reporterKey: null,
  admittedDay: null,
  releaseExpectedOn: null,
  possibleDuplicateOfId: null,
  possibleDuplicateScore: null,
} as const satisfies Partial<VulnRow>;
