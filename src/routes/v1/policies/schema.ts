import { DEFAULT_RESPONSE_TARGETS, responseTargetsOf, TARGET_BOUNDS } from "../../../lib/deadlines";
import { SEVERITIES, type Severity } from "../../../db/schema";
import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import { LIMITS } from "../../../lib/limits";
import { resource, toMany, toOne } from "../../../http/jsonapi";
import { listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toManySchema, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import { normalizeHostname } from "../../../lib/asset-values";
import { maturityRating } from "../../../lib/maturity";
import type { PolicyRow, PolicyVersionRow } from "../../../db/schema";
import { ASSET_KINDS } from "../../../lib/asset-values";
import type { PolicyRecord } from "../../../services/policies";
import { challengeName, claimExpiry } from "../../../services/custom-domain-claims";
import {
  Color,
  DateTimeInput,
  HttpUrl,
  Name,
  relationshipInput,
  ScopeAssetSchema,
  ScopeAssetsInput,
  ShortDescription,
  SingleLine,
  toManyInput,
} from "../fields";

export const SAFE_HARBOR = ["full", "partial", "none"] as const;
export const POLICY_URL_STATUS = ["unknown", "alive", "dead"] as const;
export const CREATION_MODE = ["template", "custom", "imported"] as const;
export const HOSTING_MODE = ["hosted", "self_hosted", "custom_domain"] as const;

const Branding = z
  .strictObject({
    primary_color: Color.nullable().optional(),
    secondary_color: Color.nullable().optional(),
    accent_color: Color.nullable().optional(),
    font_heading: SingleLine.max(100).nullable().optional(),
    font_body: SingleLine.max(100).nullable().optional(),
    google_fonts: z.array(SingleLine.min(1).max(100)).max(10).nullable().optional(),
  })
  .openapi("Branding");

const hours = z
  .number()
  .int("must be a whole number of hours")
  .min(TARGET_BOUNDS.hours.min, `must be at least ${TARGET_BOUNDS.hours.min}`)
  .max(TARGET_BOUNDS.hours.max, `must be at most ${TARGET_BOUNDS.hours.max}`);
const days = z
  .number()
  .int("must be a whole number of days")
  .min(TARGET_BOUNDS.days.min, `must be at least ${TARGET_BOUNDS.days.min}`)
  .max(TARGET_BOUNDS.days.max, `must be at most ${TARGET_BOUNDS.days.max}`);
const ResponseTargetsInput = z
  .strictObject({
    acknowledge_hours: hours.optional(),
    triage_hours: hours.optional(),
    resolve_days: z
      .strictObject(Object.fromEntries(SEVERITIES.map((s) => [s, days.optional()])) as Record<Severity, z.ZodOptional<typeof days>>)
      .optional(),
  })
  .openapi("ResponseTargetsInput", {
    description:
      `What the policy promises a reporter, in calendar time: hours to acknowledge (default ` +
      `${DEFAULT_RESPONSE_TARGETS.acknowledge_hours}) and to triage (${DEFAULT_RESPONSE_TARGETS.triage_hours}) a report, days to ` +
      `resolve it by severity (${SEVERITIES.map((s) => `${s} ${DEFAULT_RESPONSE_TARGETS.resolve_days[s]}`).join(", ")}). A member left ` +
      `out takes its default; null restores every default. Each report keeps the targets in force when it came in.`,
  });
const ResponseTargetsOutput = z
  .object({
    acknowledge_hours: hours,
    triage_hours: hours,
    resolve_days: z.object(Object.fromEntries(SEVERITIES.map((s) => [s, days])) as Record<Severity, typeof days>),
  })
  .openapi("ResponseTargets");

/** A policy's point of contact: an e-mail address's longest, 320 characters. */
const POINT_OF_CONTACT_LENGTH = 320;

const Hostname = z
  .string()
  .max(LIMITS.hostnameLength, `must be at most ${LIMITS.hostnameLength} characters`)
  .trim()
  .refine((v) => normalizeHostname(v) !== null, "must be a hostname such as security.example.com")
  .overwrite((v) => normalizeHostname(v)!)
  .openapi({ format: "hostname" });

const BODY_DESCRIPTION =
  `The policy's full text in Markdown (CommonMark with GitHub's tables, task lists, strikethrough and footnotes), at most ` +
  `${LIMITS.policyBodyLength} characters; shown on the policy's page with raw HTML as text and links only to https: and mailto: ` +
  `addresses. Text of only white space is stored as null. Part of the terms: a change makes a new version.`;
const PolicyBody = z
  .string()
  .max(LIMITS.policyBodyLength, `must be at most ${LIMITS.policyBodyLength} characters`)
  .openapi({ description: BODY_DESCRIPTION });

/** Every writable policy attribute; null clears one. Scope arrays replace the whole array. */
const PolicyAttributesInput = z
  .strictObject({
    name: Name.nullable(),
    short_description: ShortDescription.nullable(),
    body: PolicyBody.nullable(),
    point_of_contact: SingleLine.trim().max(POINT_OF_CONTACT_LENGTH, `must be at most ${POINT_OF_CONTACT_LENGTH} characters`).nullable(),
    cvd_timeline: z.number().int("must be a whole number of days").min(0).max(365).nullable().openapi({ description: "Days, 0..365" }),
    safe_harbor: z.enum(SAFE_HARBOR).nullable(),
    offers_bounty: z.boolean().nullable(),
    offers_swag: z.boolean().nullable(),
    hall_of_fame: z.boolean().nullable(),
    contact_url: HttpUrl.nullable(),
    securitytxt_url: HttpUrl.nullable(),
    hosted_policy_url: HttpUrl.nullable(),
    public_disclosure: z.boolean().nullable(),
    launch_date: DateTimeInput.nullable(),
    policy_url_status: z.enum(POLICY_URL_STATUS).nullable(),
    creation_mode: z.enum(CREATION_MODE).nullable(),
    hosting_mode: z.enum(HOSTING_MODE).nullable(),
    custom_domain: Hostname.nullable().openapi({
      description:
        `The host that serves the organization's security.txt at /.well-known/security.txt (route it to this Worker), once its ` +
        `organization proves control of it (see custom_domain_verification). One policy's on the whole platform, whatever its case ` +
        `(another policy's is a 422 here); never this platform's own host or a name under it, nor a local, special-use or wildcard-DNS ` +
        `name. A new domain starts a new claim, which is released after ${LIMITS.customDomainClaimDays} days unless proven; null ` +
        `releases it.`,
    }),
    published_at: DateTimeInput.nullable().openapi({ description: "null is a draft; a future time schedules publication" }),
    branding: Branding.nullable(),
    response_targets: ResponseTargetsInput.nullable(),
    in_scope_assets: ScopeAssetsInput,
    out_of_scope_assets: ScopeAssetsInput,
  })
  .partial();

const PolicyRelationshipsInput = z
  .strictObject({
    organization: relationshipInput("organization").openapi({ description: "Operator keys only: the owning organization" }),
    assets: toManyInput("asset"),
  })
  .partial();

export const CreatePolicyInput = requestDocument(
  "policy",
  PolicyAttributesInput.optional().default({}),
  PolicyRelationshipsInput.optional(),
).openapi("CreatePolicyInput");
export const UpdatePolicyInput = updateDocument(
  "policy",
  PolicyAttributesInput.optional().default({}),
  PolicyRelationshipsInput.omit({ organization: true }).optional(),
).openapi("UpdatePolicyInput");

export const ListPoliciesQuery = listQuery();

const CustomDomainVerification = z
  .object({
    status: z.enum(["pending", "verified"]).openapi({
      description: "pending: the domain serves nothing yet; verified: its organization proved control, and the domain serves security.txt",
    }),
    record_type: z.enum(["TXT"]),
    record_name: z
      .string()
      .max(LIMITS.hostnameLength + 15)
      .regex(/^_vdp-challenge\.[a-z0-9.-]+$/)
      .openapi({
        description: "Where to publish the record: `_vdp-challenge.` and the domain",
        example: "_vdp-challenge.security.example.com",
      }),
    record_value: z
      .string()
      .length(32)
      .regex(/^[0-9a-f]{32}$/)
      .openapi({ description: "What the TXT record must hold, exactly: this claim's own value, new with each domain" }),
    claimed_at: Timestamp.openapi({ description: "When the policy named this domain" }),
    expires_at: Timestamp.nullable().openapi({
      description:
        `When the claim is released (custom_domain becomes null) unless proven: ${LIMITS.customDomainClaimDays} days after claimed_at; ` +
        `null once verified`,
    }),
    checked_at: Timestamp.nullable().openapi({
      description: "The last lookup of the record, asked for or the cron's (every 5 minutes while pending)",
    }),
    verified_at: Timestamp.nullable(),
    failure_reason: z
      .string()
      .max(1000)
      .nullable()
      .openapi({ description: "Why the last lookup proved nothing: no record, another value, or a resolver that did not answer" }),
  })
  .openapi("CustomDomainVerification", {
    description:
      "The proof that the organization controls custom_domain (read-only; null without a custom domain). Publish a TXT record named " +
      "`record_name` holding `record_value`, then POST /v1/policies/{id}/verify_custom_domain, or wait for the cron. A new domain " +
      "needs its own proof.",
  });

const PolicyAttributes = z.object({
  name: Out.name.nullable(),
  short_description: Out.shortDescription.nullable(),
  body: z.string().max(LIMITS.policyBodyLength).nullable().openapi({ description: BODY_DESCRIPTION }),
  point_of_contact: z.string().max(POINT_OF_CONTACT_LENGTH).nullable(),
  cvd_timeline: z.number().int().min(0).max(365).nullable(),
  safe_harbor: z.enum(SAFE_HARBOR).nullable(),
  offers_bounty: z.boolean().nullable(),
  offers_swag: z.boolean().nullable(),
  hall_of_fame: z.boolean().nullable(),
  contact_url: Out.url.nullable(),
  securitytxt_url: Out.url.nullable(),
  hosted_policy_url: Out.url.nullable(),
  public_disclosure: z.boolean().nullable(),
  launch_date: Timestamp.nullable(),
  policy_url_status: z.enum(POLICY_URL_STATUS).nullable(),
  creation_mode: z.enum(CREATION_MODE).nullable(),
  hosting_mode: z.enum(HOSTING_MODE).nullable(),
  custom_domain: Out.hostname.nullable(),
  custom_domain_verification: CustomDomainVerification.nullable(),
  published_at: Timestamp.nullable(),
  shortcode: Out.briefShortcode,
  branding: Branding.nullable(),
  response_targets: ResponseTargetsOutput,
  maturity_rating: z.number().int().min(0).max(5).openapi({ description: "The disclose.io maturity ladder, 0..5 (read-only)" }),
  in_scope_assets: z.array(ScopeAssetSchema).max(LIMITS.scopeAssets),
  out_of_scope_assets: z.array(ScopeAssetSchema).max(LIMITS.scopeAssets),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** The policy's public terms: what anyone may read of a published policy (the public brief and directory reads). */
export const PolicyTerms = PolicyAttributes.pick({
  name: true,
  short_description: true,
  point_of_contact: true,
  contact_url: true,
  securitytxt_url: true,
  hosted_policy_url: true,
  safe_harbor: true,
  cvd_timeline: true,
  public_disclosure: true,
  offers_bounty: true,
  offers_swag: true,
  hall_of_fame: true,
  maturity_rating: true,
  shortcode: true,
  published_at: true,
  in_scope_assets: true,
  out_of_scope_assets: true,
});

export function policyTerms(row: PolicyRow, now: string): z.infer<typeof PolicyTerms> {
  return {
    name: row.name,
    short_description: row.shortDescription,
    point_of_contact: row.pointOfContact,
    contact_url: row.contactUrl,
    securitytxt_url: row.securitytxtUrl,
    hosted_policy_url: row.hostedPolicyUrl,
    safe_harbor: row.safeHarbor as Enum<typeof SAFE_HARBOR>,
    cvd_timeline: row.cvdTimeline,
    public_disclosure: row.publicDisclosure,
    offers_bounty: row.offersBounty,
    offers_swag: row.offersSwag,
    hall_of_fame: row.hallOfFame,
    maturity_rating: maturityRating(row, now),
    shortcode: row.shortcode,
    published_at: row.publishedAt,
    in_scope_assets: row.inScopeAssets,
    out_of_scope_assets: row.outOfScopeAssets,
  };
}

export const Policy = resourceSchema(
  "Policy",
  "policy",
  PolicyAttributes,
  z.object({
    organization: toOneSchema("organization"),
    policy_template: toOneSchema("policy_template"),
    assets: toManySchema("asset"),
    briefs: toManySchema("brief"),
  }),
);

type Enum<T extends readonly string[]> = T[number] | null;

function customDomainVerification(row: PolicyRow): z.infer<typeof CustomDomainVerification> | null {
  if (!row.customDomain || !row.customDomainToken || !row.customDomainClaimedAt) return null;
  const verified = row.customDomainVerifiedAt !== null;
  return {
    status: verified ? "verified" : "pending",
    record_type: "TXT",
    record_name: challengeName(row.customDomain),
    record_value: row.customDomainToken,
    claimed_at: row.customDomainClaimedAt,
    expires_at: verified ? null : claimExpiry(row.customDomainClaimedAt),
    checked_at: row.customDomainCheckedAt,
    verified_at: row.customDomainVerifiedAt,
    failure_reason: row.customDomainFailure,
  };
}

export function serializePolicy(row: PolicyRecord, now: string) {
  return resource(
    "policy",
    row.id,
    {
      ...policyTerms(row, now),
      launch_date: row.launchDate,
      policy_url_status: row.policyUrlStatus as Enum<typeof POLICY_URL_STATUS>,
      creation_mode: row.creationMode as Enum<typeof CREATION_MODE>,
      hosting_mode: row.hostingMode as Enum<typeof HOSTING_MODE>,
      custom_domain: row.customDomain,
      custom_domain_verification: customDomainVerification(row),
      body: row.body,
      branding: row.branding,
      response_targets: responseTargetsOf(row.responseTargets),
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/policies/${row.id}`,
    {
      organization: toOne("organization", row.organizationId),
      policy_template: toOne("policy_template", null),
      assets: toMany("asset", row.assetIds),
      briefs: toMany("brief", row.briefIds),
    },
  );
}

// ---- Versions of the public terms --------------------------------------------------------------

const VersionScopeEntry = z.object({
  kind: z.string().openapi({ enum: [...ASSET_KINDS] }),
  value: z.string().max(LIMITS.assetValueLength),
  short_description: Out.shortDescription.nullable(),
});

/** The terms a version holds: what the policy promised researchers, every response target filled in. */
const VersionTerms = PolicyAttributes.pick({
  name: true,
  short_description: true,
  point_of_contact: true,
  contact_url: true,
  safe_harbor: true,
  public_disclosure: true,
  cvd_timeline: true,
  offers_bounty: true,
  offers_swag: true,
  hall_of_fame: true,
  response_targets: true,
})
  .extend({
    in_scope_assets: z.array(VersionScopeEntry).max(LIMITS.scopeAssets),
    out_of_scope_assets: z.array(VersionScopeEntry).max(LIMITS.scopeAssets),
    body: z
      .string()
      .max(LIMITS.policyBodyLength)
      .optional()
      .openapi({
        description:
          "The policy's full text (Markdown), absent while it has none: so the terms of a policy without a text, and their hash, are " +
          "as they were before policies had one.",
      }),
  })
  .openapi("PolicyVersionTerms");

const VersionAttributes = z.object({
  number: z
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ description: "1 for the terms as created, then one more for each change of them" }),
  sha256: z
    .string()
    .length(64)
    .regex(/^[0-9a-f]{64}$/)
    .openapi({ description: "SHA-256 (hex) of `terms` in their RFC 8785 canonical JSON: anyone can recompute it" }),
  terms: VersionTerms,
  created_at: Timestamp,
});

export const PolicyVersion = resourceSchema(
  "PolicyVersion",
  "policy_version",
  VersionAttributes,
  z.object({ policy: toOneSchema("policy") }),
);

export const VersionNumberParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }),
  number: z
    .string()
    .max(9)
    .regex(/^[1-9][0-9]{0,8}$/)
    .openapi({ param: { name: "number", in: "path" }, example: "1" }),
});

export const ListPolicyVersionsQuery = listQuery();

export function serializePolicyVersion(row: PolicyVersionRow, self: string) {
  return resource(
    "policy_version",
    row.id,
    { number: row.number, sha256: row.sha256, terms: JSON.parse(row.terms) as z.infer<typeof VersionTerms>, created_at: row.createdAt },
    self,
    { policy: toOne("policy", row.policyId) },
  );
}
