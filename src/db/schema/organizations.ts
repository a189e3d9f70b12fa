import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";

export const organizations = sqliteTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    websiteUrl: text("website_url"),
    // false for an organization listed from public analysis that nobody has claimed yet.
    claimed: integer("claimed", { mode: "boolean" }).notNull().default(true),
    ...timestamps,
  },
  (t) => [index("organizations_created_at_idx").on(t.createdAt), index("organizations_updated_at_idx").on(t.updatedAt)],
);

export type OrganizationRow = typeof organizations.$inferSelect;
