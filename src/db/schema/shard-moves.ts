import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Moving an organization from one tenant database to another (`npm run shard -- move`). The move's state
// is a row of the catalog, so a move whose driver died resumes from it; the fence is a row of each tenant
// database the move touches, which that database's triggers read (migration 0044).

/**
 * A move's steps, in order: `fencing` (its writes answer 503; the cached lookups from before expire),
 * `settling` (its queue work finishes, then its rows in the old database are fenced), `copying` (table by
 * table, a page at a time), `verifying` (the counts of both), `switching` (the new database unfenced, the
 * catalog switched), `switched` (pending deliveries and e-mails handed to the queue in the new database),
 * `draining` (the cached lookups that still lead to the old database expire), `deleting` (the old rows, a
 * page at a time), `done`. Until the switch a move can roll back (`rolling_back`: what was copied is
 * deleted, the old database unfenced) to `rolled_back`.
 */
export const SHARD_MOVE_STEPS = [
  "fencing",
  "settling",
  "copying",
  "verifying",
  "switching",
  "switched",
  "draining",
  "deleting",
  "done",
  "rolling_back",
  "rolled_back",
] as const;
export type ShardMoveStep = (typeof SHARD_MOVE_STEPS)[number];

/** Counts of one table's rows of the organization, in the database it leaves and the one it goes to. */
export type TableCounts = Record<string, { from: number; to: number }>;

/** One move of one organization between tenant databases; kept in the catalog once done, as its record. */
export const shardMoves = sqliteTable(
  "shard_moves",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    fromShard: text("from_shard").notNull(),
    toShard: text("to_shard").notNull(),
    step: text("step", { enum: SHARD_MOVE_STEPS }).notNull(),
    /** The table the step that works a table at a time (copying, deleting, rolling back) has reached, and its cursor (a rowid). */
    tableName: text("table_name"),
    cursor: integer("cursor"),
    /** The counts compared before the switch. */
    counts: text("counts", { mode: "json" }).$type<TableCounts>(),
    /** Why it rolled back, or what it waits for. */
    note: text("note"),
    /** The operator's key that started it. */
    startedBy: text("started_by"),
    startedAt: text("started_at").notNull(),
    fencedAt: text("fenced_at"),
    switchedAt: text("switched_at"),
    finishedAt: text("finished_at"),
    /** While one caller (the command, the cron) advances the move, others leave it alone until then. */
    advancingUntil: text("advancing_until"),
    advancedBy: text("advanced_by"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // One unfinished move per organization.
    uniqueIndex("shard_moves_unfinished_idx").on(t.organizationId).where(sql`step NOT IN ('done', 'rolled_back')`),
    index("shard_moves_organization_idx").on(t.organizationId, t.startedAt),
    index("shard_moves_step_idx").on(t.step),
  ],
);
export type ShardMoveRow = typeof shardMoves.$inferSelect;

/**
 * An organization whose rows in this tenant database only a move may change: the database it leaves from
 * the moment its queue work has settled until its rows are deleted, and the one it goes to until the
 * switch. Triggers on every table that holds an organization's rows drop any other write of them while it is
 * `closed` (RAISE(IGNORE)); the move's own batches open the fence for their duration (`open`: its copy
 * arriving, `departing`: its rows deleted, which the audit log's retention and the deleted reports' tokens
 * let go), and every write of theirs holds only while it is open for their move.
 */
export const tenantFences = sqliteTable("tenant_fences", {
  organizationId: text("organization_id").primaryKey(),
  /** closed: only the move writes; open, departing: the move's batch is writing; ended: the move is over here (kept, see moveId). */
  state: text("state", { enum: ["closed", "open", "departing", "ended"] }).notNull(),
  since: text("since").notNull(),
  /** The move whose fence it is: a caller of that move who stalled past its hold finds it ended and puts up nothing again. */
  moveId: text("move_id").notNull().default(""),
});
