import { and, eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db";
import { events, webhookDeliveries, webhooks, webhookSubscriptions, type WebhookDeliveryRow } from "../db/schema";
import { uuidv7 } from "../lib/ids";
import { insertChunks } from "../services/listing";

export interface EventToDeliver {
  id: string;
  organizationId: string;
  type: string;
  payload: string;
}

export function newDelivery(webhookId: string, organizationId: string, event: { id: string; type: string; payload: string }, now: string): WebhookDeliveryRow {
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

/**
 * One delivery per enabled webhook of the event's organization that subscribes to its type, written
 * in the same batch that marks the event processed. A unique index makes a repeated fan-out (a
 * redelivered message) write nothing twice. Returns the delivery ids for the queue.
 */
export async function fanOut(db: Db, event: EventToDeliver, now: string): Promise<string[]> {
  const targets = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.webhookId, webhooks.id))
    .where(and(eq(webhooks.organizationId, event.organizationId), eq(webhooks.enabled, true), eq(webhookSubscriptions.eventType, event.type)));
  const deliveries = targets.map((t) => newDelivery(t.id, event.organizationId, event, now));
  await db.batch([
    ...insertChunks(deliveries).map((rows) => db.insert(webhookDeliveries).values(rows).onConflictDoNothing()),
    db.update(events).set({ processedAt: now }).where(and(eq(events.id, event.id), isNull(events.processedAt))),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return deliveries.map((d) => d.id);
}
