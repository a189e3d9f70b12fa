import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  type AiUse,
  type Evidence,
  GATES,
  ACTIVITY_SIDES,
  CLOSERS,
  CVSS_VERSIONS,
  INBOX_STATES,
  PROCESSING_STATES,
  SEVERITIES,
  type Submission,
  TRIAGE_STATES,
  type TriageState as TriageStateName,
} from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { THUMBPRINT_PATTERN } from "../../../lib/reporter-signature";
import { AiUseSchema, EvidenceSchema, ReporterKeySchema, reporterKeyOf } from "./gate-schema";
import { booleanQuery, listQuery, uuidQuery, SORTS } from "../../../http/openapi/queries";
import { dataType, requestDocument, resourceSchema, Timestamp, toOneSchema, Uuid } from "../../../http/openapi/documents";
import { normalizeHostname } from "../../../lib/asset-values";
import { DEADLINE_STATES, deadlinesAt, dueOf, metOf } from "../../../lib/deadlines";
import { CVSS_VECTOR_PATTERN } from "../../../lib/cvss";
import type { VulnRecord } from "../../../services/vulns/types";
import { CvssVector, CweIds, DateTimeInput, nullableRelationshipInput, relationshipInput, SingleLine } from "../fields";
import { LIMITS } from "../../../lib/limits";
import { normalizeVulnShortcode, UUID_PATTERN, VULN_SHORTCODE_AS_HEARD } from "../../../lib/ids";
import { ftsQuery, SEARCH_MAX_LENGTH, SEARCH_MAX_TERMS } from "../../../lib/search-query";

const Title = SingleLine.trim().min(1, "must not be empty").max(LIMITS.titleLength, `must be at most ${LIMITS.titleLength} characters`);
const Description = z
  .string()
  .max(LIMITS.descriptionLength, `must be at most ${LIMITS.descriptionLength} characters`)
  .refine((v) => v.trim().length > 0, "must not be empty");
const ContactEmail = z.email("must be a valid e-mail address").max(LIMITS.emailLength, `must be at most ${LIMITS.emailLength} characters`);
const Domain = z
  .string()
  .max(LIMITS.hostnameLength, `must be at most ${LIMITS.hostnameLength} characters`)
  .trim()
  .transform((v, ctx) => {
    const hostname = normalizeHostname(v);
    if (hostname !== null) return hostname;
    ctx.addIssue({ code: "custom", message: "must be a domain name such as app.example.com" });
    return z.NEVER;
  })
  .openapi({ type: "string", format: "hostname", maxLength: LIMITS.hostnameLength });
const Domains = z.array(Domain).max(LIMITS.domainsPerVuln, `at most ${LIMITS.domainsPerVuln} domains`);
const Tags = z
  .array(SingleLine.trim().min(1, "must not be empty").max(LIMITS.tagLength, `must be at most ${LIMITS.tagLength} characters`))
  .max(LIMITS.tagsPerVuln, `at most ${LIMITS.tagsPerVuln} tags`);

/** What a researcher submits, through the API or a brief's public page. */
export const SubmissionAttributes = z.strictObject({
  title: Title,
  description: Description,
  contact_email: ContactEmail.nullable().optional(),
  domains: Domains.optional(),
  evidence: EvidenceSchema.optional(),
  ai_use: AiUseSchema.nullable().optional().openapi({ description: "How AI was used, when the brief asks for it (its ai_disclosure)." }),
});

/**
 * A researcher's own submission may ask to be e-mailed about the report: a receipt with the report
 * page's link, then a note at each change. Only with a contact_email, and by default with one.
 */
export const PublicSubmissionAttributes = SubmissionAttributes.extend({
  notify_me: z
    .boolean()
    .optional()
    .openapi({
      description:
        "E-mail me about this report: a receipt with the report page's link once it is stored, then a note for each answer and each " +
        "change of state, every one with a link to stop them. Default true when contact_email is given; true needs a contact_email.",
    }),
}).superRefine((a, ctx) => {
  if (a.notify_me === true && !a.contact_email)
    ctx.addIssue({ code: "custom", path: ["notify_me"], message: "needs a contact_email to e-mail" });
});

