import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Severity } from "./promises";
import type { CvssVersion } from "./vulns";
import { timestamps } from "./columns";
import { organizations } from "./organizations";
import { vulns } from "./vulns";

// An advisory as published: one model, frozen in each revision (advisory_revisions.document), from
// which every rendering is made (src/lib/advisory*.ts).

export const CREDIT_TYPES = [
  "finder",
  "reporter",
  "analyst",
  "coordinator",
  "remediation_developer",
  "remediation_reviewer",
  "remediation_verifier",
  "tool",
  "sponsor",
  "other",
] as const;
export type CreditType = (typeof CREDIT_TYPES)[number];

export const VERSION_STATUSES = ["affected", "fixed", "unaffected"] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export type AffectedVersion =
  | { version: string; status: VersionStatus }
  | { range: { introduced: string; fixed: string | null }; status: VersionStatus };

export interface AffectedProduct {
  vendor: string;
  product: string;
  purl: string | null;
  versions: AffectedVersion[];
}

export interface Credit {
  name: string;
  type: CreditType;
}

export interface AdvisoryCvss {
  /** The base vector, its metrics in the specification's order. */
  vector: string;
  version: CvssVersion;
  score: number;
  severity: Severity;
}

export interface RevisionEntry {
  number: number;
  date: string;
  note: string;
}

/** What one revision of a published advisory says, whole. */
export interface AdvisoryDocument {
  id: string;
  publisher: { name: string; slug: string; website_url: string | null; organization_id: string };
  title: string;
  summary: string;
  description: string | null;
  affected: AffectedProduct[];
  remediation: string | null;
  references: string[];
  cve_id: string | null;
  cvss: AdvisoryCvss | null;
  cwe_ids: string[];
  credits: Credit[];
  state: "published" | "withdrawn";
  revision: number;
  published_at: string;
  updated_at: string;
  withdrawn_at: string | null;
  /** Every revision so far, the first first; the last is this one. */
  history: RevisionEntry[];
}

export const ADVISORY_STATES = ["draft", "published", "withdrawn"] as const;
export type AdvisoryState = (typeof ADVISORY_STATES)[number];

/** A credit as the organization wrote it: a name, or the reporter of one of its vulns (by their consent). */
export type CreditInput = { name: string; type: CreditType } | { reporter_of: string; type: CreditType };

/**
 * What an organization tells the world about vulnerabilities it fixed. A draft changes freely;
 * publishing freezes revision 1 (advisory_revisions), and every later change of a published advisory,
 * its withdrawal included, freezes the next with its reason. The row holds the advisory as it is now.
 */
export const advisories = sqliteTable(
  "advisories",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    state: text("state", { enum: ADVISORY_STATES }).notNull(),
    // The last revision frozen; 0 for a draft never published.
    revision: integer("revision").notNull().default(0),
    title: text("title").notNull(),
    summary: text("summary"),
    description: text("description"),
    affected: text("affected", { mode: "json" }).$type<AffectedProduct[]>().notNull(),
    remediation: text("remediation"),
    references: text("references", { mode: "json" }).$type<string[]>().notNull(),
    cveId: text("cve_id"),
    cvssVector: text("cvss_vector"),
    cweIds: text("cwe_ids", { mode: "json" }).$type<string[]>().notNull(),
    credits: text("credits", { mode: "json" }).$type<CreditInput[]>().notNull(),
    publishedAt: text("published_at"),
    withdrawnAt: text("withdrawn_at"),
    ...timestamps,
  },
  (t) => [
    index("advisories_organization_created_at_idx").on(t.organizationId, t.createdAt, t.id),
    index("advisories_organization_updated_at_idx").on(t.organizationId, t.updatedAt, t.id),
    // One advisory per CVE id in an organization.
    uniqueIndex("advisories_organization_cve_idx").on(t.organizationId, t.cveId),
  ],
);

/** The advisory's `vulns`: 1 to 20 of its organization's own. */
export const advisoryVulns = sqliteTable(
  "advisory_vulns",
  {
    advisoryId: text("advisory_id")
      .notNull()
      .references(() => advisories.id, { onDelete: "cascade" }),
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.advisoryId, t.vulnId] }), index("advisory_vulns_vuln_idx").on(t.vulnId)],
);

/** Each published revision, whole and never changed (a trigger refuses it): what was said, and when. */
export const advisoryRevisions = sqliteTable(
  "advisory_revisions",
  {
    id: text("id").primaryKey(),
    advisoryId: text("advisory_id")
      .notNull()
      .references(() => advisories.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    note: text("note").notNull(),
    document: text("document", { mode: "json" }).$type<AdvisoryDocument>().notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("advisory_revisions_advisory_number_idx").on(t.advisoryId, t.number)],
);

export type AdvisoryRow = typeof advisories.$inferSelect;
export type AdvisoryRevisionRow = typeof advisoryRevisions.$inferSelect;
