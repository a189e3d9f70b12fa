import { SLUG_PATTERN } from "../../../lib/ids";
import { LIMITS } from "../../../lib/limits";
import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import type { OrganizationRow } from "../../../db/schema";
import { resource } from "../../../http/jsonapi";
import { booleanQuery, listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, updateDocument } from "../../../http/openapi/documents";
import { HttpUrl, Name } from "../fields";
import { MemberEmail } from "../members/schema";

export const Slug = z
  .string()
  .max(LIMITS.slugLength, `must be at most ${LIMITS.slugLength} characters`)
  .regex(SLUG_PATTERN, `must be lowercase letters, digits and inner hyphens, at most ${LIMITS.slugLength} characters`);

export const OrganizationAttributes = z.object({
  name: Out.name,
  slug: Out.slug,
  website_url: Out.url.nullable(),
  claimed: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Organization = resourceSchema("Organization", "organization", OrganizationAttributes, z.object({}));

export const CreateOrganizationInput = requestDocument(
  "organization",
  z.strictObject({
    name: Name,
    slug: Slug,
    website_url: HttpUrl.nullable().optional(),
    claimed: z.boolean().optional(),
    owner_email: MemberEmail.optional().openapi({
      description:
        "The organization's first owner: a member with role owner is made with the organization and gets the invitation e-mail. " +
        "Not kept on the organization (read it in GET /v1/members).",
    }),
  }),
  z.strictObject({}).optional(),
).openapi("CreateOrganizationInput");

export const UpdateOrganizationInput = updateDocument(
  "organization",
  z.strictObject({
    name: Name.optional(),
    slug: Slug.optional(),
    website_url: HttpUrl.nullable().optional(),
    claimed: z.boolean().optional(),
  }),
  z.strictObject({}).optional(),
).openapi("UpdateOrganizationInput");

export const ListOrganizationsQuery = listQuery({ "q[claimed_eq]": booleanQuery("q[claimed_eq]") });

export function serializeOrganization(row: OrganizationRow) {
  return resource(
    "organization",
    row.id,
    {
      name: row.name,
      slug: row.slug,
      website_url: row.websiteUrl,
      claimed: row.claimed,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/organizations/${row.id}`,
  );
}