// Triage (the organization's, never the public submission's): parsed and scored as they come in.
const Severity = z.enum(SEVERITIES);
const TriageAttributes = {
  severity: Severity.nullable().optional().openapi({
    description: "Left out with a cvss_vector: the score's rating (0 none, 0.1-3.9 low, 4-6.9 medium, 7-8.9 high, 9-10 critical).",
  }),
  cvss_vector: CvssVector.nullable().optional(),
  cwe_ids: CweIds.optional(),
  actively_exploited: z
    .boolean()
    .optional()
    .openapi({
      description:
        "Under attack: starts the EU Cyber Resilience Act's clock (deadlines cra_early_warning, cra_notification, cra_final_report); " +
        "false stops it.",
    }),
  exploitation_known_at: DateTimeInput.nullable()
    .optional()
    .openapi({
      description:
        "Since when the organization knows the vulnerability is actively exploited: left out, the moment actively_exploited becomes " +
        "true (and kept after). Only with actively_exploited true; never in the future.",
    }),
};

const CreateAttributes = SubmissionAttributes.extend({ tags: Tags.optional(), ...TriageAttributes });
const BriefRelationship = z.strictObject({ brief: relationshipInput("brief") });
const TRIAGE_STATE_LIST = new RegExp(`^(${TRIAGE_STATES.join("|")})(,(${TRIAGE_STATES.join("|")}))*$`);
const TriageState = z.enum(TRIAGE_STATES).openapi({
  description:
    "new, triaged and needs_more_info are open; resolved, duplicate, informative, not_applicable, spam and accepted_risk are closed. " +
    "processing_state follows it. Any move is allowed; a duplicate needs relationships.duplicate_of. needs_more_info returns to the " +
    "state before it when the reporter comments, and closes as informative (closed_by timeout) after 30 days without.",
});

export const CreateVulnInput = requestDocument("vuln", CreateAttributes, BriefRelationship).openapi("CreateVulnInput");

// Every member optional: one left out is unchanged, null clears a nullable one. Clients that send
// every create member (as the original draft of the API drew PATCH) work the same.
const UpdateVulnData = z.strictObject({
  type: dataType("vuln"),
  id: Uuid.optional(),
  attributes: CreateAttributes.partial()
    .extend({
      processing_state: z.enum(PROCESSING_STATES).optional().openapi({
        description:
          "closed alone closes as resolved; open alone reopens to triaged (or new, if never triaged). With triage_state it must agree.",
      }),
      triage_state: TriageState.optional(),
    })
    .optional(),
  relationships: BriefRelationship.extend({
    duplicate_of: nullableRelationshipInput("vuln"),
    assignee: nullableRelationshipInput("member").openapi({
      description:
        "The member the report is assigned to, or null for nobody: a member of the vuln's organization who has joined. The new " +
        "assignee is e-mailed a link to the report in the console (not when they assign it to themselves).",
    }),
  })
    .partial()
    .optional(),
});

export const UpdateVulnInput = z.strictObject({ data: UpdateVulnData }).openapi("UpdateVulnInput");

/** PATCH /v1/vulns: each member of `data` as one vuln's PATCH would take it, with its id. */
export const UpdateVulnsInput = z
  .strictObject({
    data: z
      .array(UpdateVulnData.extend({ id: Uuid }))
      .min(1, "must name at least 1 vuln")
      .max(LIMITS.vulnsPerBulkUpdate, `must name at most ${LIMITS.vulnsPerBulkUpdate} vulns`)
      .superRefine((items, ctx) => {
        const seen = new Set<string>();
        items.forEach((item, i) => {
          if (seen.has(item.id)) ctx.addIssue({ code: "custom", message: "names a vuln twice: each vuln once", path: [i, "id"] });
          seen.add(item.id);
        });
      }),
  })
  .openapi("UpdateVulnsInput");

