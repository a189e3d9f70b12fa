import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
    // The body exactly as it will be delivered, built at the time of the change.
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
  ],
);

export type EventRow = typeof events.$inferSelect;
