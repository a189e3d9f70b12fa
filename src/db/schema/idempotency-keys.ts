import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Idempotency-Key records (the same key and body within 24 hours replays the first answer). A request reserves its key (state
 * in_flight, with a
 * token of its own) and the response is stored in the same batch as the change it made.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    // The API key's id, or `ip:<address>` for public submissions.
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_flight", "done"] }).notNull(),
    token: text("token").notNull(),
    responseStatus: integer("response_status"),
    responseHeaders: text("response_headers", { mode: "json" }).$type<Record<string, string>>(),
    responseBody: text("response_body"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_expires_at_idx").on(t.expiresAt)],
);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