/** The vuln a path names: its id, or the shortcode the researcher quotes. */
export const VulnRef = z
  .string()
  .max(36, "must be a vuln id or shortcode")
  .openapi({
    param: { name: "id", in: "path", description: "The vuln's id, or its shortcode as the researcher quotes it (any case)." },
    // What can name a vuln at all; anything else is the same 404 as an unknown id.
    pattern: `${UUID_PATTERN}|${VULN_SHORTCODE_AS_HEARD}`,
    example: "7KQ2-M9XD-4TRA",
  });
export const VulnParam = z.object({ id: VulnRef });

/** A member's id, or `null`: the assignee filter. */
const ASSIGNEE_QUERY = new RegExp(`^(${UUID_PATTERN.slice(1, -1)}|null)$`);

export const VULN_SORTS = [
  ...SORTS,
  "cvss_score",
  "-cvss_score",
  "severity",
  "-severity",
  "last_activity_at",
  "-last_activity_at",
  "next_due_at",
  "-next_due_at",
] as const;

export const ListVulnsQuery = listQuery({
  sort: z
    .enum(VULN_SORTS)
    .optional()
    .openapi({
      param: {
        name: "sort",
        in: "query",
        description:
          "next_due_at puts the deadline due soonest first (a running one: not met, not paused), the vulns with none last, either " +
          "way. -last_activity_at puts the vulns someone last spoke on first. cvss_score and -cvss_score put vulns without a score " +
          "last either way; -severity goes critical, high, medium, low, severity goes low to critical, and both put none, then the " +
          "unrated, last.",
      },
      example: "-created_at",
    }),
  "q[severity_eq]": z
    .enum([...SEVERITIES, "null"])
    .optional()
    .openapi({ param: { name: "q[severity_eq]", in: "query", description: "One severity, or null for the vulns not rated yet." } }),
  "q[processing_state_eq]": z
    .enum(PROCESSING_STATES)
    .optional()
    .openapi({ param: { name: "q[processing_state_eq]", in: "query" } }),
  "q[triage_state_eq]": z
    .enum(TRIAGE_STATES)
    .optional()
    .openapi({ param: { name: "q[triage_state_eq]", in: "query" } }),
  "q[triage_state_in]": z
    .string()
    .max(LIMITS.triageStateListLength, `must be at most ${LIMITS.triageStateListLength} characters`)
    .regex(TRIAGE_STATE_LIST, `must be triage states separated by commas: ${TRIAGE_STATES.join(", ")}`)
    .transform((v) => [...new Set(v.split(","))] as TriageStateName[])
    .optional()
    .openapi({
      param: { name: "q[triage_state_in]", in: "query", description: "Any of these triage states, comma-separated (new,triaged)." },
      type: "string",
      maxLength: LIMITS.triageStateListLength,
      pattern: TRIAGE_STATE_LIST.source,
      example: "new,needs_more_info",
    }),
  "q[duplicate_of_eq]": uuidQuery("q[duplicate_of_eq]").openapi({
    param: { name: "q[duplicate_of_eq]", in: "query", description: "The duplicates of this original." },
  }),
  "q[inbox_state_eq]": z
    .enum(INBOX_STATES)
    .optional()
    .openapi({ param: { name: "q[inbox_state_eq]", in: "query" } }),
  "q[search]": z
    .string()
    .max(SEARCH_MAX_LENGTH, `must be at most ${SEARCH_MAX_LENGTH} characters`)
    .transform((v, ctx) => {
      const query = ftsQuery(v);
      if (query) return query;
      ctx.addIssue({ code: "custom", message: "must contain a word to search for" });
      return z.NEVER;
    })
    .optional()
    .openapi({
      param: {
        name: "q[search]",
        in: "query",
        description:
          `Words and "quoted phrases" (all required; a word ending in * matches as a prefix; case and accents ignored) in the title, ` +
          `the description or any comment. Without a sort, the best matches come first (a title match counts most) and pages go by ` +
          `number only; with a sort, the matches in that order. Up to ${SEARCH_MAX_TERMS} terms.`,
      },
      type: "string",
      maxLength: SEARCH_MAX_LENGTH,
      example: "stored xss",
    }),
  "q[shortcode_eq]": z
    .string()
    .max(20, "must be a vuln's shortcode, such as 7KQ2-M9XD-4TRA")
    .transform((v, ctx) => {
      const code = normalizeVulnShortcode(v);
      if (code) return code;
      ctx.addIssue({ code: "custom", message: "must be a vuln's shortcode, such as 7KQ2-M9XD-4TRA" });
      return z.NEVER;
    })
    .optional()
    .openapi({
      param: { name: "q[shortcode_eq]", in: "query", description: "The vuln with this shortcode (any case)." },
      type: "string",
      maxLength: 20,
      pattern: VULN_SHORTCODE_AS_HEARD,
    }),
  "q[overdue_eq]": booleanQuery("q[overdue_eq]").openapi({
    param: {
      name: "q[overdue_eq]",
      in: "query",
      description:
        "true: a running deadline is past its due time (breached), as the last change saw it or the cron within a minute of the due " +
        "time; false: none is.",
    },
  }),
  "q[read_eq]": booleanQuery("q[read_eq]").openapi({
    param: { name: "q[read_eq]", in: "query", description: "false: the vulns the organization has not opened yet (read_at null)." },
  }),
  "q[last_activity_by_eq]": z
    .enum(ACTIVITY_SIDES)
    .optional()
    .openapi({
      param: {
        name: "q[last_activity_by_eq]",
        in: "query",
        description:
          "reporter: the reporter spoke last and the organization has not answered (with sort=-last_activity_at, longest waiting last).",
      },
    }),
  "q[last_activity_at_gteq]": DateTimeInput.optional().openapi({ param: { name: "q[last_activity_at_gteq]", in: "query" } }),
  "q[last_activity_at_lteq]": DateTimeInput.optional().openapi({ param: { name: "q[last_activity_at_lteq]", in: "query" } }),
  "q[brief_id_eq]": uuidQuery("q[brief_id_eq]"),
  "q[assignee_id_eq]": z
    .string()
    .max(36, "must be a member's id, or null for the unassigned")
    .regex(ASSIGNEE_QUERY, "must be a member's id, or null for the unassigned")
    .transform((v) => (v === "null" ? null : v.toLowerCase()))
    .optional()
    .openapi({
      param: { name: "q[assignee_id_eq]", in: "query", description: "The vulns assigned to this member, or null for the unassigned." },
      type: "string",
      maxLength: 36,
      pattern: ASSIGNEE_QUERY.source,
      example: "null",
    }),
  "q[gate_eq]": z
    .enum(GATES)
    .optional()
    .openapi({ param: { name: "q[gate_eq]", in: "query", description: "How the report passed its brief's gate." } }),
  "q[possible_duplicate_eq]": booleanQuery("q[possible_duplicate_eq]").openapi({
    param: { name: "q[possible_duplicate_eq]", in: "query", description: "true: the vulns with a possible_duplicate_of suggestion." },
  }),
  "q[reporter_key_eq]": z
    .string()
    .max(43, "must be a reporter key's thumbprint (43 base64url characters)")
    .regex(THUMBPRINT_PATTERN, "must be a reporter key's thumbprint (43 base64url characters)")
    .optional()
    .openapi({
      param: { name: "q[reporter_key_eq]", in: "query", description: "The vulns signed with this reporter key (its RFC 7638 thumbprint)." },
    }),
  "q[created_at_gteq]": DateTimeInput.optional().openapi({ param: { name: "q[created_at_gteq]", in: "query" } }),
  "q[created_at_lteq]": DateTimeInput.optional().openapi({ param: { name: "q[created_at_lteq]", in: "query" } }),
});

