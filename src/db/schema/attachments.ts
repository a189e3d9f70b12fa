import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./organizations";
import { vulns } from "./vulns";

export const UPLOADERS = ["organization", "reporter"] as const;
export type Uploader = (typeof UPLOADERS)[number];

/**
 * A file attached to a vuln. The bytes live in R2 under `object_key`; this row is the only way to
 * reach them, so an object without its row (an upload whose batch failed, a deleted vuln's files) is
 * never readable and the cron purges it. Rows go with their vuln (cascade); nothing updates a row.
 */
export const attachments = sqliteTable(
  "attachments",
  {
    id: text("id").primaryKey(),
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    byteSize: integer("byte_size").notNull(),
    sha256: text("sha256").notNull(),
    uploadedBy: text("uploaded_by", { enum: UPLOADERS }).notNull(),
    objectKey: text("object_key").notNull().unique(),
    createdAt: text("created_at").notNull(),
  },
  // A vuln's list (and its limits' count and sum) is a seek on this index.
  (t) => [index("attachments_vuln_created_at_idx").on(t.vulnId, t.createdAt, t.id, t.byteSize)],
);

export type AttachmentRow = typeof attachments.$inferSelect;
