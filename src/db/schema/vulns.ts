import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { assets } from "./assets";
import { briefs, type EvidenceField } from "./briefs";
import { timestamps } from "./columns";
import { DEFAULT_RESPONSE_TARGETS, SEVERITIES, type VulnTargets } from "./promises";

export { DEFAULT_RESPONSE_TARGETS, type ResponseTargets, SEVERITIES, type Severity, type VulnTargets } from "./promises";
import { organizations } from "./organizations";

/** queued: held by its brief's daily cap until the cron (or the owner) admits it; it owes nothing until then. */
export const INBOX_STATES = ["dispatching", "received", "stored", "queued"] as const;
/** How a public submission passed the gate: a valid proof of work or a good key, none, or none asked. */
export const GATES = ["verified", "unverified", "not_required"] as const;
export type Gate = (typeof GATES)[number];
export const AI_USE_LEVELS = ["none", "writing", "discovery", "generated"] as const;
/** What a reporter says of AI in the report. */
export type AiUse = { level: (typeof AI_USE_LEVELS)[number]; tools: string; verified_by_reporter: boolean };
/** The evidence fields a reporter filled, by name. */
export type Evidence = Partial<Record<EvidenceField, string>>;
export const PROCESSING_STATES = ["open", "closed"] as const;
/** Where a report stands in triage: three open states, then six closed ones. processing_state follows it. */
export const OPEN_TRIAGE_STATES = ["new", "triaged", "needs_more_info"] as const;
export const CLOSED_TRIAGE_STATES = ["resolved", "duplicate", "informative", "not_applicable", "spam", "accepted_risk"] as const;
export const TRIAGE_STATES = [...OPEN_TRIAGE_STATES, ...CLOSED_TRIAGE_STATES] as const;
/** Closed as not a vulnerability of the organization's: nothing is owed the world, so no disclosure deadline runs. */
export const NO_DISCLOSURE_STATES = ["duplicate", "informative", "not_applicable", "spam"] as const;
/** Who closed a report last: the organization, or the cron when a request for information went unanswered. */
export const CLOSERS = ["organization", "timeout"] as const;
export const CVSS_VERSIONS = ["3.0", "3.1", "4.0"] as const;
/** Who spoke last on a report: its reporter or its organization. */
export const ACTIVITY_SIDES = ["organization", "reporter"] as const;
export type InboxState = (typeof INBOX_STATES)[number];
export type CvssVersion = (typeof CVSS_VERSIONS)[number];
export type ProcessingState = (typeof PROCESSING_STATES)[number];
export type ActivitySide = (typeof ACTIVITY_SIDES)[number];
export type TriageState = (typeof TRIAGE_STATES)[number];
export type Closer = (typeof CLOSERS)[number];

/** The processing state a triage state means: open in an open state, closed in a closed one. */
export const processingStateOf = (state: TriageState): ProcessingState =>
  (OPEN_TRIAGE_STATES as readonly string[]).includes(state) ? "open" : "closed";

/** The organization's promises (paused in needs_more_info), then the Cyber Resilience Act's filings (never paused). */
export const PROMISE_KIND_NAMES = ["acknowledge", "triage", "resolve", "disclosure"] as const;
export const CRA_KIND_NAMES = ["cra_early_warning", "cra_notification", "cra_final_report"] as const;
export const DEADLINE_KIND_NAMES = [...PROMISE_KIND_NAMES, ...CRA_KIND_NAMES] as const;
export const DEADLINE_ALERTS = ["approaching", "breached"] as const;

/** Year 9999: later than any due time, so "none" sorts last going up. */
export const FAR_FUTURE_MS = 253_402_300_799_999;
const DEFAULT_VULN_TARGETS: VulnTargets = { ...DEFAULT_RESPONSE_TARGETS, disclosure_days: null };
// A due time still running: null once met (the disclosure deadline is met by an advisory, not yet kept here).
const running = (due: string, metBy: string) => `coalesce(CASE WHEN ${metBy} THEN NULL ELSE ${due} END, ${FAR_FUTURE_MS})`;
// The promises wait while the report does (needs_more_info); the law's filings never do.
const NEXT_DUE = sql.raw(
  `nullif(min(CASE WHEN triage_state = 'needs_more_info' THEN ${FAR_FUTURE_MS} ELSE min(${[
    running("acknowledge_due_ms", "acknowledged_at IS NOT NULL"),
    running("triage_due_ms", "triaged_at IS NOT NULL OR closed_at IS NOT NULL"),
    running("resolve_due_ms", "closed_at IS NOT NULL"),
    running("disclosure_due_ms", "disclosed_at IS NOT NULL"),
  ].join(", ")}) END, ${[
    running("cra_early_warning_due_ms", "cra_early_warning_met_at IS NOT NULL"),
    running("cra_notification_due_ms", "cra_notification_met_at IS NOT NULL"),
    running("cra_final_report_due_ms", "cra_final_report_met_at IS NOT NULL"),
  ].join(", ")}), ${FAR_FUTURE_MS})`,
);

