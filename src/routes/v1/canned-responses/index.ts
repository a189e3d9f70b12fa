import { createRoute } from "@hono/zod-openapi";
import { requireOrganizationKey } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import {
  createCannedResponse,
  deleteCannedResponse,
  getCannedResponse,
  listCannedResponses,
  updateCannedResponse,
} from "../../../services/canned-responses";
import { creation, noContent, serviceContext } from "../handler-helpers";
import {
  CannedResponse,
  CreateCannedResponseInput,
  ListCannedResponsesQuery,
  serializeCannedResponse,
  UpdateCannedResponseInput,
} from "./schema";

const tags = ["Canned responses"];
// The organization's own replies: operators read them, never change them.
const organizationOnly = [requireOrganizationKey("canned responses")];
const writeErrors = errorResponses("write", { access: "organization", scope: "settings" });
const CannedResponseDocument = singleDocument(CannedResponse);

export const cannedResponsesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listCannedResponses",
      tags,
      summary: "List the organization's canned responses",
      request: { query: ListCannedResponsesQuery },
      responses: {
        200: { description: "Canned responses", content: jsonApiContent(collectionDocument(CannedResponse)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listCannedResponses(serviceContext(c), { page, sort: query.sort });
      return respond(c, collection(c, rows.map(serializeCannedResponse), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showCannedResponse",
      tags,
      summary: "Show a canned response",
      request: { params: IdParam },
      responses: {
        200: { description: "The canned response", content: jsonApiContent(CannedResponseDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeCannedResponse(await getCannedResponse(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createCannedResponse",
      tags,
      summary: "Add a canned response; its name is unique in the organization (organization key only)",
      middleware: organizationOnly,
      request: { body: jsonApiBody(CreateCannedResponseInput) },
      responses: { 201: { description: "Created", content: jsonApiContent(CannedResponseDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "canned_response");
      const answer = creation(c, serializeCannedResponse);
      const organization = data.relationships?.organization?.data.id;
      return answer.created(await createCannedResponse(serviceContext(c, answer.respond), data.attributes, organization));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateCannedResponse",
      tags,
      summary: "Update a canned response (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam, body: jsonApiBody(UpdateCannedResponseInput) },
      responses: { 200: { description: "Updated", content: jsonApiContent(CannedResponseDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "canned_response", id);
      return respond(c, single(serializeCannedResponse(await updateCannedResponse(serviceContext(c), id, data.attributes))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteCannedResponse",
      tags,
      summary: "Delete a canned response (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses("read", { access: "organization", scope: "settings" }) },
    }),
    async (c) => {
      await deleteCannedResponse(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
