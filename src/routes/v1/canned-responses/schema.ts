import { z } from "@hono/zod-openapi";
import { COMMENT_VISIBILITIES, type CannedResponseRow } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import { LIMITS } from "../../../lib/limits";
import { Name, relationshipInput } from "../fields";

const CannedName = Name.openapi({ description: "Unique within the organization." });
const Body = z
  .string()
  .max(LIMITS.cannedResponseBodyLength, `must be at most ${LIMITS.cannedResponseBodyLength} characters`)
  .refine((v) => v.trim().length > 0, "must not be empty")
  .openapi({
    description:
      "The reply's text. {{reporter_name}}, {{shortcode}} and {{policy_url}} are filled with the report's when the response is used; " +
      "any other {{...}} stays as typed.",
  });
const Visibility = z.enum(COMMENT_VISIBILITIES).openapi({
  description: "The visibility a comment made from it gets by default: internal (the organization's note) or reporter.",
});

/** A canned response's members, as the API and the console's form take them. */
export const CannedResponseAttributes = z.strictObject({ name: CannedName, body: Body, visibility: Visibility });

export const CreateCannedResponseInput = requestDocument(
  "canned_response",
  CannedResponseAttributes,
  z.strictObject({ organization: relationshipInput("organization").optional() }).optional(),
).openapi("CreateCannedResponseInput");

export const UpdateCannedResponseInput = updateDocument(
  "canned_response",
  z.strictObject({ name: CannedName.optional(), body: Body.optional(), visibility: Visibility.optional() }).optional().default({}),
  z.strictObject({}).optional(),
).openapi("UpdateCannedResponseInput");

export const ListCannedResponsesQuery = listQuery({});

export const CannedResponse = resourceSchema(
  "CannedResponse",
  "canned_response",
  z.object({
    name: z.string().max(LIMITS.nameLength),
    body: z.string().max(LIMITS.cannedResponseBodyLength),
    visibility: z.enum(COMMENT_VISIBILITIES),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ organization: toOneSchema("organization") }),
);

export function serializeCannedResponse(row: CannedResponseRow) {
  return resource(
    "canned_response",
    row.id,
    { name: row.name, body: row.body, visibility: row.visibility, created_at: row.createdAt, updated_at: row.updatedAt },
    `/v1/canned_responses/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}
