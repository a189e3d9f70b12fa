import { API_KEY_PATTERN } from "../../../lib/crypto";
import { Out } from "../../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import type { ApiKeyRow } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema } from "../../../http/openapi/documents";
import { DateTimeInput, Name, relationshipInput } from "../fields";
import { ALL_SCOPES } from "../../../lib/caller";
import { API_KEY_SCOPES } from "../../../db/schema";

const ScopeName = z.enum(API_KEY_SCOPES);

const ApiKeyAttributes = z.object({
  name: Out.name.nullable(),
  kind: z.enum(["organization", "operator"]),
  key_prefix: z
    .string()
    .max(8)
    .regex(/^vdp_[0-9A-Za-z]{4}$/)
    .openapi({ description: "The first 8 characters of the key, to tell keys apart." }),
  scopes: z
    .array(ScopeName)
    .max(API_KEY_SCOPES.length)
    .openapi({
      description:
        "What the key may do: `read` reads everything of the organization; `vulns` changes reports, comments, files and regulatory " +
        "reports; `advisories` drafts and publishes advisories; `settings` changes policies, briefs, assets, contacts and webhooks; " +
        "`members` changes members and keys. A call outside them is a 403 insufficient_scope.",
    }),
  expires_at: Timestamp.nullable().openapi({ description: "When the key stops working (401, like a revoked key); null: never." }),
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

/** A new key's terms: the API's document and the console's form are checked by this one schema. */
export const KeyTermsInput = z
  .strictObject({
    name: Name.nullable().optional(),
    scopes: z
      .array(ScopeName)
      .min(1, "must name at least one scope")
      .max(API_KEY_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, "must not name a scope twice")
      .optional()
      .openapi({
        description:
          "Any of `read`, `vulns`, `advisories`, `settings`, `members`. Omitted: every scope the caller holds (all of them for an " +
          "operator or a key with all). A key cannot make a key with a scope it does not hold (403 insufficient_scope).",
      }),
    expires_at: DateTimeInput.nullable()
      .optional()
      .openapi({
        description:
          "When the key stops working, in the future. Omitted or null: never; a key that expires makes keys that expire no later " +
          "(omitted: when it does).",
      }),
  })
  .optional()
  .default({});

export const CreateApiKeyInput = requestDocument("api_key", KeyTermsInput, z.strictObject({}).optional()).openapi("CreateApiKeyInput");

export const CreateOwnApiKeyInput = requestDocument(
  "api_key",
  KeyTermsInput,
  z.strictObject({ organization: relationshipInput("organization").optional() }).optional(),
).openapi("CreateOwnApiKeyInput");

export const ListApiKeysQuery = listQuery();

export function serializeApiKey(row: ApiKeyRow) {
  return resource(
    "api_key",
    row.id,
    {
      name: row.name,
      kind: row.kind,
      key_prefix: row.keyPrefix,
      // Null (a key made before scopes existed) is every scope.
      scopes: [...(row.scopes ?? ALL_SCOPES)],
      expires_at: row.expiresAt,
      revoked_at: row.revokedAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/api_keys/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}
