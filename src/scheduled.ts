import { primaryDb } from "./db";
import { sweepOutbox } from "./events/outbox";
import type { QueueMessage } from "./lib/queue";
import { purgeOrphanObjects } from "./services/attachment-objects";
import { OBJECT_PREFIX } from "./services/attachments";
import { purgeExpiredIdempotencyKeys } from "./http/idempotency-key";
import { purgeDeliveries, resealWebhookSecrets, sweepDeliveries } from "./webhooks/maintenance";

/**
 * Every minute: re-send events and deliveries whose messages were lost, forget what expired, keep
 * webhook secrets sealed under the newest key, and delete attachment objects no row names. Each step
 * on its own: a queue that is down must not stop the purges, nor one sweep the other.
 */
export async function runScheduled(env: Env): Promise<void> {
  const db = primaryDb(env.DB);
  const queue = env.EVENTS as Queue<QueueMessage>;
  const steps = {
    sweepOutbox: () => sweepOutbox(db, queue),
    sweepDeliveries: () => sweepDeliveries(db, queue),
    purgeExpiredIdempotencyKeys: () => purgeExpiredIdempotencyKeys(db),
    purgeDeliveries: () => purgeDeliveries(db),
    resealWebhookSecrets: () => resealWebhookSecrets(db),
    purgeOrphanAttachments: () => purgeOrphanObjects(db, env.ATTACHMENTS, OBJECT_PREFIX),
  };
  const results = await Promise.allSettled(Object.values(steps).map((step) => step()));
  results.forEach((r, i) => {
    if (r.status === "rejected")
      console.error(JSON.stringify({ level: "error", message: `scheduled ${Object.keys(steps)[i]} failed`, error: String(r.reason) }));
  });
}
