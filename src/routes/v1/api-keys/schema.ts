import { API_KEY_PATTERN } from "../../../lib/crypto";
import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import type { ApiKeyRow } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema } from "../../../http/openapi/documents";
import { Name } from "../fields";

const ApiKeyAttributes = z.object({
  name: Out.name.nullable(),
  kind: z.enum(["organization", "operator"]),
  key_prefix: z
    .string()
    .max(8)
    .regex(/^vdp_[0-9A-Za-z]{4}$/)
    .openapi({ description: "The first 8 characters of the key, to tell keys apart." }),
  revoked_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const ApiKeyRelationships = z.object({ organization: toOneSchema("organization") });

export const ApiKey = resourceSchema("ApiKey", "api_key", ApiKeyAttributes, ApiKeyRelationships);

export const CreatedApiKey = resourceSchema(
  "CreatedApiKey",
  "api_key",
  ApiKeyAttributes.extend({
    key: z.string().max(47).regex(API_KEY_PATTERN).nullable().openapi({
      description: "The key itself, shown in this response only (null when an Idempotency-Key replays it: the key is never stored).",
    }),
  }),
  ApiKeyRelationships,
);

export const CreateApiKeyInput = requestDocument(
  "api_key",
  z.strictObject({ name: Name.nullable().optional() }).optional().default({}),
  z.strictObject({}).optional(),
).openapi("CreateApiKeyInput");

export const ListApiKeysQuery = listQuery();

export function serializeApiKey(row: ApiKeyRow) {
  return resource(
    "api_key",
    row.id,
    {
      name: row.name,
      kind: row.kind,
      key_prefix: row.keyPrefix,
      revoked_at: row.revokedAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/api_keys/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}
