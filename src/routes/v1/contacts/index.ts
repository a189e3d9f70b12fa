import { createRoute } from "@hono/zod-openapi";
import { requireOrganizationKey } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { LIMITS } from "../../../lib/limits";
import { createContact, deleteContact, getContact, listContacts, updateContact } from "../../../services/contacts";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { Contact, CreateContactInput, ListContactsQuery, serializeContact, UpdateContactInput } from "./schema";

const tags = ["Contacts"];
// Contacts are who the platform e-mails about reports: operators read them, never change them.
const organizationOnly = [requireOrganizationKey("contacts")];
const writeErrors = errorResponses("write", { access: "organization", scope: "settings" });
const ContactDocument = singleDocument(Contact);

export const contactsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listContacts",
      tags,
      summary: "List the organization's contacts: the people e-mailed about its reports",
      request: { query: ListContactsQuery },
      responses: {
        200: { description: "Contacts", content: jsonApiContent(collectionDocument(Contact)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listContacts(serviceContext(c), {
        page,
        sort: query.sort,
        role: query["q[role_eq]"],
        confirmed: query["q[confirmed_eq]"],
      });
      return respond(c, collection(c, rows.map(serializeContact), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showContact",
      tags,
      summary: "Show a contact",
      request: { params: IdParam },
      responses: {
        200: { description: "The contact", content: jsonApiContent(ContactDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeContact(await getContact(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createContact",
      tags,
      summary:
        `Add a contact (at most ${LIMITS.contactsPerOrganization}); its address gets one confirmation e-mail and nothing else until ` +
        `confirmed (organization key only)`,
      middleware: organizationOnly,
      request: { body: jsonApiBody(CreateContactInput) },
      responses: { 201: { description: "Created, unconfirmed", content: jsonApiContent(ContactDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "contact");
      const answer = creation(c, serializeContact);
      const organization = data.relationships?.organization?.data.id;
      return answer.created(await createContact(serviceContext(c, answer.respond), data.attributes, organization));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateContact",
      tags,
      summary: "Update a contact; a new address is unconfirmed again and gets its own confirmation e-mail (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam, body: jsonApiBody(UpdateContactInput) },
      responses: { 200: { description: "Updated", content: jsonApiContent(ContactDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "contact", id);
      return respond(c, single(serializeContact(await updateContact(serviceContext(c), id, data.attributes))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteContact",
      tags,
      summary: "Delete a contact: its e-mails not yet sent are not sent (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses("read", { access: "organization", scope: "settings" }) },
    }),
    async (c) => {
      await deleteContact(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
