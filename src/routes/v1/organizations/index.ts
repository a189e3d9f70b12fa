import { createRoute } from "@hono/zod-openapi";
import { requireOperator } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { respond } from "../../../http/media-type";
import { createOrganization, getOrganization, listOrganizations, updateOrganization } from "../../../services/organizations";
import { creation, serviceContext } from "../handler-helpers";
import { CreateOrganizationInput, ListOrganizationsQuery, Organization, serializeOrganization, UpdateOrganizationInput } from "./schema";

const tags = ["Organizations"];
const OrganizationDocument = singleDocument(Organization);

export const organizationsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listOrganizations",
      tags,
      summary: "List organizations (an organization key sees its own; an operator key sees all)",
      request: { query: ListOrganizationsQuery },
      responses: {
        200: { description: "Organizations", content: jsonApiContent(collectionDocument(Organization)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listOrganizations(serviceContext(c), { page, sort: query.sort, claimed: query["q[claimed_eq]"] });
      return respond(c, collection(c, rows.map(serializeOrganization), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showOrganization",
      tags,
      summary: "Show an organization",
      request: { params: IdParam },
      responses: {
        200: { description: "The organization", content: jsonApiContent(OrganizationDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const row = await getOrganization(serviceContext(c), c.req.valid("param").id);
      return respond(c, single(serializeOrganization(row)));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createOrganization",
      tags,
      summary: "Create an organization (operator)",
      middleware: [requireOperator()],
      request: { body: jsonApiBody(CreateOrganizationInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(OrganizationDocument) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "organization");
      const answer = creation(c, serializeOrganization);
      const row = await createOrganization(serviceContext(c, answer.respond), data.attributes);
      return answer.created(row);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateOrganization",
      tags,
      summary: "Update an organization (operator)",
      middleware: [requireOperator()],
      request: { params: IdParam, body: jsonApiBody(UpdateOrganizationInput) },
      responses: {
        200: { description: "Updated", content: jsonApiContent(OrganizationDocument) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "organization", id);
      const row = await updateOrganization(serviceContext(c), id, data.attributes);
      return respond(c, single(serializeOrganization(row)));
    },
  );
