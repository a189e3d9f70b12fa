import { Out } from "../../../http/openapi/documents";
import { LIMITS } from "../../../lib/limits";
import { z } from "@hono/zod-openapi";
import { LISTABLE_TYPES } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { booleanQuery, listQuery, pageQuery } from "../../../http/openapi/queries";
import { dataType, requestDocument, resourceSchema, Timestamp, toOneSchema, updateDocument, Uuid } from "../../../http/openapi/documents";
import type { ItemRecord } from "../../../services/directory-listing-items";
import type { ListingRecord } from "../../../services/directory-listings";
import { relationshipInput } from "../fields";

export const DirectoryListing = resourceSchema(
  "DirectoryListing",
  "directory_listing",
  z.object({ visible: z.boolean(), customized: z.boolean(), created_at: Timestamp, updated_at: Timestamp }),
  z.object({ directory: toOneSchema("directory"), organization: toOneSchema("organization") }),
);

export const DirectoryListingItem = resourceSchema(
  "DirectoryListingItem",
  "directory_listing_item",
  z.object({
    listable_type: z.enum(LISTABLE_TYPES),
    listable_id: Uuid,
    listable_name: Out.name.nullable(),
    position: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({ directory_listing: toOneSchema("directory_listing") }),
);

export const CreateListingInput = requestDocument(
  "directory_listing",
  z.strictObject({}).optional(),
  z.strictObject({ directory: relationshipInput("directory"), organization: relationshipInput("organization") }),
).openapi("CreateDirectoryListingInput");

export const UpdateListingInput = updateDocument(
  "directory_listing",
  z.strictObject({ visible: z.boolean() }),
  z.strictObject({}).optional(),
).openapi("UpdateDirectoryListingInput");

export const ListListingsQuery = listQuery({ "q[visible_eq]": booleanQuery("q[visible_eq]") });

export const CreateItemInput = requestDocument(
  "directory_listing_item",
  z.strictObject({ listable_type: z.enum(LISTABLE_TYPES), listable_id: z.string().openapi({ format: "uuid" }) }),
  z.strictObject({}).optional(),
).openapi("CreateDirectoryListingItemInput");

export const ReorderItemsInput = z
  .strictObject({ data: z.array(z.strictObject({ type: dataType("directory_listing_item"), id: Uuid })).max(LIMITS.itemsPerListing) })
  .openapi("ReorderDirectoryListingItemsInput");

// Items come in position order: pages, but no sort.
export const ItemsQuery = z.strictObject({ ...pageQuery });

export const ListingParam = z.object({
  directory_listing_id: z.string().openapi({ param: { name: "directory_listing_id", in: "path" }, format: "uuid" }),
});
export const ItemParams = ListingParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }) });

export function serializeListing(row: ListingRecord) {
  return resource(
    "directory_listing",
    row.id,
    { visible: row.visible, customized: row.customized, created_at: row.createdAt, updated_at: row.updatedAt },
    `/v1/directory_listings/${row.id}`,
    { directory: toOne("directory", row.directoryId), organization: toOne("organization", row.organizationId) },
  );
}

export function serializeItem(row: ItemRecord) {
  return resource(
    "directory_listing_item",
    row.id,
    {
      listable_type: row.listableType,
      listable_id: row.listableId,
      listable_name: row.listableName,
      position: row.position,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/directory_listings/${row.listingId}/items/${row.id}`,
    { directory_listing: toOne("directory_listing", row.listingId) },
  );
}
