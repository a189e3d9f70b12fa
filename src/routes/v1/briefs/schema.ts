import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import {
  AI_DISCLOSURES,
  type BriefRow,
  EVIDENCE_FIELDS,
  type EvidenceField,
  PROOF_OF_WORK_MODES,
  REQUIREMENT_LEVELS,
} from "../../../db/schema";
import { LIMITS } from "../../../lib/limits";
import { resource, toOne } from "../../../http/jsonapi";
import { listQuery, uuidQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import {
  DateTimeInput,
  Name,
  nullableRelationshipInput,
  relationshipInput,
  ScopeAssetSchema,
  ScopeAssetsInput,
  ShortDescription,
} from "../fields";

const Requirement = z.enum(REQUIREMENT_LEVELS);
export const SubmissionRequirementsSchema = z
  .strictObject({
    evidence: z
      .strictObject(
        Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, Requirement.optional()])) as Record<
          EvidenceField,
          z.ZodOptional<typeof Requirement>
        >,
      )
      .default({})
      .openapi({
        description:
          "The evidence the form and the API ask for, each field required or optional (left out: not asked). A submission without a " +
          `required field is refused (422 at data/attributes/evidence/<field>). proof_of_concept is text up to ${LIMITS.proofOfConceptLength} ` +
          `characters (on the page, or a file); the others up to ${LIMITS.evidenceFieldLength}.`,
      }),
    ai_disclosure: z
      .enum(AI_DISCLOSURES)
      .default("off")
      .openapi({ description: "Whether a submission says how AI was used (ai_use): required, optional, or not asked (off)." }),
  })
  .openapi("SubmissionRequirements");

/** The brief's gate at its public door: every default keeps the door as it was. */
const GateAttributesInput = {
  submission_requirements: SubmissionRequirementsSchema.optional(),
  proof_of_work: z
    .enum(PROOF_OF_WORK_MODES)
    .optional()
    .openapi({
      description:
        "off (default): no proof of work. on: a submission brings a solved challenge (GET /v1/p/briefs/{shortcode}/challenge) or is " +
        `stored as unverified, ${LIMITS.unverifiedPerAddressHour} an hour per address, then 429. auto: on while the brief's last hour ` +
        "is over expected_hourly, and for an hour after.",
    }),
  expected_hourly: z
    .int()
    .min(1, "must be at least 1")
    .max(LIMITS.expectedHourlyMax, `must be at most ${LIMITS.expectedHourlyMax}`)
    .optional()
    .openapi({
      description:
        "The submissions an hour the brief expects (default 10): past it, auto turns proof of work on, and each time the last hour " +
        "passes it the challenge gets 10 times harder (twice at most).",
    }),
  daily_cap: z
    .int()
    .min(1, "must be at least 1")
    .max(LIMITS.dailyCapMax, `must be at most ${LIMITS.dailyCapMax}`)
    .nullable()
    .optional()
    .openapi({
      description:
        "Reports admitted a UTC day (null: no cap). Past it a report is never refused: it is stored as queued, the reporter is told " +
        "when it will be released, and the cron releases the queue in order as the next days allow.",
    }),
  intake_paused_until: DateTimeInput.nullable()
    .optional()
    .openapi({ description: "While in the future, submissions answer 503 with Retry-After and the message; null: open." }),
  intake_paused_message: z
    .string()
    .trim()
    .max(LIMITS.pauseMessageLength, `must be at most ${LIMITS.pauseMessageLength} characters`)
    .nullable()
    .optional(),
  verified_lane_min_valid: z
    .int()
    .min(1, "must be at least 1")
    .max(LIMITS.verifiedLaneMax, `must be at most ${LIMITS.verifiedLaneMax}`)
    .nullable()
    .optional()
    .openapi({
      description:
        "A submission signed with a reporter key whose record with the organization holds at least this many valid reports skips " +
        "proof of work (gate verified). null: no such lane.",
    }),
};

const BriefAttributesInput = z.strictObject({
  name: Name,
  short_description: ShortDescription.nullable().optional(),
  published_at: DateTimeInput.nullable().optional().openapi({ description: "null is a draft; a future time schedules publication" }),
  in_scope_assets: ScopeAssetsInput.optional(),
  out_of_scope_assets: ScopeAssetsInput.optional(),
  ...GateAttributesInput,
});

export const CreateBriefInput = requestDocument(
  "brief",
  BriefAttributesInput,
  z
    .strictObject({
      organization: relationshipInput("organization").openapi({ description: "Operator keys only: the owning organization" }),
      policy: nullableRelationshipInput("policy"),
    })
    .partial()
    .optional(),
).openapi("CreateBriefInput");

export const UpdateBriefInput = updateDocument(
  "brief",
  BriefAttributesInput.partial().optional().default({}),
  z
    .strictObject({ policy: nullableRelationshipInput("policy") })
    .partial()
    .optional(),
).openapi("UpdateBriefInput");

export const ListBriefsQuery = listQuery({
  "q[policy_id_eq]": uuidQuery("q[policy_id_eq]"),
});

/** What anyone may read of a brief (its public read, its page, directories). */
export const PublicBriefAttributes = z.object({
  name: Out.name,
  short_description: Out.shortDescription.nullable(),
  shortcode: Out.briefShortcode.openapi({ description: "Used in the public read path /v1/p/briefs/{shortcode}" }),
  published_at: Timestamp.nullable(),
  in_scope_assets: z.array(ScopeAssetSchema).max(LIMITS.scopeAssets),
  out_of_scope_assets: z.array(ScopeAssetSchema).max(LIMITS.scopeAssets),
  submission_requirements: SubmissionRequirementsSchema,
  proof_of_work: z.enum(PROOF_OF_WORK_MODES),
  daily_cap: z.int().min(1).max(LIMITS.dailyCapMax).nullable(),
  intake_paused_until: Timestamp.nullable(),
  intake_paused_message: z.string().max(LIMITS.pauseMessageLength).nullable(),
  verified_lane_min_valid: z.int().min(1).max(LIMITS.verifiedLaneMax).nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const BriefAttributes = PublicBriefAttributes.extend({ expected_hourly: z.int().min(1).max(LIMITS.expectedHourlyMax) });

export const Brief = resourceSchema(
  "Brief",
  "brief",
  BriefAttributes,
  z.object({ organization: toOneSchema("organization"), policy: toOneSchema("policy") }),
);

/** A brief as anyone may read it: all but its expected rate, which would tell a flood how far to go unnoticed. */
export function publicBriefAttributes(row: BriefRow) {
  return {
    name: row.name,
    short_description: row.shortDescription,
    shortcode: row.shortcode,
    published_at: row.publishedAt,
    in_scope_assets: row.inScopeAssets,
    out_of_scope_assets: row.outOfScopeAssets,
    submission_requirements: row.submissionRequirements,
    proof_of_work: row.proofOfWork,
    daily_cap: row.dailyCap,
    intake_paused_until: row.intakePausedUntil,
    intake_paused_message: row.intakePausedMessage,
    verified_lane_min_valid: row.verifiedLaneMinValid,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export const briefAttributes = (row: BriefRow) => ({ ...publicBriefAttributes(row), expected_hourly: row.expectedHourly });

export function serializeBrief(row: BriefRow) {
  return resource("brief", row.id, briefAttributes(row), `/v1/briefs/${row.id}`, {
    organization: toOne("organization", row.organizationId),
    policy: toOne("policy", row.policyId),
  });
}
