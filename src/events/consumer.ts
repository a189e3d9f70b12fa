import { type Db, primaryDb } from "../db";
import { SINGLE_DATABASE, shardsOf } from "../db/shards";
import { loggable } from "../lib/log";
import { attemptDelivery, attemptLeased, groupCommit, type DeliveryContext } from "../webhooks/deliver";
import type { LeasedDelivery } from "../webhooks/fanout";
import { MAX_QUEUE_DELAY_SECONDS } from "../lib/retry-schedule";
import { publishDeliveries, shardQueue, type QueueMessage } from "../lib/queue";
import { processEventBatch, type Written } from "./process-batch";
import { publishNotices } from "../notifications/outbox";
import { attemptNotification, type EmailContext } from "../notifications/send";

// A message whose processing failed comes back after 10 s, 20 s, 40 s ... up to 10 minutes; after
// max_retries (wrangler.toml) it goes to the dead-letter queue, never to nowhere.
export function retryDelaySeconds(attempts: number): number {
  return Math.min(600, 10 * 2 ** Math.max(0, attempts - 1));
}

// At most this many webhook requests in flight per consumer invocation, so no receiver is flooded.
export const MAX_CONCURRENT_DELIVERIES = 6;

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
  console.error(
    JSON.stringify({
      level: "error",
      message: "queue message failed; retrying",
      ...what,
      attempts: message.attempts,
      ...loggable(err as Error),
    }),
  );
  message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
}

// With a batch of events failing as a whole, each of its events is tried alone, this many at once.
const MAX_EVENTS_ALONE = 10;

/**
 * A delivery the consumer wrote leased, attempted in the invocation that fanned it out, without a
 * queue hop. Its row is committed, so nothing is lost if this invocation dies: the delivery sweep
 * re-sends pending deliveries whose time has passed. A failed attempt is re-queued after its
 * scheduled delay.
 */
async function deliverLeased(ctx: DeliveryContext, queue: Queue<QueueMessage>, { delivery, webhook }: LeasedDelivery): Promise<void> {
  let delaySeconds: number;
  try {
    const outcome = await attemptLeased(ctx, delivery, webhook);
    if (outcome.ack) return;
    delaySeconds = outcome.delaySeconds;
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        message: "delivery failed; queued for a retry",
        delivery_id: delivery.id,
        ...loggable(err as Error),
      }),
    );
    delaySeconds = retryDelaySeconds(1);
  }
  await publishDeliveries(queue, [delivery.id], delaySeconds);
}

/**
 * The queue consumer. Outbox events and webhook deliveries share the queue. A batch's events are
 * processed together (src/events/process-batch.ts) and their messages acknowledged once that work
 * is committed; if it fails, each event is processed alone, so a failure retries its own message.
 * The deliveries they make are attempted at once. A delivery message is acknowledged only after its
 * attempt is recorded, and retried on the webhook schedule. At most 6 webhook requests are in
 * flight per invocation.
 */
export async function consume(batch: MessageBatch<QueueMessage>, env: Env): Promise<void> {
  // A sharded deployment's messages name their shard; each shard's are consumed together, in its own database.
  const shards = shardsOf(env);
  const byShard = new Map<string, Message<unknown>[]>();
  for (const message of batch.messages) {
    const named = (message.body as { shard?: unknown } | null)?.shard;
    // A message sent before the deployment was sharded names none: its rows are in the first shard.
    const shard = shards.sharded ? (typeof named === "string" ? named : shards.names[0]!) : SINGLE_DATABASE;
    byShard.set(shard, [...(byShard.get(shard) ?? []), message]);
  }
  const sending = limiter(MAX_CONCURRENT_DELIVERIES);
  await Promise.all(
    [...byShard].map(async ([shard, messages]) => {
      let d1: D1Database;
      try {
        d1 = shards.binding(shard);
      } catch (err) {
        for (const message of messages) fail(message, err, { shard });
        return;
      }
      const queue = env.EVENTS as Queue<QueueMessage>;
      await consumeShard({ messages, env, sending }, { db: primaryDb(d1), queue: shards.sharded ? shardQueue(queue, () => shard) : queue });
    }),
  );
}

async function consumeShard(
  { messages, env, sending }: { messages: Message<unknown>[]; env: Env; sending: ReturnType<typeof limiter> },
  { db, queue }: { db: Db; queue: Queue<QueueMessage> },
): Promise<void> {
  const deliveryCtx: DeliveryContext = {
    db,
    serviceName: env.SERVICE_NAME,
    allowLoopback: env.DEV_ALLOW_LOOPBACK_WEBHOOKS === "true",
    record: groupCommit(db),
  };
  const emailCtx: EmailContext = { db, email: env.EMAIL, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
  const sends: Promise<void>[] = [];
  // The e-mails a step wrote go to the queue, each a message of its own (retried on its own schedule).
  const send = ({ deliveries, notifications }: Written) => {
    sends.push(...deliveries.map((leased) => sending((sent) => deliverLeased({ ...deliveryCtx, sent }, queue, leased))));
    if (notifications.length) sends.push(publishNotices(queue, notifications));
  };
  const eventIdOf = (m: Message<unknown>) => (m.body as { event_id?: unknown } | null)?.event_id;

  const eventMessages = messages.filter((m) => typeof eventIdOf(m) === "string");
  let together = false;
  if (eventMessages.length > 0) {
    try {
      await processEventBatch(
        db,
        eventMessages.map((m) => eventIdOf(m) as string),
        send,
      );
      together = true;
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          message: "events processed one by one: processing them together failed",
          events: eventMessages.length,
          ...loggable(err as Error),
        }),
      );
    }
  }
  const handled = new Set(together ? eventMessages : []);
  for (const message of handled) message.ack();

  const alone = limiter(MAX_EVENTS_ALONE);
  await Promise.all(
    messages
      .filter((m) => !handled.has(m))
      .map(async (message) => {
        const body = message.body as Partial<{ event_id: string; delivery_id: string; notification_id: string }> | null;
        if (typeof body?.notification_id === "string") {
          const notificationId = body.notification_id;
          await sending(async () => {
            try {
              const outcome = await attemptNotification(emailCtx, notificationId);
              if (outcome.ack) message.ack();
              else message.retry({ delaySeconds: Math.min(outcome.delaySeconds, MAX_QUEUE_DELAY_SECONDS) });
            } catch (err) {
              fail(message, err, { notification_id: notificationId });
            }
          });
          return;
        }
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
        try {
          if (typeof body?.event_id !== "string") throw new Error("message has no event_id, delivery_id or notification_id");
          const eventId = body.event_id;
          await alone(() => processEventBatch(db, [eventId], send));
          message.ack();
        } catch (err) {
          fail(message, err, { event_id: body?.event_id });
        }
      }),
  );
  // Every send was started by now (each step hands its deliveries over as it commits).
  await Promise.all(sends);
}
