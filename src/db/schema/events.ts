import { type SQL, sql } from "drizzle-orm";
import { index, integer, type SQLiteColumn, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * What an event's body becomes once it is fanned out: each delivery keeps its own copy (retries and
 * redeliveries read the delivery), and no one reads an old event's body, except the report's timeline,
 * which reads its triage moves: a triage move keeps its body.
 */
export const EMPTIED_BODY = "{}";
export const BODY_KEPT_TYPE = "Vuln::Triage::Changed";

/**
 * An event processed with its body still to empty. Its constants are written as literals, so the query
 * that says it is the partial index's own condition and SQLite can read that index.
 */
function bodyLeftToEmpty(c: { processedAt: SQLiteColumn; payload: SQLiteColumn; type: SQLiteColumn }): SQL {
  return sql`${c.processedAt} IS NOT NULL AND ${c.payload} <> ${sql.raw(`'${EMPTIED_BODY}'`)} AND ${c.type} <> ${sql.raw(`'${BODY_KEPT_TYPE}'`)}`;
}

/**
 * The outbox. Each change writes its events in the same D1 batch as the change; the queue carries
 * their ids after the commit, and the cron sweep re-sends any not processed in time. `vuln_id` is no
 * foreign key on purpose: a vuln's Destroyed event must outlive the vuln.
 */
export const events = sqliteTable(
  "events",
  {
    // The event id: stable, the webhook-id of every delivery of this event.
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    vulnId: text("vuln_id"),
    // The short name, e.g. Vuln::Created.
    type: text("type").notNull(),
    // The body exactly as it will be delivered, built at the time of the change; EMPTIED_BODY once
    // the event is fanned out, unless its type is BODY_KEPT_TYPE.
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
    processedAt: text("processed_at"),
    lastSentAt: text("last_sent_at"),
    // The sweep re-sends an unprocessed event with backoff (1, 2, 4 ... minutes) and gives up after
    // MAX_SWEEP_SENDS, leaving it in the outbox, unprocessed, for an operator to look at.
    nextSendAt: text("next_send_at"),
    sendCount: integer("send_count").notNull().default(0),
  },
  (t) => [
    index("events_unprocessed_idx").on(t.processedAt, t.createdAt),
    index("events_vuln_idx").on(t.vulnId, t.createdAt),
    index("events_organization_idx").on(t.organizationId, t.createdAt),
    // The bodies left to empty (those of events processed before bodies were emptied at processing,
    // or by a Worker of then during a deploy): the cron's page reads these rows alone, none once done.
    index("events_body_to_empty_idx").on(t.createdAt).where(bodyLeftToEmpty(t)),
  ],
);

export const BODY_LEFT_TO_EMPTY = bodyLeftToEmpty(events);

export type EventRow = typeof events.$inferSelect;
