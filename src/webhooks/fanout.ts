import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db, Statement } from "../db";
import {
  events,
  webhookDeliveries,
  webhooks,
  webhookSubscriptions,
  type EventRow,
  type WebhookDeliveryRow,
  type WebhookRow,
} from "../db/schema";
import { uuidv7 } from "../lib/ids";
import { inList, subquery } from "../db/queries";
import { leasedUntil } from "./deliver";
import { markProcessed } from "./processed";
import type { WrittenNotice } from "../notifications/outbox";

export function newDelivery(
  webhookId: string,
  organizationId: string,
  event: { id: string; type: string; payload: string },
  now: string,
): WebhookDeliveryRow {
  return {
    id: uuidv7(),
    webhookId,
    organizationId,
    eventId: event.id,
    eventType: event.type,
    requestBody: event.payload,
    redeliveryOf: null,
    status: "pending",
    attemptCount: 0,
    lastStatusCode: null,
    nextAttemptAt: now,
    leaseUntil: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A delivery the consumer wrote leased to itself, with the webhook to send it to. */
export interface LeasedDelivery {
  delivery: WebhookDeliveryRow;
  webhook: WebhookRow;
}

/** Statements for a batch, and what their results (in order) mean: the deliveries and e-mails they wrote. */
export interface Part {
  statements: Statement[];
  written(results: unknown[]): LeasedDelivery[];
  /** The e-mails the statements wrote, to hand to the queue. */
  notified?(results: unknown[]): WrittenNotice[];
}

/** The enabled webhooks by organization and subscribed event type. */
export type Targets = Map<string, WebhookRow[]>;
const targetKey = (organizationId: string, type: string) => `${organizationId} ${type}`;

/** The query for the enabled webhooks of the organizations of `eventIds`, with what each subscribes to. */
export function subscribedWebhooks(db: Db, eventIds: readonly string[]) {
  return db
    .select({ ...getTableColumns(webhooks), subscribedTo: webhookSubscriptions.eventType })
    .from(webhooks)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.webhookId, webhooks.id))
    .where(
      and(
        eq(webhooks.enabled, true),
        subquery`${webhooks.organizationId} IN (SELECT organization_id FROM events WHERE ${inList(events.id, eventIds)})`,
      ),
    );
}

export function targetsOf(rows: (WebhookRow & { subscribedTo: string })[]): Targets {
  const targets: Targets = new Map();
  for (const { subscribedTo, ...webhook } of rows) {
    const key = targetKey(webhook.organizationId, subscribedTo);
    targets.set(key, [...(targets.get(key) ?? []), webhook]);
  }
  return targets;
}

/**
 * An event read from the outbox, fanned out: one delivery per enabled webhook of its organization
 * that subscribes to its type, written leased to the consumer (which sends it next), and the event
 * marked processed unless the caller marks it later. The fan-out's unique index makes a repeated
 * fan-out (a redelivered message) write nothing twice.
 */
export function fanOut(db: Db, event: EventRow, targets: Targets, now: number, opts: { markProcessed: boolean }): Part {
  const nowIso = new Date(now).toISOString();
  const rows = (targets.get(targetKey(event.organizationId, event.type)) ?? []).map((webhook) => ({
    webhook,
    row: { ...newDelivery(webhook.id, event.organizationId, event, nowIso), leaseUntil: leasedUntil(now) },
  }));
  return {
    statements: [
      ...rows.map(({ row }) => db.insert(webhookDeliveries).values(row).onConflictDoNothing().returning({ id: webhookDeliveries.id })),
      ...(opts.markProcessed ? [markProcessed(db, event.id, nowIso)] : []),
    ],
    written: (results) =>
      rows.filter((_, i) => (results[i] as unknown[]).length > 0).map(({ row, webhook }) => ({ delivery: row, webhook })),
  };
}

/**
 * fanOut for an event written, already processed, earlier in the same batch (its payload built by
 * SQLite): each delivery is copied from the event's row, so nothing is written if the event was not.
 * Its id is new, so no earlier fan-out of it can exist. The event keeps its body until
 * emptyWrittenBodies, later in the batch.
 */
export function fanOutWritten(db: Db, event: { id: string; type: string }, organizationId: string, targets: Targets, now: number): Part {
  const nowIso = new Date(now).toISOString();
  const lease = leasedUntil(now);
  const rows = (targets.get(targetKey(organizationId, event.type)) ?? []).map((webhook) => ({ webhook, id: uuidv7() }));
  return {
    statements: [
      ...rows.map(({ webhook, id }) =>
        db
          .insert(webhookDeliveries)
          .select(
            db
              .select({
                id: sql<string>`${id}`.as("id"),
                webhookId: sql<string>`${webhook.id}`.as("webhook_id"),
                organizationId: events.organizationId,
                eventId: events.id,
                eventType: events.type,
                requestBody: events.payload,
                redeliveryOf: sql<null>`null`.as("redelivery_of"),
                status: sql<"pending">`'pending'`.as("status"),
                attemptCount: sql<number>`0`.as("attempt_count"),
                lastStatusCode: sql<null>`null`.as("last_status_code"),
                nextAttemptAt: sql<string>`${nowIso}`.as("next_attempt_at"),
                leaseUntil: sql<string>`${lease}`.as("lease_until"),
                createdAt: sql<string>`${nowIso}`.as("created_at"),
                updatedAt: sql<string>`${nowIso}`.as("updated_at"),
              })
              .from(events)
              .where(eq(events.id, event.id)),
          )
          .returning(),
      ),
    ],
    written: (results) => rows.flatMap(({ webhook }, i) => (results[i] as WebhookDeliveryRow[]).map((delivery) => ({ delivery, webhook }))),
  };
}
