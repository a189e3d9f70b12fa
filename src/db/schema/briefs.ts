import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";
import { policies, type ScopeAsset } from "./policies";

export const briefs = sqliteTable(
  "briefs",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    // A brief may stand alone; deleting its policy detaches it rather than deleting reports' entry point.
    policyId: text("policy_id").references(() => policies.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    shortDescription: text("short_description"),
    shortcode: text("shortcode").notNull().unique(),
    publishedAt: text("published_at"),
    inScopeAssets: text("in_scope_assets", { mode: "json" }).$type<ScopeAsset[]>().notNull(),
    outOfScopeAssets: text("out_of_scope_assets", { mode: "json" }).$type<ScopeAsset[]>().notNull(),
    ...timestamps,
  },
  (t) => [
    index("briefs_organization_created_at_idx").on(t.organizationId, t.createdAt),
    index("briefs_organization_updated_at_idx").on(t.organizationId, t.updatedAt),
    index("briefs_policy_idx").on(t.policyId),
  ],
);

export type BriefRow = typeof briefs.$inferSelect;
