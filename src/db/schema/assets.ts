import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

export const assets = sqliteTable(
  "assets",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    value: text("value").notNull(),
    shortDescription: text("short_description"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("assets_organization_kind_value_idx").on(t.organizationId, t.kind, t.value),
    index("assets_organization_created_at_idx").on(t.organizationId, t.createdAt),
    index("assets_organization_updated_at_idx").on(t.organizationId, t.updatedAt),
  ],
);

export type AssetRow = typeof assets.$inferSelect;
