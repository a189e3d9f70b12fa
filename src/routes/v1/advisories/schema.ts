import { z } from "@hono/zod-openapi";
import { PackageURL } from "packageurl-js";
import { CVSS_VECTOR_PATTERN } from "../../../lib/cvss";
import { ADVISORY_STATES, type AdvisoryDocument, type AdvisoryRevisionRow, CVSS_VERSIONS, SEVERITIES } from "../../../db/schema";
import { resource, toMany, toOne } from "../../../http/jsonapi";
import { listQuery } from "../../../http/openapi/queries";
import {
  Out,
  resourceSchema,
  Timestamp,
  toManySchema,
  toOneSchema,
  updateDocument,
  Uuid,
  requestDocument,
} from "../../../http/openapi/documents";
import { CREDIT_TYPES, cweName, purlVersionProblem, VERSION_STATUSES, versionProblem } from "../../../lib/advisory";
import { LIMITS } from "../../../lib/limits";
import { SINGLE_LINE_PATTERN } from "../../../lib/text";
import type { AdvisoryRecord } from "../../../services/advisories";
import { CvssVector, CweIds, Name, RelatedId, SingleLine, webUrl } from "../fields";

// An advisory's request and response schemas. The renderings of a published advisory (CSAF, OSV,
// CVE) are made from its frozen revision: src/lib/advisory*.ts.

const text = (max: number) => z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);
/** One line of text (a title, a revision's note): src/lib/text.ts. */
const line = (max: number) => SingleLine.trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);
const Version = line(LIMITS.versionLength)
  .superRefine((v, ctx) => {
    const problem = versionProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi({
    description:
      'One version, as the product numbers it: no "<", ">" or "|", nor the words after, all, before, earlier, later, prior or versions standing alone (those are ranges, and CSAF refuses them as a version).',
  });

/** A package URL, checked and normalized by the purl project's own library. */
const Purl = z
  .string()
  .max(LIMITS.purlLength, `must be at most ${LIMITS.purlLength} characters`)
  .regex(/^\s*pkg:/i, "must be a package URL such as pkg:npm/%40acme/widget")
  .transform((v, ctx) => {
    try {
      return PackageURL.fromString(v.trim()).toString();
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `must be a package URL such as pkg:npm/%40acme/widget (${(err as Error).message})` });
      return z.NEVER;
    }
  })
  .openapi({
    type: "string",
    maxLength: LIMITS.purlLength,
    pattern: "^\\s*[Pp][Kk][Gg]:",
    example: "pkg:npm/%40acme/widget",
    description: "A package URL (purl), checked and normalized by the purl project's library.",
  });

const VersionEntry = z.union([
  z.strictObject({ version: Version, status: z.enum(VERSION_STATUSES) }),
  z.strictObject({
    range: z.strictObject({ introduced: Version, fixed: Version.nullable().optional().default(null) }),
    status: z.enum(VERSION_STATUSES),
  }),
]);

const Product = z
  .strictObject({
    vendor: Name,
    product: Name,
    purl: Purl.nullable().optional().default(null),
    versions: z
      .array(VersionEntry)
      .min(1, "must name at least one version or range")
      .max(LIMITS.versionsPerProduct)
      .refine(
        (vs) => new Set(vs.map((v) => ("version" in v ? `v:${v.version}` : `r:${v.range.introduced}-${v.range.fixed}`))).size === vs.length,
        "names a version or range twice",
      ),
  })
  .superRefine((p, ctx) => {
    // CSAF names each version's package by the purl at that version: the package's type must take it
    // (a Go module's version that starts with "v" is semantic versioning, for one).
    // Zod runs this even when a member failed its own checks: only well-formed versions are judged here.
    if (typeof p.purl !== "string" || !p.purl.startsWith("pkg:") || !Array.isArray(p.versions)) return;
    p.versions.forEach((v, i) => {
      if (typeof v !== "object" || v === null || ("version" in v && (!SINGLE_LINE_PATTERN.test(v.version) || versionProblem(v.version))))
        return;
      const problem = purlVersionProblem(p.purl as string, v);
      if (problem) ctx.addIssue({ code: "custom", path: ["versions", i, "version"], message: problem });
    });
  });

const References = z
  .array(webUrl("https"))
  .max(LIMITS.referencesPerAdvisory)
  .refine((refs) => new Set(refs).size === refs.length, "names a reference twice");

const CVE_ID_PATTERN = /^CVE-\d{4}-\d{4,19}$/;
const CveId = z.string().max(30).regex(CVE_ID_PATTERN, "must be a CVE id such as CVE-2026-12345");
export const CweOut = z
  .string()
  .max(10)
  .regex(/^CWE-[1-9]\d{0,5}$/);

