import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";
import { policies, type ScopeAsset } from "./policies";

/** The evidence a brief may ask of a report, each field required or optional. */
export const EVIDENCE_FIELDS = [
  "steps_to_reproduce",
  "proof_of_concept",
  "affected_version",
  "expected_result",
  "actual_result",
  "impact",
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];
export const REQUIREMENT_LEVELS = ["required", "optional"] as const;
export const AI_DISCLOSURES = ["required", "optional", "off"] as const;
export const PROOF_OF_WORK_MODES = ["off", "on", "auto"] as const;
export type ProofOfWorkMode = (typeof PROOF_OF_WORK_MODES)[number];

/** What a brief asks a reporter to bring: evidence fields (a field left out is not asked) and whether AI use is declared. */
export type SubmissionRequirements = {
  evidence: Partial<Record<EvidenceField, (typeof REQUIREMENT_LEVELS)[number]>>;
  ai_disclosure: (typeof AI_DISCLOSURES)[number];
};
export const NO_REQUIREMENTS: SubmissionRequirements = { evidence: {}, ai_disclosure: "off" };

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
    // The gate at the public door. Every default keeps a brief as it was: nothing asked, no proof of
    // work, no cap, no pause, no lane.
    submissionRequirements: text("submission_requirements", { mode: "json" })
      .$type<SubmissionRequirements>()
      .notNull()
      .default(sql`'${sql.raw(JSON.stringify(NO_REQUIREMENTS))}'`),
    proofOfWork: text("proof_of_work", { enum: PROOF_OF_WORK_MODES }).notNull().default("off"),
    // The submissions an hour the brief expects: past it, `auto` turns proof of work on and the difficulty rises.
    expectedHourly: integer("expected_hourly").notNull().default(10),
    // Reports admitted a UTC day; past it, reports queue (inbox_state queued) for the next days.
    dailyCap: integer("daily_cap"),
    intakePausedUntil: text("intake_paused_until"),
    intakePausedMessage: text("intake_paused_message"),
    // A reporter key with at least this many valid reports to the organization skips proof of work (null: no lane).
    verifiedLaneMinValid: integer("verified_lane_min_valid"),
    ...timestamps,
  },
  (t) => [
    index("briefs_organization_created_at_idx").on(t.organizationId, t.createdAt),
    index("briefs_organization_updated_at_idx").on(t.organizationId, t.updatedAt),
    index("briefs_policy_idx").on(t.policyId),
  ],
);

export type BriefRow = typeof briefs.$inferSelect;
