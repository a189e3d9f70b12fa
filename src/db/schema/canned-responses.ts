import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { COMMENT_VISIBILITIES } from "./comments";
import { organizations } from "./organizations";

/**
 * A reply an organization keeps ready: its name, its body (with `{{reporter_name}}`, `{{shortcode}}`
 * and `{{policy_url}}` filled in when used) and the visibility a comment made from it gets by default.
 * Names are unique within an organization.
 */
export const cannedResponses = sqliteTable(
  "canned_responses",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    body: text("body").notNull(),
    visibility: text("visibility", { enum: COMMENT_VISIBILITIES }).notNull(),
    ...timestamps,
  },
  (t) => [
    index("canned_responses_organization_created_at_idx").on(t.organizationId, t.createdAt, t.id),
    index("canned_responses_organization_updated_at_idx").on(t.organizationId, t.updatedAt, t.id),
    uniqueIndex("canned_responses_organization_name_idx").on(t.organizationId, t.name),
  ],
);

export type CannedResponseRow = typeof cannedResponses.$inferSelect;
