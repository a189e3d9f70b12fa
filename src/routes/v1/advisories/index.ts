import { createRoute, z } from "@hono/zod-openapi";
import { requireOrganizationKey } from "../../../http/auth";
import { assertDocumentMatches, collection, JSONAPI_VERSION, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, JsonApiObject, RecordLink, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam, NoQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import {
  createAdvisory,
  deleteAdvisory,
  getAdvisory,
  getAdvisoryRevision,
  listAdvisories,
  listAdvisoryRevisions,
  updateAdvisory,
} from "../../../services/advisories";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { VersionNumberParam } from "../policies/schema";
import {
  Advisory,
  AdvisoryRevision,
  CreateAdvisoryInput,
  ListAdvisoriesQuery,
  serializeAdvisory,
  serializeAdvisoryRevision,
  UpdateAdvisoryInput,
} from "./schema";

const tags = ["Advisories"];
// What an organization publishes in its own name: its key writes, operators read.
const organizationOnly = [requireOrganizationKey("advisories")];
const writeErrors = errorResponses("write", { access: "organization", scope: "advisories" });
const AdvisoryDocument = singleDocument(Advisory);
const RevisionsDocument = z.object({
  jsonapi: JsonApiObject,
  data: z.array(AdvisoryRevision).max(1_000_000),
  links: z.object({ self: RecordLink }),
});

export const advisoriesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listAdvisories",
      tags,
      summary: "List the organization's advisories, drafts included",
      request: { query: ListAdvisoriesQuery },
      responses: {
        200: { description: "Advisories", content: jsonApiContent(collectionDocument(Advisory)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listAdvisories(serviceContext(c), { page, sort: query.sort, state: query["q[state_eq]"] });
      return respond(c, collection(c, rows.map(serializeAdvisory), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showAdvisory",
      tags,
      summary: "Show an advisory as it is now",
      request: { params: IdParam },
      responses: {
        200: { description: "The advisory", content: jsonApiContent(AdvisoryDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeAdvisory(await getAdvisory(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createAdvisory",
      tags,
      summary:
        "Write an advisory about 1 to 20 of the organization's vulns: a draft, or published at once (state: published), which " +
        "freezes revision 1, meets the vulns' disclosure deadline and fires Advisory::Published (organization key only)",
      middleware: organizationOnly,
      request: { body: jsonApiBody(CreateAdvisoryInput) },
      responses: { 201: { description: "Created", content: jsonApiContent(AdvisoryDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "advisory");
      const answer = creation(c, serializeAdvisory);
      const vulnIds = data.relationships.vulns.data.map((v) => v.id);
      return answer.created(await createAdvisory(serviceContext(c, answer.respond), data.attributes, vulnIds));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateAdvisory",
      tags,
      summary:
        "Change an advisory. A draft changes in place and publishes with state: published; a change of a published one, or its " +
        "withdrawal (state: withdrawn), freezes the next revision and needs revision_note; a withdrawn one is final (organization " +
        "key only)",
      middleware: organizationOnly,
      request: { params: IdParam, body: jsonApiBody(UpdateAdvisoryInput) },
      responses: { 200: { description: "Updated", content: jsonApiContent(AdvisoryDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "advisory", id);
      const vulnIds = data.relationships?.vulns?.data.map((v) => v.id);
      return respond(c, single(serializeAdvisory(await updateAdvisory(serviceContext(c), id, { input: data.attributes, vulnIds }))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteAdvisory",
      tags,
      summary: "Delete a draft; a published advisory stays (withdraw it instead: 422) (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: {
        204: { description: "Deleted" },
        ...errorResponses("read", {
          access: "organization",
          unprocessable: "the advisory was published: withdraw it instead",
          scope: "advisories",
        }),
      },
    }),
    async (c) => {
      await deleteAdvisory(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/revisions",
      operationId: "listAdvisoryRevisions",
      tags,
      summary: "Every revision an advisory published, oldest first, each whole (none for a draft never published)",
      request: { params: IdParam, query: NoQuery },
      responses: {
        200: { description: "Revisions", content: jsonApiContent(RevisionsDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const rows = await listAdvisoryRevisions(serviceContext(c), id);
      return respond(c, {
        jsonapi: JSONAPI_VERSION,
        data: rows.map(serializeAdvisoryRevision),
        links: { self: `/v1/advisories/${id}/revisions` },
      });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/revisions/{number}",
      operationId: "showAdvisoryRevision",
      tags,
      summary: "One revision of an advisory, as it was published",
      request: { params: VersionNumberParam },
      responses: {
        200: { description: "The revision", content: jsonApiContent(singleDocument(AdvisoryRevision)) },
        ...errorResponses("read", { notFound: "No advisory with that id, or no such revision", scope: "read" }),
      },
    }),
    async (c) => {
      const { id, number } = c.req.valid("param");
      return respond(c, single(serializeAdvisoryRevision(await getAdvisoryRevision(serviceContext(c), id, Number(number)))));
    },
  );