export const Deadline = z
  .object({
    due_at: Timestamp.nullable(),
    met_at: Timestamp.nullable(),
    state: z.enum(DEADLINE_STATES),
  })
  .openapi("Deadline", {
    description:
      "pending until due_at, then breached until met; met once met (late or not: compare met_at with due_at); paused while the " +
      "report waits in needs_more_info (the time there moves due_at later); none without a due time.",
  });
const Deadlines = z
  .object({
    acknowledge: Deadline.openapi({ description: "Due acknowledge_hours after created_at; met at acknowledged_at." }),
    triage: Deadline.openapi({ description: "Due triage_hours after created_at; met at triaged_at, or at a close." }),
    resolve: Deadline.openapi({
      description: "Due resolve_days[severity] after created_at (none until rated; a new severity moves it); met at closed_at.",
    }),
    disclosure: Deadline.openapi({
      description:
        "Due the policy's cvd_timeline days after created_at (none without one, and none while closed as duplicate, informative, " +
        "not_applicable or spam: nothing is owed the world for those).",
    }),
    cra_early_warning: Deadline.optional().openapi({
      description:
        "Only while actively_exploited: due 24 hours after exploitation_known_at; met by the first early_warning regulatory report. " +
        "Never paused.",
    }),
    cra_notification: Deadline.optional().openapi({
      description:
        "Only while actively_exploited: due 72 hours after exploitation_known_at; met by the first notification regulatory report. " +
        "Never paused.",
    }),
    cra_final_report: Deadline.optional().openapi({
      description:
        "Only while actively_exploited: due 14 days after closed_at as resolved (none while no fix is out); met by the first " +
        "final_report regulatory report. Never paused.",
    }),
  })
  .openapi({
    description:
      "Read-only: the policy's promises for this report, from the targets in force when it came in (defaults without a policy), and " +
      "while it is actively exploited the three filings the EU Cyber Resilience Act asks for.",
  });

