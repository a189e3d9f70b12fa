import { LIMITS } from "../../../lib/limits";
import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import type { AssetRow } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import { ASSET_KINDS, type AssetKind as Kind } from "../../../lib/asset-values";
import { AssetKind, AssetValue, checkedKindValue, relationshipInput, ShortDescription } from "../fields";

export const CreateAssetInput = requestDocument(
  "asset",
  z
    .strictObject({ kind: AssetKind, value: AssetValue, short_description: ShortDescription.nullable().optional() })
    .transform(checkedKindValue),
  z.strictObject({ organization: relationshipInput("organization").optional() }).optional(),
).openapi("CreateAssetInput");

export const UpdateAssetInput = updateDocument(
  "asset",
  z
    .strictObject({ kind: AssetKind.optional(), value: AssetValue.optional(), short_description: ShortDescription.nullable().optional() })
    .optional()
    .default({}),
  z.strictObject({}).optional(),
).openapi("UpdateAssetInput");

export const ListAssetsQuery = listQuery({
  "q[kind_eq]": AssetKind.optional().openapi({ param: { name: "q[kind_eq]", in: "query" } }),
});

export const Asset = resourceSchema(
  "Asset",
  "asset",
  z.object({
    kind: z.enum(ASSET_KINDS),
    value: z.string().max(LIMITS.assetValueLength),
    short_description: Out.shortDescription.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ organization: toOneSchema("organization") }),
);

export function serializeAsset(row: AssetRow) {
  return resource(
    "asset",
    row.id,
    {
      kind: row.kind as Kind,
      value: row.value,
      short_description: row.shortDescription,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/assets/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}
