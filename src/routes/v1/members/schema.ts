import { z } from "@hono/zod-openapi";
import { MEMBER_ROLES, type MemberRow } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { booleanQuery, listQuery, uuidQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import { Name, relationshipInput } from "../fields";
import { LIMITS } from "../../../lib/limits";

/** An address a person signs in with: kept in lower case, one member per address in an organization. */
export const MemberEmail = z
  .email("must be a valid e-mail address")
  .max(LIMITS.emailLength, `must be at most ${LIMITS.emailLength} characters`)
  .openapi({ description: "Kept in lower case; one member per address in an organization. The person signs in with it." });
const MemberRole = z.enum(MEMBER_ROLES).openapi({
  description:
    "viewer: reads everything of the organization. triager: also changes reports, comments, files, advisories and regulatory " +
    "reports. owner: also changes policies, briefs, assets, contacts, webhooks, members, keys and canned responses. An " +
    "organization keeps at least one owner.",
});

/** A new member's attributes: the API's document and the console's form are checked by this one schema. */
export const MemberAttributesInput = z.strictObject({ email: MemberEmail, name: Name.nullable().optional(), role: MemberRole });

export const CreateMemberInput = requestDocument(
  "member",
  MemberAttributesInput,
  z.strictObject({ organization: relationshipInput("organization").optional() }).optional(),
).openapi("CreateMemberInput");

export const UpdateMemberInput = updateDocument(
  "member",
  z.strictObject({ email: MemberEmail.optional(), name: Name.nullable().optional(), role: MemberRole.optional() }).optional().default({}),
  z.strictObject({}).optional(),
).openapi("UpdateMemberInput");

export const ListMembersQuery = listQuery({
  "q[role_eq]": MemberRole.optional().openapi({ param: { name: "q[role_eq]", in: "query" } }),
  "q[joined_eq]": booleanQuery("q[joined_eq]"),
  "q[email_eq]": MemberEmail.optional().openapi({ param: { name: "q[email_eq]", in: "query" } }),
  "q[organization_id_eq]": uuidQuery("q[organization_id_eq]").openapi({
    param: {
      name: "q[organization_id_eq]",
      in: "query",
      description: "One organization's members (for operators, who read every organization's; a key reads its own only).",
    },
  }),
});

export const Member = resourceSchema(
  "Member",
  "member",
  z.object({
    email: z.string().max(LIMITS.emailLength).openapi({ format: "email" }),
    name: z.string().max(LIMITS.nameLength).nullable(),
    role: z.enum(MEMBER_ROLES),
    invited_at: Timestamp.openapi({ description: "When the invitation e-mail was written: on creation, and again with a new address." }),
    joined_at: Timestamp.nullable().openapi({
      description:
        "When the person accepted the invitation (the button of the invitation's page); null until then, and again after the address changes.",
    }),
    last_sign_in_at: Timestamp.nullable().openapi({ description: "When the member last signed in; null if never." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ organization: toOneSchema("organization") }),
);

export function serializeMember(row: MemberRow) {
  return resource(
    "member",
    row.id,
    {
      email: row.email,
      name: row.name,
      role: row.role,
      invited_at: row.invitedAt,
      joined_at: row.joinedAt,
      last_sign_in_at: row.lastSignInAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/members/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}
