// What a policy promises a reporter, kept in a file of its own: both policies and vulns store it.

export const SEVERITIES = ["none", "low", "medium", "high", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * What an organization promises a reporter, per policy: hours to acknowledge and to triage a report,
 * days to resolve it by severity. Calendar time. A policy that says nothing promises the defaults.
 */
export interface ResponseTargets {
  acknowledge_hours: number;
  triage_hours: number;
  resolve_days: Record<Severity, number>;
}

export const DEFAULT_RESPONSE_TARGETS: ResponseTargets = {
  acknowledge_hours: 72,
  triage_hours: 240,
  resolve_days: { critical: 15, high: 30, medium: 60, low: 90, none: 90 },
};

/** The promises a report keeps from the policy in force when it came in: the targets and the disclosure timeline. */
export interface VulnTargets extends ResponseTargets {
  /** The policy's cvd_timeline, in days; null when it has none. */
  disclosure_days: number | null;
}
