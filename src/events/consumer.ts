import { eq } from "drizzle-orm";
import { primaryDb, type Db } from "../db";
import { events } from "../db/schema";
import { loggable } from "../http/errors";
import { runIntake } from "../intake/intake";
import { attemptDelivery, type DeliveryContext } from "../webhooks/deliver";
import { fanOut } from "../webhooks/fanout";
import { publishDeliveries, publishEvents, type QueueMessage } from "./outbox";

// A message whose processing failed comes back after 10 s, 20 s, 40 s ... up to 10 minutes; after
// max_retries (wrangler.toml) it goes to the dead-letter queue, never to nowhere.
export function retryDelaySeconds(attempts: number): number {
  return Math.min(600, 10 * 2 ** Math.max(0, attempts - 1));
}

// At most this many webhook requests in flight per consumer invocation (API.md section 7).
export const MAX_CONCURRENT_DELIVERIES = 6;

/**
 * Processes one outbox event: runs the intake for Vuln::Created, then fans the event out to the
 * organization's subscribed webhooks in the batch that marks it processed. An event already
 * processed, or gone, is a no-op. Returns the events and deliveries to hand to the queue.
 */
export async function processEvent(db: Db, eventId: string): Promise<{ events: string[]; deliveries: string[] }> {
  const event = await db.select().from(events).where(eq(events.id, eventId)).get();
  if (!event || event.processedAt) return { events: [], deliveries: [] };
  const produced = { events: [] as string[] };
  if (event.type === "Vuln::Created" && event.vulnId) await runIntake(db, event.vulnId, produced);
  const deliveries = await fanOut(db, event, new Date().toISOString());
  return { events: produced.events, deliveries };
}

async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

function fail(message: Message<unknown>, err: unknown, what: Record<string, unknown>) {
  console.error(JSON.stringify({ level: "error", message: "queue message failed; retrying", ...what, attempts: message.attempts, ...loggable(err as Error) }));
  message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
}

/**
 * The queue consumer. Outbox events and webhook deliveries share the queue. Each message is
 * acknowledged only after its work is recorded; a delivery that failed is retried on the webhook
 * schedule; any processing failure retries that message alone.
 */
export async function consume(batch: MessageBatch<QueueMessage>, env: Env): Promise<void> {
  const db = primaryDb(env.DB);
  const queue = env.EVENTS as Queue<QueueMessage>;
  const deliveryCtx: DeliveryContext = { db, serviceName: env.SERVICE_NAME, allowLoopback: env.DEV_ALLOW_LOOPBACK_WEBHOOKS === "true" };
  const deliveries: Message<QueueMessage>[] = [];

  for (const message of batch.messages) {
    const body = message.body as Partial<{ event_id: string; delivery_id: string }> | null;
    if (typeof body?.delivery_id === "string") {
      deliveries.push(message);
      continue;
    }
    try {
      if (typeof body?.event_id !== "string") throw new Error("message has neither event_id nor delivery_id");
      const produced = await processEvent(db, body.event_id);
      await publishEvents(queue, produced.events);
      await publishDeliveries(queue, produced.deliveries);
      message.ack();
    } catch (err) {
      fail(message, err, { event_id: body?.event_id });
    }
  }

  await pool(deliveries, MAX_CONCURRENT_DELIVERIES, async (message) => {
    const deliveryId = (message.body as { delivery_id: string }).delivery_id;
    try {
      const outcome = await attemptDelivery(deliveryCtx, deliveryId);
      if (outcome.ack) message.ack();
      else message.retry({ delaySeconds: outcome.delaySeconds });
    } catch (err) {
      fail(message, err, { delivery_id: deliveryId });
    }
  });
}
