import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./organizations";
import { vulns } from "./vulns";

/** What the EU Cyber Resilience Act asks a manufacturer to file about an actively exploited vulnerability. */
export const REGULATORY_REPORT_KINDS = ["early_warning", "notification", "final_report"] as const;
export type RegulatoryReportKind = (typeof REGULATORY_REPORT_KINDS)[number];

/**
 * What an organization filed with an authority about a vuln: the platform keeps the record (and the
 * clock, on the vuln), it sends nothing anywhere. A filing meets the vuln's deadline of its kind; none
 * is ever changed, and they go with their vuln (cascade).
 */
export const regulatoryReports = sqliteTable(
  "regulatory_reports",
  {
    id: text("id").primaryKey(),
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: REGULATORY_REPORT_KINDS }).notNull(),
    submittedAt: text("submitted_at").notNull(),
    reference: text("reference"),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("regulatory_reports_vuln_created_at_idx").on(t.vulnId, t.createdAt, t.id)],
);

export type RegulatoryReportRow = typeof regulatoryReports.$inferSelect;