/** The submission exactly as received, kept on the vuln at create and never written again. */
export type Submission = {
  title: string;
  description: string;
  contact_email: string | null;
  domains: string[];
  received_at: string;
  /** Only when sent, so a record made before the gate keeps its hash. */
  evidence?: Evidence;
  ai_use?: AiUse;
};

export const vulns = sqliteTable(
  "vulns",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    // A report outlives the brief it came through: deleting the brief detaches it.
    briefId: text("brief_id").references(() => briefs.id, { onDelete: "set null" }),
    shortcode: text("shortcode").notNull().unique(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    contactEmail: text("contact_email"),
    // Whether the reporter is e-mailed about the report (notify_me with a contact_email), until they unsubscribe.
    notifyReporter: integer("notify_reporter", { mode: "boolean" }).notNull().default(false),
    reporterUnsubscribedAt: text("reporter_unsubscribed_at"),
    // The name the reporter asks to be credited by, and whether they consent to it: an advisory may
    // credit them only while both hold.
    creditName: text("credit_name"),
    creditConsent: integer("credit_consent", { mode: "boolean" }).notNull().default(false),
    // The version of the brief's policy in force when the report came in (null: no policy, or one not
    // versioned yet), set once at creation; its number and hash stay if the policy goes.
    policyVersionId: text("policy_version_id"),
    policyVersionNumber: integer("policy_version_number"),
    policyVersionSha256: text("policy_version_sha256"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    inboxState: text("inbox_state", { enum: INBOX_STATES }).notNull(),
    // Written with triage_state, always as processingStateOf(triage_state) says (migration 0019 backfilled it).
    processingState: text("processing_state", { enum: PROCESSING_STATES }).notNull(),
    triageState: text("triage_state", { enum: TRIAGE_STATES }).notNull().default("new"),
    // The original this report duplicates (another of the organization's, never itself nor a duplicate).
    // No foreign key (SQLite cannot add one with ON DELETE to a table): a trigger clears it when the
    // original is deleted (migration 0019), and writes name only an original that exists.
    duplicateOfId: text("duplicate_of_id"),
    // While needs_more_info: the state the reporter's answer returns the report to, and since when it waits.
    infoRequestedFrom: text("info_requested_from", { enum: TRIAGE_STATES }),
    infoRequestedAt: text("info_requested_at"),
    // The first organization comment the reporter can read or the first move out of new (set by a
    // trigger on comments too, migration 0019), the first move to triaged, the last close.
    acknowledgedAt: text("acknowledged_at"),
    triagedAt: text("triaged_at"),
    closedAt: text("closed_at"),
    closedBy: text("closed_by", { enum: CLOSERS }),
    // The first publication of an advisory naming this report: it meets the disclosure deadline.
    disclosedAt: text("disclosed_at"),
    // The promises kept from the policy in force when the report came in (lib/deadlines.ts), and the
    // due times they give, in epoch milliseconds (null: none), moved later by every pause in
    // needs_more_info (paused_ms is the total so far).
    targets: text("targets", { mode: "json" })
      .$type<VulnTargets>()
      .notNull()
      .default(sql`'${sql.raw(JSON.stringify(DEFAULT_VULN_TARGETS))}'`),
    acknowledgeDueMs: integer("acknowledge_due_ms"),
    triageDueMs: integer("triage_due_ms"),
    resolveDueMs: integer("resolve_due_ms"),
    disclosureDueMs: integer("disclosure_due_ms"),
    pausedMs: integer("paused_ms").notNull().default(0),
    // Actively exploited (the EU Cyber Resilience Act's clock): since when the organization knows it,
    // the three filings' due times (null while not exploited; the final report's until a fix is out,
    // closed as resolved) and when each was first met by a filing (regulatory_reports). These never pause.
    activelyExploited: integer("actively_exploited", { mode: "boolean" }).notNull().default(false),
    exploitationKnownAt: text("exploitation_known_at"),
    craEarlyWarningDueMs: integer("cra_early_warning_due_ms"),
    craNotificationDueMs: integer("cra_notification_due_ms"),
    craFinalReportDueMs: integer("cra_final_report_due_ms"),
    craEarlyWarningMetAt: text("cra_early_warning_met_at"),
    craNotificationMetAt: text("cra_notification_met_at"),
    craFinalReportMetAt: text("cra_final_report_met_at"),
    // When the cron should next look at this report's deadlines (an alert may be due then); never
    // later than the truth, sometimes earlier: the cron then finds nothing to send and sets it again.
    nextAlertMs: integer("next_alert_ms"),
    // 1 while a running deadline is past due, as the last change or the cron's last look saw it (the
    // cron looks at every due time, so within a minute of it): q[overdue_eq] reads it on an index, and
    // its per-state counters give the exact total.
    overdue: integer("overdue").notNull().default(0),
    // The earliest due time still running (not met, not paused): what q[overdue_eq] and
    // sort=next_due_at read, on an index. Computed by SQLite from the columns above.
    nextDueMs: integer("next_due_ms").generatedAlwaysAs(NEXT_DUE, { mode: "virtual" }),
    nextDueAsc: integer("next_due_asc").generatedAlwaysAs(sql`coalesce(${NEXT_DUE}, ${sql.raw(String(FAR_FUTURE_MS))})`, {
      mode: "virtual",
    }),
    nextDueDesc: integer("next_due_desc").generatedAlwaysAs(sql`coalesce(${NEXT_DUE}, -1)`, { mode: "virtual" }),
    readAt: text("read_at"),
    // The member the report is assigned to, or null. No foreign key (SQLite cannot add one with ON
    // DELETE to a table): removing a member unassigns their reports in the same batch (services/members.ts),
    // and writes name only a member of the report's own organization.
    assigneeId: text("assignee_id"),
    // Triage, the organization's own judgement: none of it is in the webhook body.
    severity: text("severity", { enum: SEVERITIES }),
    cvssVector: text("cvss_vector"),
    cvssScore: real("cvss_score"),
    cvssVersion: text("cvss_version", { enum: CVSS_VERSIONS }),
    cweIds: text("cwe_ids", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    // Sort keys for `cvss_score` with the unscored last in both directions: whole tenths (a cursor
    // holds integers) with null as -1 going down and 101 going up. Computed by SQLite, so no write
    // path can forget them, and indexed like the timestamps.
    cvssRankDesc: integer("cvss_rank_desc").generatedAlwaysAs(sql`coalesce(cast(round(cvss_score * 10) as integer), -1)`, {
      mode: "virtual",
    }),
    cvssRankAsc: integer("cvss_rank_asc").generatedAlwaysAs(sql`coalesce(cast(round(cvss_score * 10) as integer), 101)`, {
      mode: "virtual",
    }),
    // Sort keys for `severity`, likewise: going down critical (4) to low (1), then none (0), then
    // unrated (-1); going up low (1) to critical (4), then none (5), then unrated (6).
    severityRankDesc: integer("severity_rank_desc").generatedAlwaysAs(
      sql`CASE severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 WHEN 'none' THEN 0 ELSE -1 END`,
      { mode: "virtual" },
    ),
    severityRankAsc: integer("severity_rank_asc").generatedAlwaysAs(
      sql`CASE severity WHEN 'low' THEN 1 WHEN 'medium' THEN 2 WHEN 'high' THEN 3 WHEN 'critical' THEN 4 WHEN 'none' THEN 5 ELSE 6 END`,
      { mode: "virtual" },
    ),
    // The last thing one side said to the other after the report itself: a reporter-visible comment
    // or a file (set by triggers on comments and attachments, migration 0015, so no door can forget
    // it) or the organization closing or reopening the report (updateVuln). Internal notes and triage
    // edits are not activity. Null until then; the `last_activity_*` columns below read through it.
    activityAt: text("activity_at"),
    activityBy: text("activity_by", { enum: ACTIVITY_SIDES }),
    // The report itself is its first activity: by its reporter when it came with a follow-up token
    // (through a brief), by the organization when it entered it through the API.
    lastActivityAt: text("last_activity_at").notNull().generatedAlwaysAs(sql`coalesce(activity_at, created_at)`, { mode: "virtual" }),
    lastActivityBy: text("last_activity_by", { enum: ACTIVITY_SIDES })
      .notNull()
      .generatedAlwaysAs(sql`coalesce(activity_by, CASE WHEN follow_up_token_hash IS NULL THEN 'organization' ELSE 'reporter' END)`, {
        mode: "virtual",
      }),
    // 1 until the organization first reads the report (`read_at`), for q[read_eq] on an index.
    unread: integer("unread").notNull().generatedAlwaysAs(sql`read_at IS NULL`, { mode: "virtual" }),
    // Bumped by every edit of what the organization owns (not by intake): PATCH guards on it.
    revision: integer("revision").notNull().default(0),
    submission: text("submission", { mode: "json" }).$type<Submission>().notNull(),
    // SHA-256 (hex) of the reporter's follow-up token, for public submissions only; the token itself
    // is shown once, in the submission's answer. Going with the row, it stops working with the vuln.
    followUpTokenHash: text("follow_up_token_hash").unique(),
    // The gate (public submissions): how it passed, the evidence and AI use it brought (against its
    // brief's requirements then), the reporter key's RFC 7638 thumbprint if signed.
    gate: text("gate", { enum: GATES }).notNull().default("not_required"),
    evidence: text("evidence", { mode: "json" }).$type<Evidence>().notNull().default(sql`'{}'`),
    evidenceComplete: integer("evidence_complete", { mode: "boolean" }).notNull().default(true),
    aiUse: text("ai_use", { mode: "json" }).$type<AiUse>(),
    reporterKey: text("reporter_key"),
    // The UTC day (YYYY-MM-DD) a capped brief admitted the report: the cap counts these. Null without a cap.
    admittedDay: text("admitted_day"),
    // While queued: the day the report is expected to be released, as told to the reporter.
    releaseExpectedOn: text("release_expected_on"),
    // The most similar earlier report of the organization, when its score passes 0.5 (vuln_similarities
    // keeps the rest). No foreign key, like duplicate_of_id: a trigger clears it (migration 0041).
    possibleDuplicateOfId: text("possible_duplicate_of_id"),
    possibleDuplicateScore: real("possible_duplicate_score"),
    possibleDuplicate: integer("possible_duplicate")
      .notNull()
      .generatedAlwaysAs(sql`possible_duplicate_of_id IS NOT NULL`, { mode: "virtual" }),
    ...timestamps,
  },
  // Every list order ends in the id, so a page (by number or by cursor) is a seek on one of these.
  (t) => [
    index("vulns_organization_created_at_idx").on(t.organizationId, t.createdAt, t.id),
    index("vulns_organization_updated_at_idx").on(t.organizationId, t.updatedAt, t.id),
    index("vulns_organization_processing_idx").on(t.organizationId, t.processingState, t.createdAt, t.id),
    index("vulns_organization_inbox_idx").on(t.organizationId, t.inboxState, t.createdAt, t.id),
    index("vulns_organization_triage_idx").on(t.organizationId, t.triageState, t.createdAt, t.id),
    index("vulns_duplicate_of_idx").on(t.duplicateOfId, t.createdAt, t.id),
    // The cron's unanswered requests for information: the oldest first, only those still waiting.
    index("vulns_info_requested_idx").on(t.triageState, t.infoRequestedAt),
    index("vulns_organization_next_due_asc_idx").on(t.organizationId, t.nextDueAsc, t.id),
    index("vulns_next_alert_idx").on(t.nextAlertMs),
    index("vulns_organization_overdue_idx").on(t.organizationId, t.overdue, t.createdAt, t.id),
    index("vulns_organization_next_due_desc_idx").on(t.organizationId, t.nextDueDesc, t.id),
    index("vulns_brief_idx").on(t.briefId, t.createdAt, t.id),
    index("vulns_organization_severity_idx").on(t.organizationId, t.severity, t.createdAt, t.id),
    index("vulns_organization_cvss_desc_idx").on(t.organizationId, t.cvssRankDesc, t.id),
    index("vulns_organization_cvss_asc_idx").on(t.organizationId, t.cvssRankAsc, t.id),
    index("vulns_organization_severity_desc_idx").on(t.organizationId, t.severityRankDesc, t.id),
    index("vulns_organization_severity_asc_idx").on(t.organizationId, t.severityRankAsc, t.id),
    index("vulns_organization_unread_idx").on(t.organizationId, t.unread, t.createdAt, t.id),
    // The inbox's "Assigned to me" and q[assignee_id_eq] (null included): a seek per member.
    index("vulns_organization_assignee_idx").on(t.organizationId, t.assigneeId, t.createdAt, t.id),
    index("vulns_organization_activity_idx").on(t.organizationId, t.lastActivityAt, t.id),
    index("vulns_organization_activity_by_idx").on(t.organizationId, t.lastActivityBy, t.lastActivityAt, t.id),
    index("vulns_organization_activity_by_created_idx").on(t.organizationId, t.lastActivityBy, t.createdAt, t.id),
    // The gate: a brief's queue in order, its admitted reports of a day, a key's earlier reports, the possible duplicates.
    index("vulns_queued_idx").on(t.briefId, t.createdAt, t.id).where(sql`inbox_state = 'queued'`),
    index("vulns_brief_admitted_idx").on(t.briefId, t.admittedDay).where(sql`admitted_day IS NOT NULL`),
    index("vulns_organization_reporter_key_idx")
      .on(t.organizationId, t.reporterKey, t.createdAt, t.id)
      .where(sql`reporter_key IS NOT NULL`),
    index("vulns_organization_gate_idx").on(t.organizationId, t.gate, t.createdAt, t.id),
    index("vulns_organization_possible_duplicate_idx").on(t.organizationId, t.possibleDuplicate, t.createdAt, t.id),
    // Operators list across organizations.
    index("vulns_created_at_idx").on(t.createdAt, t.id),
    index("vulns_updated_at_idx").on(t.updatedAt, t.id),
  ],
);

/**
 * How many vulns an organization has, in all and per state, so a list's `meta.page.total` reads one
 * row instead of counting every report. Kept by triggers on `vulns` (migration 0008), inside the very
 * statement that inserts, moves or deletes a vuln, so the counts are exact under any concurrency and
 * on every path (API, intake, cascades). `organization_id` "*" counts every organization, for operators.
 * Buckets: "all", "processing_state:<state>", "inbox_state:<state>", and "severity:<severity>" (migration
 * 0010; a vuln without a severity counts in no severity bucket).
 */
export const vulnCounts = sqliteTable(
  "vuln_counts",
  {
    organizationId: text("organization_id").notNull(),
    bucket: text("bucket").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.bucket] })],
);

