import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { policies } from "./policies";

/**
 * The public terms of a policy as they stood, one row per change of them, never changed afterwards
 * (a trigger refuses it, migration 0024): `terms` is their canonical JSON (RFC 8785), `sha256` its hash.
 * A report records the version in force when it was sent. They go with their policy.
 */
export const policyVersions = sqliteTable(
  "policy_versions",
  {
    id: text("id").primaryKey(),
    policyId: text("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    terms: text("terms").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: text("created_at").notNull(),
    // Always created_at (a version never changes): every list of the API sorts by either.
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("policy_versions_policy_number_idx").on(t.policyId, t.number),
    index("policy_versions_policy_created_at_idx").on(t.policyId, t.createdAt, t.id),
  ],
);

export type PolicyVersionRow = typeof policyVersions.$inferSelect;
