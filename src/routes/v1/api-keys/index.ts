import { createRoute } from "@hono/zod-openapi";
import { requireOperator } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { createKey, createOrganizationKey, getKey, listKeys, listOrganizationKeys, revokeKey } from "../../../services/api-keys";
import type { ApiKeyRow } from "../../../db/schema";
import type { Context } from "hono";
import { created, noContent, serviceContext, storedCreated } from "../handler-helpers";
import { ApiKey, CreateApiKeyInput, CreatedApiKey, CreateOwnApiKeyInput, ListApiKeysQuery, serializeApiKey } from "./schema";

const tags = ["API keys"];
const operatorOnly = [requireOperator()];

/** A made key's answer: with the key itself, which exists in this answer only. */
function keyAnswer(c: Context) {
  const withKey = (record: ApiKeyRow, key: string | null) => {
    const resource = serializeApiKey(record);
    return single({ ...resource, attributes: { ...resource.attributes, key } });
  };
  // A replay cannot show the key: only its hash is kept, so the stored response says key: null.
  return {
    stored: (r: ApiKeyRow) => storedCreated(c, withKey(r, null)),
    created: (r: ApiKeyRow, key: string) => created(c, withKey(r, key)),
  };
}

/** Mounted under /v1/organizations: keys an operator makes for an organization. */
export const organizationApiKeysRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/api_keys",
      operationId: "createOrganizationApiKey",
      tags,
      summary: "Make an API key for an organization (operator). The key is in this response only.",
      middleware: operatorOnly,
      request: { params: IdParam, body: jsonApiBody(CreateApiKeyInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(singleDocument(CreatedApiKey)) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "api_key");
      const answer = keyAnswer(c);
      const { key, record } = await createOrganizationKey(serviceContext(c, answer.stored), c.req.valid("param").id, data.attributes);
      return answer.created(record, key);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/api_keys",
      operationId: "listOrganizationApiKeys",
      tags,
      summary: "List an organization's API keys (operator); keys themselves are never shown again",
      middleware: operatorOnly,
      request: { params: IdParam, query: ListApiKeysQuery },
      responses: {
        200: { description: "API keys", content: jsonApiContent(collectionDocument(ApiKey)) },
        ...errorResponses("read", { access: "operator" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listOrganizationKeys(serviceContext(c), c.req.valid("param").id, { page, sort: query.sort });
      return respond(c, collection(c, rows.map(serializeApiKey), page, total));
    },
  );

/** The organization's own keys (an operator's: every key), as GitHub's and Stripe's users manage theirs. */
export const apiKeysRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listApiKeys",
      tags,
      summary: "List the organization's API keys (an operator: every key); keys themselves are never shown again",
      request: { query: ListApiKeysQuery },
      responses: {
        200: { description: "API keys", content: jsonApiContent(collectionDocument(ApiKey)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listKeys(serviceContext(c), { page, sort: query.sort });
      return respond(c, collection(c, rows.map(serializeApiKey), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createApiKey",
      tags,
      summary:
        "Make an API key for the organization, with at most the scopes of the key that makes it (an operator names the " +
        "organization). The key is in this response only.",
      request: { body: jsonApiBody(CreateOwnApiKeyInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(singleDocument(CreatedApiKey)) },
        ...errorResponses("write", { scope: "members" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "api_key");
      const answer = keyAnswer(c);
      const organizationId = data.relationships?.organization?.data.id;
      const { key, record } = await createKey(serviceContext(c, answer.stored), data.attributes, organizationId);
      return answer.created(record, key);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showApiKey",
      tags,
      summary: "Show an API key of the organization (an operator: any), without the key itself",
      request: { params: IdParam },
      responses: {
        200: { description: "The API key", content: jsonApiContent(singleDocument(ApiKey)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeApiKey(await getKey(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "revokeApiKey",
      tags,
      summary: "Revoke an API key of the organization (an operator: any); it stops working at once",
      request: { params: IdParam },
      responses: { 204: { description: "Revoked" }, ...errorResponses("read", { scope: "members" }) },
    }),
    async (c) => {
      await revokeKey(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
