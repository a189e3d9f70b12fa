import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

export const DISABLED_REASONS = ["gone", "failing"] as const;
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    shortDescription: text("short_description"),
    url: text("url").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    disabledReason: text("disabled_reason", { enum: DISABLED_REASONS }),
    // The signing secret, sealed under WEBHOOK_SECRET_KEY (src/webhooks/secrets.ts): the signer opens
    // it; it is shown in clear only in the create and rotate_secret responses.
    secret: text("secret").notNull(),
    // During a rotation the old secret (sealed too) keeps signing beside the new one until this time;
    // the cron forgets it afterwards.
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: text("previous_secret_expires_at"),
    // Deliveries in a row that used up every attempt; five disable the webhook (failing).
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index("webhooks_organization_created_at_idx").on(t.organizationId, t.createdAt),
    index("webhooks_organization_updated_at_idx").on(t.organizationId, t.updatedAt),
    index("webhooks_organization_enabled_idx").on(t.organizationId, t.enabled),
  ],
);

/** The webhook's trigger_event_types: the short names it subscribes to. */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
  },
  (t) => [primaryKey({ columns: [t.webhookId, t.eventType] })],
);

/** One event (or ping) for one webhook, with its attempts. Kept 30 days. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull(),
    // The webhook-id header: the same on every attempt and every redelivery of the event.
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    // The body exactly as sent and signed.
    requestBody: text("request_body").notNull(),
    // Set on a redelivery: the delivery it repeats (same event, same webhook-id).
    redeliveryOf: text("redelivery_of"),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    nextAttemptAt: text("next_attempt_at"),
    // A consumer owns the delivery while it sends, so a duplicate message cannot send it twice.
    leaseUntil: text("lease_until"),
    ...timestamps,
  },
  (t) => [
    index("webhook_deliveries_webhook_created_at_idx").on(t.webhookId, t.createdAt),
    index("webhook_deliveries_webhook_status_idx").on(t.webhookId, t.status, t.createdAt),
    index("webhook_deliveries_status_next_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_created_at_idx").on(t.createdAt),
    // An event fans out to a webhook once, however often its message comes; redeliveries are extra.
    uniqueIndex("webhook_deliveries_fanout_idx").on(t.webhookId, t.eventId).where(sql`${t.redeliveryOf} IS NULL`),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: text("attempted_at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attemptedAt)],
);

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
