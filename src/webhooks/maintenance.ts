import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../db";
import { webhookDeliveries } from "../db/schema";
import { publishDeliveries, type QueueMessage } from "../events/outbox";
import { inList } from "../services/listing";

// A pending delivery this long past due has lost its message (the queue refused it, or it went to
// the dead-letter queue): the sweep sends it again.
export const DELIVERY_OVERDUE_MS = 10 * 60_000;
export const DELIVERY_RETENTION_DAYS = 30;

export async function sweepDeliveries(db: Db, queue: Queue<QueueMessage>, now = Date.now()): Promise<number> {
  const overdue = new Date(now - DELIVERY_OVERDUE_MS).toISOString();
  const nowIso = new Date(now).toISOString();
  const due = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lt(webhookDeliveries.nextAttemptAt, overdue),
        or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, nowIso)),
      ),
    )
    .limit(100);
  if (due.length === 0) return 0;
  // Due now, so the next sweep leaves them alone for a while and the message finds them due. The same
  // conditions again: a late message may have handled one since the select, and its new schedule stands.
  const taken = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: nowIso })
    .where(
      and(
        inList(webhookDeliveries.id, due.map((d) => d.id)),
        eq(webhookDeliveries.status, "pending"),
        lt(webhookDeliveries.nextAttemptAt, overdue),
        or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, nowIso)),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  await publishDeliveries(queue, taken.map((t) => t.id));
  return taken.length;
}

/** Deliveries (and their attempts) are kept 30 days. */
export async function purgeDeliveries(db: Db, now = Date.now()): Promise<void> {
  const cutoff = new Date(now - DELIVERY_RETENTION_DAYS * 86_400_000).toISOString();
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, cutoff));
}
