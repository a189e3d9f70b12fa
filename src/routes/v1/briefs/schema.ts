import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import type { BriefRow } from "../../../db/schema";
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

const BriefAttributesInput = z.strictObject({
  name: Name,
  short_description: ShortDescription.nullable().optional(),
  published_at: DateTimeInput.nullable().optional().openapi({ description: "null is a draft; a future time schedules publication" }),
  in_scope_assets: ScopeAssetsInput.optional(),
  out_of_scope_assets: ScopeAssetsInput.optional(),
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

export const BriefAttributes = z.object({
  name: Out.name,
  short_description: Out.shortDescription.nullable(),
  shortcode: Out.briefShortcode.openapi({ description: "Used in the public read path /v1/p/briefs/{shortcode}" }),
  published_at: Timestamp.nullable(),
  in_scope_assets: z.array(ScopeAssetSchema).max(LIMITS.scopeAssets),
  out_of_scope_assets: z.array(ScopeAssetSchema).max(LIMITS.scopeAssets),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Brief = resourceSchema(
  "Brief",
  "brief",
  BriefAttributes,
  z.object({ organization: toOneSchema("organization"), policy: toOneSchema("policy") }),
);

export function briefAttributes(row: BriefRow) {
  return {
    name: row.name,
    short_description: row.shortDescription,
    shortcode: row.shortcode,
    published_at: row.publishedAt,
    in_scope_assets: row.inScopeAssets,
    out_of_scope_assets: row.outOfScopeAssets,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function serializeBrief(row: BriefRow) {
  return resource("brief", row.id, briefAttributes(row), `/v1/briefs/${row.id}`, {
    organization: toOne("organization", row.organizationId),
    policy: toOne("policy", row.policyId),
  });
}
