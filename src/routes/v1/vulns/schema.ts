import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { INBOX_STATES, PROCESSING_STATES, type Submission } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { listQuery, uuidQuery, requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument, Uuid } from "../../../http/openapi";
import { normalizeHostname } from "../../../lib/asset-values";
import type { VulnRecord } from "../../../services/vulns";
import { DateTimeInput, relationshipInput } from "../fields";

// API.md section 5: title <= 300, description <= 100,000, up to 50 domains and 20 tags.
const Title = z.string().trim().min(1, "must not be empty").max(300, "must be at most 300 characters");
const Description = z
  .string()
  .max(100_000, "must be at most 100000 characters")
  .refine((v) => v.trim().length > 0, "must not be empty");
const ContactEmail = z.email("must be a valid e-mail address").max(254, "must be at most 254 characters");
const Domain = z
  .string()
  .trim()
  .transform((v, ctx) => normalizeHostname(v) ?? (ctx.addIssue({ code: "custom", message: "must be a domain name such as app.example.com" }), z.NEVER))
  .openapi({ type: "string", format: "hostname" });
const Domains = z.array(Domain).max(50, "at most 50 domains");
const Tags = z.array(z.string().trim().min(1, "must not be empty").max(50, "must be at most 50 characters")).max(20, "at most 20 tags");

/** What a researcher submits, through the API or a brief's public page. */
export const SubmissionAttributes = z.strictObject({
  title: Title,
  description: Description,
  contact_email: ContactEmail.nullable().optional(),
  domains: Domains.optional(),
});

const CreateAttributes = SubmissionAttributes.extend({ tags: Tags.optional() });
const BriefRelationship = z.strictObject({ brief: relationshipInput("brief") });

export const CreateVulnInput = requestDocument(CreateAttributes, BriefRelationship).openapi("CreateVulnInput");

// The spec requires every create member on PATCH too; processing_state closes and reopens.
export const UpdateVulnInput = updateDocument(
  CreateAttributes.extend({ processing_state: z.enum(PROCESSING_STATES).optional() }),
  BriefRelationship,
).openapi("UpdateVulnInput");

export const ListVulnsQuery = listQuery({
  "q[processing_state_eq]": z.enum(PROCESSING_STATES).optional().openapi({ param: { name: "q[processing_state_eq]", in: "query" } }),
  "q[inbox_state_eq]": z.enum(INBOX_STATES).optional().openapi({ param: { name: "q[inbox_state_eq]", in: "query" } }),
  "q[brief_id_eq]": uuidQuery("q[brief_id_eq]"),
  "q[created_at_gteq]": DateTimeInput.optional().openapi({ param: { name: "q[created_at_gteq]", in: "query" } }),
  "q[created_at_lteq]": DateTimeInput.optional().openapi({ param: { name: "q[created_at_lteq]", in: "query" } }),
});

export const Vuln = resourceSchema(
  "Vuln",
  "vuln",
  z.object({
    title: z.string(),
    description: z.string(),
    shortcode: z.string().openapi({ example: "7KQ2-M9XD-4TRA" }),
    inbox_state: z.enum(INBOX_STATES),
    processing_state: z.enum(PROCESSING_STATES),
    contact_email: z.string().nullable(),
    domains: z.array(z.string()),
    tags: z.array(z.string()),
    read_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ organization: toOneSchema("organization"), brief: toOneSchema("brief") }),
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
      contact_email: row.contactEmail,
      domains: row.domains,
      tags: row.tags,
      read_at: row.readAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/vulns/${row.id}`,
    { organization: toOne("organization", row.organizationId), brief: toOne("brief", row.briefId) },
  );
}
