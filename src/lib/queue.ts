/**
 * What the queue carries, and how it is sent: an event id, a webhook delivery id or an e-mail's
 * (notification) id; the consumer reads the rest from D1. Kept apart from the outbox and from webhooks so both can publish without
 * importing each other.
 */
export interface EventMessage {
  event_id: string;
}
export interface DeliveryMessage {
  delivery_id: string;
}
export interface NotificationMessage {
  notification_id: string;
}
/** In a sharded deployment every message names the tenant database its row is in (`TENANT_2`); one database's carry none. */
export type QueueMessage = (EventMessage | DeliveryMessage | NotificationMessage) & { shard?: string };

/**
 * The queue as a shard's work sends to it: each message gains the shard (read when it is sent, so a
 * request routed after its context was made still names its own).
 */
export function shardQueue(queue: Queue<QueueMessage>, shard: () => string | undefined): Queue<QueueMessage> {
  const tag = (body: QueueMessage): QueueMessage => {
    const name = shard();
    // The innermost tag wins: work retargeted to another shard (a new organization's) names its own.
    return name && !body.shard ? { ...body, shard: name } : body;
  };
  return {
    send: (body, options) => queue.send(tag(body), options),
    sendBatch: (messages, options) =>
      queue.sendBatch(
        [...messages].map((m) => ({ ...m, body: tag(m.body) })),
        options,
      ),
  } as Queue<QueueMessage>;
}

/** A sendBatch takes at most 100 messages. */
export const QUEUE_BATCH_LIMIT = 100;

/**
 * Hands committed events to the queue. A failure here loses nothing: the events are in the outbox,
 * and the sweep sends whatever the queue did not take.
 */
export async function publishEvents(queue: Queue<QueueMessage>, eventIds: string[]): Promise<void> {
  await publish(
    queue,
    eventIds.map((event_id) => ({ event_id })),
  );
}

/** Hands webhook deliveries to the queue (after a delay, for a retry); the sweep re-sends any that stay pending. */
export async function publishDeliveries(queue: Queue<QueueMessage>, deliveryIds: string[], delaySeconds?: number): Promise<void> {
  await publish(
    queue,
    deliveryIds.map((delivery_id) => ({ delivery_id })),
    delaySeconds,
  );
}

/** Hands e-mails of the outbox to the queue (after a delay, for a retry); the sweep re-sends any left due. */
export async function publishNotifications(queue: Queue<QueueMessage>, notificationIds: string[], delaySeconds?: number): Promise<void> {
  await publish(
    queue,
    notificationIds.map((notification_id) => ({ notification_id })),
    delaySeconds,
  );
}

async function publish(queue: Queue<QueueMessage>, bodies: QueueMessage[], delaySeconds?: number): Promise<void> {
  for (let i = 0; i < bodies.length; i += QUEUE_BATCH_LIMIT) {
    const chunk = bodies.slice(i, i + QUEUE_BATCH_LIMIT);
    try {
      await queue.sendBatch(chunk.map((body) => ({ body, contentType: "json" as const, ...(delaySeconds ? { delaySeconds } : {}) })));
    } catch (err) {
      console.error(
        JSON.stringify({ level: "warn", message: "queue send failed; the sweep will resend", messages: chunk, error: String(err) }),
      );
    }
  }
}
