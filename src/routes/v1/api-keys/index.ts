import { createRoute } from "@hono/zod-openapi";
import { requireOperator } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { createOrganizationKey, getKey, listOrganizationKeys, revokeKey } from "../../../services/api-keys";
import type { ApiKeyRow } from "../../../db/schema";
import { created, noContent, serviceContext, storedCreated } from "../handler-helpers";
import { ApiKey, CreateApiKeyInput, CreatedApiKey, ListApiKeysQuery, serializeApiKey } from "./schema";

const tags = ["API keys"];
const middleware = [requireOperator()];

/** Mounted under /v1/organizations: keys are made for an organization. */
export const organizationApiKeysRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/api_keys",
      operationId: "createOrganizationApiKey",
      tags,
      summary: "Make an API key for an organization (operator). The key is in this response only.",
      middleware,
      request: { params: IdParam, body: jsonApiBody(CreateApiKeyInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(singleDocument(CreatedApiKey)) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "api_key");
      const withKey = (record: ApiKeyRow, key: string | null) => {
        const resource = serializeApiKey(record);
        return single({ ...resource, attributes: { ...resource.attributes, key } });
      };
      // A replay cannot show the key: only its hash is kept, so the stored response says key: null.
      const stored = (r: ApiKeyRow) => storedCreated(c, withKey(r, null));
      const { key, record } = await createOrganizationKey(serviceContext(c, stored), c.req.valid("param").id, data.attributes.name ?? null);
      return created(c, withKey(record, key));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/api_keys",
      operationId: "listOrganizationApiKeys",
      tags,
      summary: "List an organization's API keys (operator); keys themselves are never shown again",
      middleware,
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

export const apiKeysRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showApiKey",
      tags,
      summary: "Show an API key (operator), without the key itself",
      middleware,
      request: { params: IdParam },
      responses: {
        200: { description: "The API key", content: jsonApiContent(singleDocument(ApiKey)) },
        ...errorResponses("read", { access: "operator" }),
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
      summary: "Revoke an API key (operator); it stops working at once",
      middleware,
      request: { params: IdParam },
      responses: { 204: { description: "Revoked" }, ...errorResponses("read", { access: "operator" }) },
    }),
    async (c) => {
      await revokeKey(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
