import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { briefs } from "./briefs";
import { organizations } from "./organizations";
import { GATES } from "./vulns";

/**
 * The public submissions of the last two hours, one row each (the cron purges older ones): what the
 * brief's and an address's last hour are counted from (an address's budget without proof of work is
 * per brief, its difficulty step across briefs), and the one-use proof-of-work solutions and
 * reporter signatures (their UNIQUE indexes refuse a replay). `address_tag` is a keyed hash of the
 * client address, never the address, and goes with the row.
 */
export const gateMarks = sqliteTable(
  "gate_marks",
  {
    // The vuln's id (the mark outlives nothing: it goes after two hours whatever became of the vuln).
    id: text("id").primaryKey(),
    briefId: text("brief_id").notNull(),
    addressTag: text("address_tag").notNull(),
    atMs: integer("at_ms").notNull(),
    gate: text("gate", { enum: GATES }).notNull(),
    powNonce: text("pow_nonce").unique(),
    signatureSha256: text("signature_sha256").unique(),
  },
  (t) => [index("gate_marks_brief_idx").on(t.briefId, t.atMs), index("gate_marks_address_idx").on(t.addressTag, t.briefId, t.gate, t.atMs)],
);

/**
 * A brief's gate between submissions: until when `auto` keeps proof of work on (an hour after its
 * last hour was over the expected rate), and the oldest queued report's time while it has a queue.
 */
export const briefGateState = sqliteTable(
  "brief_gate_state",
  {
    briefId: text("brief_id")
      .primaryKey()
      .references(() => briefs.id, { onDelete: "cascade" }),
    powOnUntilMs: integer("pow_on_until_ms"),
    queueHeadAt: text("queue_head_at"),
  },
  (t) => [index("brief_gate_state_queue_idx").on(t.queueHeadAt)],
);

/**
 * A reporter key's record with one organization: its reports and how they ended. Kept by triggers on
 * vulns (migration 0041) in the statement that inserts, moves or deletes a report, so it is exact.
 * Valid: triaged, resolved or accepted_risk.
 */
export const reporterKeyRecords = sqliteTable(
  "reporter_key_records",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    thumbprint: text("thumbprint").notNull(),
    reports: integer("reports").notNull().default(0),
    valid: integer("valid").notNull().default(0),
    spam: integer("spam").notNull().default(0),
    notApplicable: integer("not_applicable").notNull().default(0),
    duplicate: integer("duplicate").notNull().default(0),
    firstAt: text("first_at").notNull(),
    lastAt: text("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.thumbprint] })],
);

export type GateMarkRow = typeof gateMarks.$inferSelect;
export type ReporterKeyRecordRow = typeof reporterKeyRecords.$inferSelect;
