import { z } from "@hono/zod-openapi";
import { CONTACT_ROLES, type ContactRow } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { booleanQuery, listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import { Name, relationshipInput } from "../fields";
import { LIMITS } from "../../../lib/limits";

const ContactEmail = z
  .email("must be a valid e-mail address")
  .max(LIMITS.emailLength, `must be at most ${LIMITS.emailLength} characters`)
  .openapi({ description: "Kept in lower case; one contact per address in an organization." });
const ContactRole = z.enum(CONTACT_ROLES).openapi({
  description:
    "responder: e-mailed about new reports, reporters' comments and approaching deadlines. escalation: e-mailed when an acknowledge, " +
    "triage or EU Cyber Resilience Act deadline is missed. With no confirmed contact of one role, those of the other get its e-mails.",
});

/** A new contact's attributes: the API's document and the console's form are checked by this one schema. */
export const ContactAttributesInput = z.strictObject({ name: Name, email: ContactEmail, role: ContactRole });

export const CreateContactInput = requestDocument(
  "contact",
  ContactAttributesInput,
  z.strictObject({ organization: relationshipInput("organization").optional() }).optional(),
).openapi("CreateContactInput");

export const UpdateContactInput = updateDocument(
  "contact",
  z.strictObject({ name: Name.optional(), email: ContactEmail.optional(), role: ContactRole.optional() }).optional().default({}),
  z.strictObject({}).optional(),
).openapi("UpdateContactInput");

export const ListContactsQuery = listQuery({
  "q[role_eq]": ContactRole.optional().openapi({ param: { name: "q[role_eq]", in: "query" } }),
  "q[confirmed_eq]": booleanQuery("q[confirmed_eq]"),
});

export const Contact = resourceSchema(
  "Contact",
  "contact",
  z.object({
    name: z.string().max(LIMITS.nameLength),
    email: z.string().max(LIMITS.emailLength).openapi({ format: "email" }),
    role: z.enum(CONTACT_ROLES),
    confirmed_at: Timestamp.nullable().openapi({
      description:
        "When its owner confirmed the address (the link of the confirmation e-mail); null until then, and again after the address changes.",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ organization: toOneSchema("organization") }),
);

export function serializeContact(row: ContactRow) {
  return resource(
    "contact",
    row.id,
    {
      name: row.name,
      email: row.email,
      role: row.role,
      confirmed_at: row.confirmedAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/contacts/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}
