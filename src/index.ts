import { app } from "./app";
import { primaryDb } from "./db";
import { consume } from "./events/consumer";
import { sweepOutbox, type QueueMessage } from "./events/outbox";
import { purgeExpiredIdempotencyKeys } from "./services/idempotency";
import { purgeDeliveries, resealWebhookSecrets, sweepDeliveries } from "./webhooks/maintenance";

export default {
  fetch: app.fetch,

  // Outbox events (through Vuln::Created, the intake pipeline) and webhook deliveries.
  queue: (batch, env) => consume(batch as MessageBatch<QueueMessage>, env),

  // Every minute: re-send events and deliveries whose messages were lost, forget what expired, and
  // keep webhook secrets sealed under the newest key.
  // Each step on its own: a queue that is down must not stop the purges, nor one sweep the other.
  async scheduled(_controller, env) {
    const db = primaryDb(env.DB);
    const queue = env.EVENTS as Queue<QueueMessage>;
    const steps = {
      sweepOutbox: () => sweepOutbox(db, queue),
      sweepDeliveries: () => sweepDeliveries(db, queue),
      purgeExpiredIdempotencyKeys: () => purgeExpiredIdempotencyKeys(db),
      purgeDeliveries: () => purgeDeliveries(db),
      resealWebhookSecrets: () => resealWebhookSecrets(db),
    };
    const results = await Promise.allSettled(Object.values(steps).map((step) => step()));
    results.forEach((r, i) => {
      if (r.status === "rejected") console.error(JSON.stringify({ level: "error", message: `scheduled ${Object.keys(steps)[i]} failed`, error: String(r.reason) }));
    });
  },
} satisfies ExportedHandler<Env>;
