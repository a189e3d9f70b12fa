import { app } from "./app";
import { createDb } from "./db";
import { consume } from "./events/consumer";
import { sweepOutbox, type QueueMessage } from "./events/outbox";
import { purgeExpiredIdempotencyKeys } from "./services/idempotency";
import { purgeDeliveries, sweepDeliveries } from "./webhooks/maintenance";

export default {
  fetch: app.fetch,

  // Outbox events (through Vuln::Created, the intake pipeline) and webhook deliveries.
  queue: (batch, env) => consume(batch as MessageBatch<QueueMessage>, env),

  // Every minute: re-send events and deliveries whose messages were lost, and forget what expired.
  async scheduled(_controller, env) {
    const db = createDb(env.DB);
    const queue = env.EVENTS as Queue<QueueMessage>;
    await sweepOutbox(db, queue);
    await sweepDeliveries(db, queue);
    await purgeExpiredIdempotencyKeys(db);
    await purgeDeliveries(db);
  },
} satisfies ExportedHandler<Env>;