/** The vuln's affected domains, kept as the organization's `domain` assets. */
export const vulnAssets = sqliteTable(
  "vuln_assets",
  {
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    assetId: text("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.vulnId, t.assetId] }), index("vuln_assets_asset_idx").on(t.assetId)],
);

/**
 * The immutable intake record, written once when the vuln reaches `stored`: the submission as received
 * and the SHA-256 of its canonical form. No code path updates it. When public submissions carry files,
 * the files that came with the submission (filename, byte_size, sha256) join this record, read from
 * the submission's attachments at intake; files the organization attaches later never do.
 */
export const vulnRecords = sqliteTable("vuln_records", {
  vulnId: text("vuln_id")
    .primaryKey()
    .references(() => vulns.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  description: text("description").notNull(),
  contactEmail: text("contact_email"),
  domains: text("domains", { mode: "json" }).$type<string[]>().notNull(),
  receivedAt: text("received_at").notNull(),
  sha256: text("sha256").notNull(),
  storedAt: text("stored_at").notNull(),
  // The policy version in force when the report was sent (its number and the SHA-256 of its terms).
  policyVersionNumber: integer("policy_version_number"),
  policyVersionSha256: text("policy_version_sha256"),
});

/**
 * The deadline alerts sent: one row per report, deadline and alert (approaching, breached), written in
 * the batch of its event, whose INSERT is chained on this one: a second run, or a second cron at the
 * same time, inserts nothing and so sends nothing. Exactly once per deadline and kind.
 */
export const deadlineAlerts = sqliteTable(
  "deadline_alerts",
  {
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    deadline: text("deadline", { enum: DEADLINE_KIND_NAMES }).notNull(),
    alert: text("alert", { enum: DEADLINE_ALERTS }).notNull(),
    dueMs: integer("due_ms").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.vulnId, t.deadline, t.alert] })],
);

export type VulnRow = typeof vulns.$inferSelect;
export type VulnRecordRow = typeof vulnRecords.$inferSelect;
