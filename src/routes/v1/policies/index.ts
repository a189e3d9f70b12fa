import { createRoute } from "@hono/zod-openapi";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, errorResponses, IdParam, jsonApiBody, jsonApiContent, singleDocument } from "../../../http/openapi";
import { createRouter } from "../../../http/router";
import { nowIso } from "../../../lib/ids";
import { createPolicy, deletePolicy, getPolicy, listPolicies, type PolicyRecord, updatePolicy } from "../../../services/policies";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { CreatePolicyInput, ListPoliciesQuery, Policy, serializePolicy, UpdatePolicyInput } from "./schema";

const tags = ["Policies"];
const PolicyDocument = singleDocument(Policy);

export const policiesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listPolicies",
      tags,
      summary: "List policies",
      request: { query: ListPoliciesQuery },
      responses: { 200: { description: "Policies", content: jsonApiContent(collectionDocument(Policy)) }, ...errorResponses("read") },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listPolicies(serviceContext(c), page, query.sort);
      const now = nowIso();
      return respond(
        c,
        collection(
          c,
          rows.map((r) => serializePolicy(r, now)),
          page,
          total,
        ),
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showPolicy",
      tags,
      summary: "Show a policy",
      request: { params: IdParam },
      responses: { 200: { description: "The policy", content: jsonApiContent(PolicyDocument) }, ...errorResponses("read") },
    }),
    async (c) => respond(c, single(serializePolicy(await getPolicy(serviceContext(c), c.req.valid("param").id), nowIso()))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createPolicy",
      tags,
      summary: "Create a policy",
      request: { body: jsonApiBody(CreatePolicyInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(PolicyDocument) },
        ...errorResponses("write", { access: "unclaimed" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "policy");
      const answer = creation(c, (r: PolicyRecord) => serializePolicy(r, nowIso()));
      const record = await createPolicy(
        serviceContext(c),
        data.attributes,
        { organizationId: data.relationships?.organization?.data.id, assetIds: data.relationships?.assets?.data.map((a) => a.id) },
        answer.respond,
      );
      return answer.created(record);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updatePolicy",
      tags,
      summary: "Update a policy; attributes not sent are kept, scope arrays are replaced whole",
      request: { params: IdParam, body: jsonApiBody(UpdatePolicyInput) },
      responses: {
        200: { description: "Updated", content: jsonApiContent(PolicyDocument) },
        ...errorResponses("write", { access: "unclaimed" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "policy", id);
      const record = await updatePolicy(serviceContext(c), id, data.attributes, {
        assetIds: data.relationships?.assets?.data.map((a) => a.id),
      });
      return respond(c, single(serializePolicy(record, nowIso())));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deletePolicy",
      tags,
      summary: "Delete a policy; its briefs stay, detached from it",
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses("read", { access: "unclaimed" }) },
    }),
    async (c) => {
      await deletePolicy(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