const Credit = z.union([
  z.strictObject({ name: Name, type: z.enum(CREDIT_TYPES) }),
  z.strictObject({
    reporter_of: RelatedId.openapi({
      description: "A vuln of the advisory whose reporter consented to be credited: their chosen name is shown.",
    }),
    type: z.enum(CREDIT_TYPES),
  }),
]);

/** Known CWE ids only: CSAF and CVE records carry each with MITRE's name for it. */
const KnownCweIds = CweIds.refine((ids) => ids.every((id) => cweName(id) !== null), "names a CWE id MITRE's list does not have").refine(
  (ids) => new Set(ids).size === ids.length,
  "names a CWE id twice",
);

const attributes = {
  summary: text(LIMITS.advisorySummaryLength).nullable(),
  description: text(LIMITS.advisoryDescriptionLength).nullable(),
  affected: z.array(Product).min(1).max(LIMITS.productsPerAdvisory),
  remediation: text(LIMITS.advisoryRemediationLength).nullable(),
  references: References,
  cve_id: CveId.nullable(),
  cvss_vector: CvssVector.nullable(),
  cwe_ids: KnownCweIds,
  credits: z.array(Credit).max(LIMITS.creditsPerAdvisory),
  state: z.enum(ADVISORY_STATES),
  revision_note: line(LIMITS.revisionNoteLength).openapi({
    description:
      'Why a published advisory changed (or was withdrawn): required with such a change, kept in its revision history. At publication, optional (default "Initial publication").',
  }),
};

const VulnsInput = z.strictObject({
  data: z
    .array(z.strictObject({ type: z.literal("vuln"), id: RelatedId }))
    .min(1, "an advisory names at least one vuln")
    .max(LIMITS.vulnsPerAdvisory),
});

/** Every writable member, each optional: what a change takes, and a create too but for its required ones. */
const AdvisoryChange = z.strictObject({
  title: line(LIMITS.titleLength).optional(),
  summary: attributes.summary.optional(),
  description: attributes.description.optional(),
  affected: attributes.affected.optional(),
  remediation: attributes.remediation.optional(),
  references: attributes.references.optional(),
  cve_id: attributes.cve_id.optional(),
  cvss_vector: attributes.cvss_vector.optional(),
  cwe_ids: attributes.cwe_ids.optional(),
  credits: attributes.credits.optional(),
  state: attributes.state.optional(),
  revision_note: attributes.revision_note.optional(),
});

export const CreateAdvisoryInput = requestDocument(
  "advisory",
  AdvisoryChange.extend({
    title: line(LIMITS.titleLength),
    affected: attributes.affected,
    // A create makes a draft or publishes at once; only a published advisory is withdrawn.
    state: z.enum(["draft", "published"]).optional(),
  }),
  z.strictObject({ vulns: VulnsInput }),
).openapi("CreateAdvisoryInput");

export const UpdateAdvisoryInput = updateDocument(
  "advisory",
  AdvisoryChange.optional().default({}),
  z.strictObject({ vulns: VulnsInput.optional() }).optional(),
).openapi("UpdateAdvisoryInput");

export const ListAdvisoriesQuery = listQuery({
  "q[state_eq]": z
    .enum(ADVISORY_STATES)
    .optional()
    .openapi({ param: { name: "q[state_eq]", in: "query" } }),
});

export const ProductOut = z.object({
  vendor: Out.name,
  product: Out.name,
  purl: z.string().max(LIMITS.purlLength).regex(/^pkg:/).nullable(),
  versions: z
    .array(
      z.union([
        z.object({ version: z.string().max(LIMITS.versionLength), status: z.enum(VERSION_STATUSES) }),
        z.object({
          range: z.object({ introduced: z.string().max(LIMITS.versionLength), fixed: z.string().max(LIMITS.versionLength).nullable() }),
          status: z.enum(VERSION_STATUSES),
        }),
      ]),
    )
    .max(LIMITS.versionsPerProduct),
});
const CreditOut = z.union([
  z.object({ name: Out.name, type: z.enum(CREDIT_TYPES) }),
  z.object({ reporter_of: Uuid, type: z.enum(CREDIT_TYPES) }),
]);