export const Vuln = resourceSchema(
  "Vuln",
  "vuln",
  z.object({
    title: z.string().max(LIMITS.titleLength),
    description: z.string().max(LIMITS.descriptionLength),
    shortcode: Out.vulnShortcode.openapi({ example: "7KQ2-M9XD-4TRA" }),
    inbox_state: z.enum(INBOX_STATES),
    processing_state: z.enum(PROCESSING_STATES),
    triage_state: z.enum(TRIAGE_STATES),
    acknowledged_at: Timestamp.nullable().openapi({
      description: "Read-only: the organization's first comment the reporter can read, or the first move out of new, whichever came first.",
    }),
    triaged_at: Timestamp.nullable().openapi({ description: "Read-only: the first move to triaged." }),
    closed_at: Timestamp.nullable().openapi({ description: "Read-only: the last move to a closed state; null while open." }),
    deadlines: Deadlines,
    actively_exploited: z.boolean(),
    exploitation_known_at: Timestamp.nullable(),
    closed_by: z.enum(CLOSERS).nullable().openapi({
      description: "Read-only: organization, or timeout when a request for more information went unanswered for 30 days; null while open.",
    }),
    contact_email: z.string().max(LIMITS.emailLength).openapi({ format: "email" }).nullable(),
    domains: z.array(Out.hostname).max(LIMITS.domainsPerVuln),
    tags: z.array(z.string().max(LIMITS.tagLength)).max(LIMITS.tagsPerVuln),
    severity: Severity.nullable(),
    cvss_vector: z.string().max(LIMITS.cvssVectorLength).regex(CVSS_VECTOR_PATTERN).nullable(),
    cvss_score: z.number().min(0).max(10).nullable().openapi({ description: "Read-only: the vector's score, 0.0 to 10.0.", example: 6.1 }),
    cvss_version: z.enum(CVSS_VERSIONS).nullable().openapi({ description: "Read-only." }),
    cwe_ids: z
      .array(
        z
          .string()
          .regex(/^CWE-[1-9]\d{0,5}$/)
          .max(10),
      )
      .max(LIMITS.cweIdsPerVuln),
    read_at: Timestamp.nullable(),
    last_activity_at: Timestamp.openapi({
      description:
        "Read-only: when one side last spoke to the other: the report itself, a reporter-visible comment or a file, or the " +
        "organization closing or reopening it. Internal notes and triage edits are not activity.",
    }),
    last_activity_by: z.enum(ACTIVITY_SIDES).openapi({ description: "Read-only: who spoke last, the reporter or the organization." }),
    gate: z.enum(GATES).openapi({
      description:
        "Read-only: verified (a valid proof of work, or a reporter key in the brief's verified lane), unverified (the brief asked for " +
        "proof of work and none valid came), or not_required.",
    }),
    evidence: EvidenceSchema,
    evidence_complete: z.boolean().openapi({
      description: "Read-only: every evidence field the brief listed (required or optional) was filled when the report came in.",
    }),
    ai_use: AiUseSchema.nullable(),
    reporter_key: ReporterKeySchema,
    release_expected_on: z.iso.date().max(10).nullable().openapi({
      description: "Read-only: while inbox_state is queued (the brief's daily cap was reached), the UTC day it should be released.",
    }),
    possible_duplicate_score: z.number().min(0).max(1).nullable().openapi({
      description: "Read-only: the score (0..1) of possible_duplicate_of. GET /v1/vulns/{id}/similar lists the others.",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({
    organization: toOneSchema("organization"),
    brief: toOneSchema("brief"),
    duplicate_of: toOneSchema("vuln"),
    assignee: toOneSchema("member").openapi({ description: "The member the report is assigned to; null: nobody." }),
    possible_duplicate_of: toOneSchema("vuln").openapi({
      description:
        "Read-only: the organization's earlier report this one most resembles (score over 0.5). A suggestion only: it never closes " +
        "anything, and the reporter never sees it.",
    }),
  }),
);

/**
 * The submission exactly as the client sent it, before trimming and normalizing, for the intake
 * record. Called after validation, so the members have their types.
 */
export async function rawSubmission(c: Context): Promise<Omit<Submission, "received_at">> {
  const a = ((await c.req.json()) as { data: { attributes: Record<string, unknown> } }).data.attributes;
  return {
    title: a.title as string,
    description: a.description as string,
    contact_email: (a.contact_email as string | null | undefined) ?? null,
    domains: (a.domains as string[] | undefined) ?? [],
    ...(a.evidence !== undefined && { evidence: a.evidence as Evidence }),
    ...(a.ai_use != null && { ai_use: a.ai_use as AiUse }),
  };
}

export function serializeVuln(row: VulnRecord) {
  return resource(
    "vuln",
    row.id,
    {
      title: row.title,
      description: row.description,
      shortcode: row.shortcode,
      inbox_state: row.inboxState,
      processing_state: row.processingState,
      triage_state: row.triageState,
      acknowledged_at: row.acknowledgedAt,
      triaged_at: row.triagedAt,
      closed_at: row.closedAt,
      closed_by: row.closedBy,
      deadlines: deadlinesAt(dueOf(row), metOf(row), row.triageState, Date.now(), row.activelyExploited),
      actively_exploited: row.activelyExploited,
      exploitation_known_at: row.exploitationKnownAt,
      contact_email: row.contactEmail,
      domains: row.domains,
      tags: row.tags,
      severity: row.severity,
      cvss_vector: row.cvssVector,
      cvss_score: row.cvssScore,
      cvss_version: row.cvssVersion,
      cwe_ids: row.cweIds,
      read_at: row.readAt,
      last_activity_at: row.lastActivityAt,
      last_activity_by: row.lastActivityBy,
      gate: row.gate,
      evidence: row.evidence,
      evidence_complete: row.evidenceComplete,
      ai_use: row.aiUse,
      reporter_key: reporterKeyOf(row),
      release_expected_on: row.inboxState === "queued" ? row.releaseExpectedOn : null,
      possible_duplicate_score: row.possibleDuplicateScore,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/vulns/${row.id}`,
    {
      organization: toOne("organization", row.organizationId),
      brief: toOne("brief", row.briefId),
      duplicate_of: toOne("vuln", row.duplicateOfId),
      assignee: toOne("member", row.assigneeId),
      possible_duplicate_of: toOne("vuln", row.possibleDuplicateOfId),
    },
  );
}
