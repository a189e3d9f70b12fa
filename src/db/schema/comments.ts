import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./organizations";
import { vulns } from "./vulns";

export const COMMENT_AUTHORS = ["organization", "reporter"] as const;
export const COMMENT_VISIBILITIES = ["internal", "reporter"] as const;
export type CommentAuthor = (typeof COMMENT_AUTHORS)[number];
export type CommentVisibility = (typeof COMMENT_VISIBILITIES)[number];

/**
 * The conversation on a vuln. `internal` comments are the organization's notes; `reporter` ones are
 * shown to the reporter (whose own comments are always `reporter`). The author is a side, never a
 * key: the reporter must not learn which of the organization's keys (or whose name) wrote a reply.
 * Comments go with their vuln (cascade); nothing updates one.
 */
export const comments = sqliteTable(
  "comments",
  {
    id: text("id").primaryKey(),
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    author: text("author", { enum: COMMENT_AUTHORS }).notNull(),
    visibility: text("visibility", { enum: COMMENT_VISIBILITIES }).notNull(),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull(),
  },
  // The organization's thread and the reporter's (reporter-visible only) are each a seek on one index.
  (t) => [
    index("comments_vuln_created_at_idx").on(t.vulnId, t.createdAt, t.id),
    index("comments_vuln_visibility_idx").on(t.vulnId, t.visibility, t.createdAt, t.id),
  ],
);

export type CommentRow = typeof comments.$inferSelect;

/**
 * The follow-up tokens of deleted reports (their SHA-256), written by a trigger on vulns
 * (migration 0013) on every delete, cascades included, so a reporter whose report the organization
 * deleted is told so (404) rather than that the token is wrong (401).
 */
export const deletedReportTokens = sqliteTable("deleted_report_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  deletedAt: text("deleted_at").notNull(),
});