export const Advisory = resourceSchema(
  "Advisory",
  "advisory",
  z.object({
    title: z.string().max(LIMITS.titleLength),
    summary: z.string().max(LIMITS.advisorySummaryLength).nullable(),
    description: z.string().max(LIMITS.advisoryDescriptionLength).nullable(),
    affected: z.array(ProductOut).max(LIMITS.productsPerAdvisory),
    remediation: z.string().max(LIMITS.advisoryRemediationLength).nullable(),
    references: z.array(Out.url).max(LIMITS.referencesPerAdvisory),
    cve_id: z.string().max(30).regex(CVE_ID_PATTERN).nullable(),
    cvss_vector: z
      .string()
      .max(LIMITS.cvssVectorLength)
      .regex(CVSS_VECTOR_PATTERN)
      .nullable()
      .openapi({
        description:
          "The base vector (its base metrics, in the specification's order). Left out at creation: the highest-scoring vector of its " +
          "vulns, reduced to its base.",
      }),
    cwe_ids: z.array(CweOut).max(LIMITS.cweIdsPerVuln).openapi({ description: "Left out at creation: its vulns' CWE ids together." }),
    credits: z.array(CreditOut).max(LIMITS.creditsPerAdvisory),
    state: z.enum(ADVISORY_STATES).openapi({
      description:
        "draft: the organization's alone. published: public; each change makes a revision. withdrawn: public, marked withdrawn, final.",
    }),
    revision: z.int().min(0).max(1_000_000).openapi({ description: "The last revision published; 0 for a draft never published." }),
    published_at: Timestamp.nullable(),
    withdrawn_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ organization: toOneSchema("organization"), vulns: toManySchema("vuln", LIMITS.vulnsPerAdvisory) }),
);

export function serializeAdvisory(row: AdvisoryRecord) {
  return resource(
    "advisory",
    row.id,
    {
      title: row.title,
      summary: row.summary,
      description: row.description,
      affected: row.affected,
      remediation: row.remediation,
      references: row.references,
      cve_id: row.cveId,
      cvss_vector: row.cvssVector,
      cwe_ids: row.cweIds,
      credits: row.credits,
      state: row.state,
      revision: row.revision,
      published_at: row.publishedAt,
      withdrawn_at: row.withdrawnAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/advisories/${row.id}`,
    { organization: toOne("organization", row.organizationId), vulns: toMany("vuln", row.vulnIds) },
  );
}

/** A published advisory's members, as anyone reads them (one revision's whole). */
export const PublicAdvisoryAttributes = z
  .object({
    title: z.string().max(LIMITS.titleLength),
    summary: z.string().max(LIMITS.advisorySummaryLength),
    description: z.string().max(LIMITS.advisoryDescriptionLength).nullable(),
    publisher: z.object({ name: Out.name, slug: Out.slug }),
    affected: z.array(ProductOut).max(LIMITS.productsPerAdvisory),
    remediation: z.string().max(LIMITS.advisoryRemediationLength).nullable(),
    references: z.array(Out.url).max(LIMITS.referencesPerAdvisory),
    cve_id: z.string().max(30).regex(CVE_ID_PATTERN).nullable(),
    cvss: z
      .object({
        vector: z.string().max(LIMITS.cvssVectorLength).regex(CVSS_VECTOR_PATTERN),
        version: z.enum(CVSS_VERSIONS),
        score: z.number().min(0).max(10),
        severity: z.enum(SEVERITIES),
      })
      .nullable(),
    cwes: z.array(z.object({ id: CweOut, name: z.string().max(300).nullable() })).max(LIMITS.cweIdsPerVuln),
    credits: z.array(z.object({ name: Out.name, type: z.enum(CREDIT_TYPES) })).max(LIMITS.creditsPerAdvisory),
    state: z.enum(["published", "withdrawn"]),
    revision: z.int().min(1).max(1_000_000),
    published_at: Timestamp,
    updated_at: Timestamp,
    withdrawn_at: Timestamp.nullable(),
    revision_history: z
      .array(z.object({ number: z.int().min(1).max(1_000_000), date: Timestamp, note: z.string().max(LIMITS.revisionNoteLength) }))
      .max(1_000_000),
  })
  .openapi("PublicAdvisoryAttributes");

export function publicAdvisoryAttributes(doc: AdvisoryDocument) {
  const { id: _, publisher, cwe_ids, history, ...rest } = doc;
  return {
    ...rest,
    publisher: { name: publisher.name, slug: publisher.slug },
    cwes: cwe_ids.map((id) => ({ id, name: cweName(id) })),
    revision_history: history,
  };
}

/** A frozen revision, whole: what was published, when and why. */
export const AdvisoryRevision = resourceSchema(
  "AdvisoryRevision",
  "advisory_revision",
  z.object({
    number: z.int().min(1).max(1_000_000),
    note: z.string().max(LIMITS.revisionNoteLength),
    created_at: Timestamp,
    document: PublicAdvisoryAttributes,
  }),
  z.object({ advisory: toOneSchema("advisory") }),
);

export function serializeAdvisoryRevision(row: AdvisoryRevisionRow) {
  return resource(
    "advisory_revision",
    row.id,
    { number: row.number, note: row.note, created_at: row.createdAt, document: publicAdvisoryAttributes(row.document) },
    `/v1/advisories/${row.advisoryId}/revisions/${row.number}`,
    { advisory: toOne("advisory", row.advisoryId) },
  );
}
