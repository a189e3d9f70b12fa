import { createRoute } from "@hono/zod-openapi";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { createBrief, deleteBrief, getBrief, listBriefs, updateBrief } from "../../../services/briefs";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { briefReleaseRouter } from "./release";
import { Brief, CreateBriefInput, ListBriefsQuery, serializeBrief, UpdateBriefInput } from "./schema";

const tags = ["Briefs"];
const BriefDocument = singleDocument(Brief);
const readErrors = errorResponses("read", { notFound: "Brief not found", scope: "read" });
const writeErrors = errorResponses("write", { notFound: "Brief not found", access: "unclaimed", scope: "settings" });
const deleteErrors = errorResponses("read", {
  notFound: "Brief not found",
  access: "unclaimed",
  unprocessable: "reports came through this brief; unpublish it (published_at: null) to close it instead",
  scope: "settings",
});

export const briefsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listBriefs",
      tags,
      summary: "List briefs",
      request: { query: ListBriefsQuery },
      responses: { 200: { description: "Briefs", content: jsonApiContent(collectionDocument(Brief)) }, ...readErrors },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listBriefs(serviceContext(c), { page, sort: query.sort, policyId: query["q[policy_id_eq]"] });
      return respond(c, collection(c, rows.map(serializeBrief), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showBrief",
      tags,
      summary: "Show a brief",
      request: { params: IdParam },
      responses: { 200: { description: "The brief", content: jsonApiContent(BriefDocument) }, ...readErrors },
    }),
    async (c) => respond(c, single(serializeBrief(await getBrief(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createBrief",
      tags,
      summary: "Create a brief, optionally linked to a policy of the same organization",
      request: { body: jsonApiBody(CreateBriefInput) },
      responses: { 201: { description: "Created", content: jsonApiContent(BriefDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "brief");
      const answer = creation(c, serializeBrief);
      const row = await createBrief(serviceContext(c, answer.respond), data.attributes, {
        organizationId: data.relationships?.organization?.data.id,
        policyId: data.relationships?.policy === undefined ? undefined : (data.relationships.policy.data?.id ?? null),
      });
      return answer.created(row);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateBrief",
      tags,
      summary: "Update a brief; its public page is evicted from the edge cache",
      request: { params: IdParam, body: jsonApiBody(UpdateBriefInput) },
      responses: { 200: { description: "Updated", content: jsonApiContent(BriefDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "brief", id);
      const row = await updateBrief(serviceContext(c), id, {
        input: data.attributes,
        links: { policyId: data.relationships?.policy === undefined ? undefined : (data.relationships.policy.data?.id ?? null) },
      });
      return respond(c, single(serializeBrief(row)));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteBrief",
      tags,
      summary: "Delete a brief",
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...deleteErrors },
    }),
    async (c) => {
      await deleteBrief(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );

briefsRouter.route("/", briefReleaseRouter);
