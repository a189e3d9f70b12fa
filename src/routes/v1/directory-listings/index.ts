import { LIMITS } from "../../../lib/limits";
import { createRoute } from "@hono/zod-openapi";
import { requireOperator } from "../../../http/auth";
import { ApiError } from "../../../http/errors";
import { assertDocumentMatches, collection, JSONAPI_VERSION, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { z } from "@hono/zod-openapi";
import { createListing, deleteListing, getListing, listListings, updateListing } from "../../../services/directory-listings";
import { addItem, deleteItem, listItems, reorderItems } from "../../../services/directory-listing-items";
import { creation, noContent, serviceContext } from "../handler-helpers";
import {
  CreateItemInput,
  CreateListingInput,
  DirectoryListing,
  DirectoryListingItem,
  ItemParams,
  ItemsQuery,
  ListingParam,
  ListListingsQuery,
  ReorderItemsInput,
  serializeItem,
  serializeListing,
  UpdateListingInput,
} from "./schema";

const tags = ["Directory listings"];

export const directoryListingsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listDirectoryListings",
      tags,
      summary: "List the organization's directory listings (an operator sees all)",
      request: { query: ListListingsQuery },
      responses: {
        200: { description: "Listings", content: jsonApiContent(collectionDocument(DirectoryListing)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listListings(serviceContext(c), { page, sort: query.sort, visible: query["q[visible_eq]"] });
      return respond(c, collection(c, rows.map(serializeListing), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showDirectoryListing",
      tags,
      summary: "Show a directory listing",
      request: { params: IdParam },
      responses: {
        200: { description: "The listing", content: jsonApiContent(singleDocument(DirectoryListing)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeListing(await getListing(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createDirectoryListing",
      tags,
      summary: "List an organization in a directory (operator; also organizations nobody has claimed)",
      middleware: [requireOperator()],
      request: { body: jsonApiBody(CreateListingInput) },
      responses: {
        201: { description: "Created, visible", content: jsonApiContent(singleDocument(DirectoryListing)) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "directory_listing");
      const answer = creation(c, serializeListing);
      const row = await createListing(
        serviceContext(c, answer.respond),
        data.relationships.directory.data.id,
        data.relationships.organization.data.id,
      );
      return answer.created(row);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateDirectoryListing",
      tags,
      summary:
        "Show or hide the organization in the directory (the body carries data.id); the organization's key, or an operator, for any organization",
      request: { params: IdParam, body: jsonApiBody(UpdateListingInput) },
      responses: {
        200: { description: "Updated", content: jsonApiContent(singleDocument(DirectoryListing)) },
        ...errorResponses("write", { scope: "settings" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "directory_listing", id);
      const row = await updateListing(serviceContext(c), id, data.attributes);
      return respond(c, single(serializeListing(row)));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteDirectoryListing",
      tags,
      summary: "Remove an organization from a directory (operator)",
      middleware: [requireOperator()],
      request: { params: IdParam },
      responses: { 204: { description: "Removed" }, ...errorResponses("read", { access: "operator" }) },
    }),
    async (c) => {
      await deleteListing(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{directory_listing_id}/items",
      operationId: "listDirectoryListingItems",
      tags,
      summary: "The listing's items, in position order",
      request: { params: ListingParam, query: ItemsQuery },
      responses: {
        200: { description: "Items", content: jsonApiContent(collectionDocument(DirectoryListingItem)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const page = pageOf(c.req.valid("query"));
      const { rows, total } = await listItems(serviceContext(c), c.req.valid("param").directory_listing_id, page);
      return respond(c, collection(c, rows.map(serializeItem), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{directory_listing_id}/items",
      operationId: "createDirectoryListingItem",
      tags,
      summary: "Display a published Policy or Brief of the organization, at the end (422 Unprocessable entity otherwise)",
      request: { params: ListingParam, body: jsonApiBody(CreateItemInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(singleDocument(DirectoryListingItem)) },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "directory_listing_item");
      const answer = creation(c, serializeItem);
      const item = await addItem(serviceContext(c, answer.respond), c.req.valid("param").directory_listing_id, {
        type: data.attributes.listable_type,
        id: data.attributes.listable_id,
      });
      return answer.created(item);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{directory_listing_id}/items/reorder",
      operationId: "reorderDirectoryListingItems",
      tags,
      summary: "Put the items in this order; name every item exactly once. Answers the items in their new order",
      request: { params: ListingParam, body: jsonApiBody(ReorderItemsInput) },
      responses: {
        200: {
          description: "The items in order",
          content: jsonApiContent(
            z.object({ jsonapi: z.object({ version: z.literal("1.1") }), data: z.array(DirectoryListingItem).max(LIMITS.itemsPerListing) }),
          ),
        },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      data.forEach((d, i) => {
        if (d.type !== "directory_listing_item") {
          throw new ApiError("conflict", {
            detail: `data/${i}/type must be "directory_listing_item", got "${d.type}".`,
            source: { pointer: `/data/${i}/type` },
          });
        }
      });
      const rows = await reorderItems(
        serviceContext(c),
        c.req.valid("param").directory_listing_id,
        data.map((d) => d.id),
      );
      return respond(c, { jsonapi: JSONAPI_VERSION, data: rows.map(serializeItem) });
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{directory_listing_id}/items/{id}",
      operationId: "deleteDirectoryListingItem",
      tags,
      summary: "Remove an item; the positions after it close up",
      request: { params: ItemParams },
      responses: { 204: { description: "Removed" }, ...errorResponses("read", { access: "unclaimed", scope: "settings" }) },
    }),
    async (c) => {
      const { directory_listing_id, id } = c.req.valid("param");
      await deleteItem(serviceContext(c), directory_listing_id, id);
      return noContent(c);
    },
  );
