import { createRoute } from "@hono/zod-openapi";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { createAsset, deleteAsset, getAsset, listAssets, updateAsset } from "../../../services/assets";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { Asset, CreateAssetInput, ListAssetsQuery, serializeAsset, UpdateAssetInput } from "./schema";

const tags = ["Assets"];
const AssetDocument = singleDocument(Asset);

export const assetsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listAssets",
      tags,
      summary: "List assets",
      request: { query: ListAssetsQuery },
      responses: {
        200: { description: "Assets", content: jsonApiContent(collectionDocument(Asset)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listAssets(serviceContext(c), { page, sort: query.sort, kind: query["q[kind_eq]"] });
      return respond(c, collection(c, rows.map(serializeAsset), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showAsset",
      tags,
      summary: "Show an asset",
      request: { params: IdParam },
      responses: {
        200: { description: "The asset", content: jsonApiContent(AssetDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeAsset(await getAsset(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createAsset",
      tags,
      summary: "Create an asset; its value is checked against its kind, and (kind, value) is unique per organization",
      request: { body: jsonApiBody(CreateAssetInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(AssetDocument) },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "asset");
      const answer = creation(c, serializeAsset);
      const row = await createAsset(serviceContext(c, answer.respond), data.attributes, data.relationships?.organization?.data.id);
      return answer.created(row);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateAsset",
      tags,
      summary: "Update an asset",
      request: { params: IdParam, body: jsonApiBody(UpdateAssetInput) },
      responses: {
        200: { description: "Updated", content: jsonApiContent(AssetDocument) },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "asset", id);
      return respond(c, single(serializeAsset(await updateAsset(serviceContext(c), id, data.attributes))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteAsset",
      tags,
      summary: "Delete an asset",
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses("read", { access: "unclaimed", scope: "settings" }) },
    }),
    async (c) => {
      await deleteAsset(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
