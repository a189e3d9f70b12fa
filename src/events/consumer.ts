import { eq } from "drizzle-orm";
import { primaryDb, type Db } from "../db";
import { events } from "../db/schema";
import { loggable } from "../http/errors";
import { runIntake } from "../intake/intake";
import { attemptDelivery, attemptLeased, groupCommit, type DeliveryContext } from "../webhooks/deliver";
import { fanOut } from "../webhooks/fanout";
import { publishDeliveries, publishEvents, type QueueMessage } from "./outbox";
import { processEventBatch, type LeasedDelivery } from "./process-batch";

// A message whose processing failed comes back after 10 s, 20 s, 40 s ... up to 10 minutes; after
// max_retries (wrangler.toml) it goes to the dead-letter queue, never to nowhere.
export function retryDelaySeconds(attempts: number): number {
  return Math.min(600, 10 * 2 ** Math.max(0, attempts - 1));
}

// At most this many webhook requests in flight per consumer invocation, so no receiver is flooded.
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

/** Runs at most `limit` of the works given to it at once; a work may give its place up early (`release`). */
function limiter(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(work: (release: () => void) => Promise<T>): Promise<T> {
    // A finishing work hands its place straight to the next waiting one, so none can slip in between.
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      const next = waiting.shift();
      if (next) next();
      else active--;
    };
    try {
      return await work(release);
    } finally {
      release();
    }
  };
}

function fail(message: Message<unknown>, err: unknown, what: Record<string, unknown>) {
  console.error(JSON.stringify({ level: "error", message: "queue message failed; retrying", ...what, attempts: message.attempts, ...loggable(err as Error) }));
  message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
}

// Events of one invocation processed at once: each is a few D1 round trips, so they overlap.
export const MAX_CONCURRENT_EVENTS = 10;

/**
 * Processes an event, then the events it produced (the intake's Received and Stored) in the same
 * invocation rather than one queue hop each. Returns the deliveries fanned out on the way. A produced
 * event that fails here is handed to the queue instead; it is in the outbox either way, and the sweep
 * sends whatever the queue did not take.
 */
async function processChain(db: Db, queue: Queue<QueueMessage>, eventId: string): Promise<string[]> {
  const first = await processEvent(db, eventId);
  const deliveries = [...first.deliveries];
  const pending = [...first.events];
  try {
    for (let id = pending[0]; id !== undefined; id = pending[0]) {
      const produced = await processEvent(db, id);
      pending.shift();
      deliveries.push(...produced.deliveries);
      pending.push(...produced.events);
    }
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", message: "derived event failed in line; queued instead", events: pending, ...loggable(err as Error) }));
    await publishEvents(queue, pending);
  }
  return deliveries;
}

/**
 * A delivery attempted in the invocation that fanned it out, without a queue hop. Its row is
 * committed, so nothing is lost if this invocation dies: the delivery sweep re-sends pending
 * deliveries whose time has passed. A failed attempt is re-queued after its scheduled delay.
 */
async function deliverNow(ctx: DeliveryContext, queue: Queue<QueueMessage>, deliveryId: string, leased?: LeasedDelivery): Promise<void> {
  let delaySeconds: number;
  try {
    const outcome = leased ? await attemptLeased(ctx, leased.delivery, leased.webhook) : await attemptDelivery(ctx, deliveryId);
    if (outcome.ack) return;
    delaySeconds = outcome.delaySeconds;
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "delivery failed; queued for a retry", delivery_id: deliveryId, ...loggable(err as Error) }));
    delaySeconds = retryDelaySeconds(1);
  }
  await publishDeliveries(queue, [deliveryId], delaySeconds);
}

const deliverLeased = (ctx: DeliveryContext, queue: Queue<QueueMessage>, leased: LeasedDelivery) => deliverNow(ctx, queue, leased.delivery.id, leased);

/**
 * The queue consumer. Outbox events and webhook deliveries share the queue. An event's message is
 * acknowledged once its work (intake, fan-out) is committed; its deliveries are then attempted at
 * once. A delivery message is acknowledged only after its attempt is recorded, and retried on the
 * webhook schedule; any processing failure retries that message alone. At most 6 webhook requests
 * are in flight per invocation.
 */
export async function consume(batch: MessageBatch<QueueMessage>, env: Env): Promise<void> {
  const db = primaryDb(env.DB);
  const queue = env.EVENTS as Queue<QueueMessage>;
  const deliveryCtx: DeliveryContext = { db, serviceName: env.SERVICE_NAME, allowLoopback: env.DEV_ALLOW_LOOPBACK_WEBHOOKS === "true", record: groupCommit(db) };
  const sending = limiter(MAX_CONCURRENT_DELIVERIES);
  const processing = limiter(MAX_CONCURRENT_EVENTS);

  // The events of the batch together first (src/events/process-batch.ts); if that fails, each
  // message below takes its own path, so a failure retries its own message alone.
  const eventMessages = batch.messages.filter((m) => typeof (m.body as { event_id?: unknown } | null)?.event_id === "string");
  const sends: Promise<void>[] = [];
  let together = false;
  if (eventMessages.length > 0) {
    try {
      const send = (deliveries: LeasedDelivery[]) => sends.push(...deliveries.map((leased) => sending((sent) => deliverLeased({ ...deliveryCtx, sent }, queue, leased))));
      await processEventBatch(db, eventMessages.map((m) => (m.body as { event_id: string }).event_id), send);
      together = true;
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", message: "events processed one by one: processing them together failed", events: eventMessages.length, ...loggable(err as Error) }));
    }
  }
  const handled = new Set(together ? eventMessages : []);
  for (const message of handled) message.ack();

  await Promise.all([
    ...sends,
    ...batch.messages.filter((m) => !handled.has(m)).map(async (message) => {
      const body = message.body as Partial<{ event_id: string; delivery_id: string }> | null;
      if (typeof body?.delivery_id === "string") {
        const deliveryId = body.delivery_id;
        await sending(async (sent) => {
          try {
            const outcome = await attemptDelivery({ ...deliveryCtx, sent }, deliveryId);
            if (outcome.ack) message.ack();
            else message.retry({ delaySeconds: outcome.delaySeconds });
          } catch (err) {
            fail(message, err, { delivery_id: deliveryId });
          }
        });
        return;
      }
      let deliveries: string[];
      try {
        if (typeof body?.event_id !== "string") throw new Error("message has neither event_id nor delivery_id");
        const eventId = body.event_id;
        deliveries = await processing(() => processChain(db, queue, eventId));
        message.ack();
      } catch (err) {
        fail(message, err, { event_id: body?.event_id });
        return;
      }
      await Promise.all(deliveries.map((id) => sending((sent) => deliverNow({ ...deliveryCtx, sent }, queue, id))));
    }),
  ]);
}
