import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

/** A public directory of organizations, curated by the operator. */
export const directories = sqliteTable(
  "directories",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    description: text("description"),
    // Organizations whose best published policy rates lower are not shown.
    minMaturityRating: integer("min_maturity_rating").notNull().default(0),
    ...timestamps,
  },
  (t) => [index("directories_created_at_idx").on(t.createdAt), index("directories_updated_at_idx").on(t.updatedAt)],
);

/** One organization in one directory. */
export const directoryListings = sqliteTable(
  "directory_listings",
  {
    id: text("id").primaryKey(),
    directoryId: text("directory_id")
      .notNull()
      .references(() => directories.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    visible: integer("visible", { mode: "boolean" }).notNull().default(true),
    // Set by the organization's first change to its visibility or items.
    customized: integer("customized", { mode: "boolean" }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("directory_listings_directory_organization_idx").on(t.directoryId, t.organizationId),
    index("directory_listings_organization_created_at_idx").on(t.organizationId, t.createdAt),
    index("directory_listings_organization_updated_at_idx").on(t.organizationId, t.updatedAt),
  ],
);

export const LISTABLE_TYPES = ["Policy", "Brief"] as const;
export type ListableType = (typeof LISTABLE_TYPES)[number];

/** A policy or brief a listing displays, in position order (1..n, no gaps). */
export const directoryListingItems = sqliteTable(
  "directory_listing_items",
  {
    id: text("id").primaryKey(),
    listingId: text("listing_id")
      .notNull()
      .references(() => directoryListings.id, { onDelete: "cascade" }),
    listableType: text("listable_type", { enum: LISTABLE_TYPES }).notNull(),
    listableId: text("listable_id").notNull(),
    position: integer("position").notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("directory_listing_items_listable_idx").on(t.listingId, t.listableType, t.listableId),
    index("directory_listing_items_position_idx").on(t.listingId, t.position),
    index("directory_listing_items_listable_lookup_idx").on(t.listableType, t.listableId),
  ],
);

export type DirectoryRow = typeof directories.$inferSelect;
export type DirectoryListingRow = typeof directoryListings.$inferSelect;
export type DirectoryListingItemRow = typeof directoryListingItems.$inferSelect;
