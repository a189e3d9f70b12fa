import { primaryDb } from "./db";
import { publicReadFromCache } from "./http/public-hit";
import { consume } from "./events/consumer";
import { sweepOutbox, type QueueMessage } from "./events/outbox";
import { purgeOrphanObjects } from "./services/attachment-objects";
import { OBJECT_PREFIX } from "./services/attachments";
import { purgeExpiredIdempotencyKeys } from "./services/idempotency";
import { purgeDeliveries, resealWebhookSecrets, sweepDeliveries } from "./webhooks/maintenance";

// The HTTP app (every route and its zod schemas) is built on the first request of an isolate, not
// at start-up: isolates that only consume the queue or run the cron never build it.
let app: Promise<typeof import("./app")["app"]> | undefined;

export default {
  fetch: async (request, env, ctx) =>
    (await publicReadFromCache(request, env)) ?? (await (app ??= import("./app").then((m) => m.app))).fetch(request, env, ctx),

  // Outbox events (through Vuln::Created, the intake pipeline) and webhook deliveries.
  queue: (batch, env) => consume(batch as MessageBatch<QueueMessage>, env),

  // Every minute: re-send events and deliveries whose messages were lost, forget what expired, and
  // keep webhook secrets sealed under the newest key, and delete attachment objects no row names.
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
      purgeOrphanAttachments: () => purgeOrphanObjects(db, env.ATTACHMENTS, OBJECT_PREFIX),
    };
    const results = await Promise.allSettled(Object.values(steps).map((step) => step()));
    results.forEach((r, i) => {
      if (r.status === "rejected") console.error(JSON.stringify({ level: "error", message: `scheduled ${Object.keys(steps)[i]} failed`, error: String(r.reason) }));
    });
  },
} satisfies ExportedHandler<Env>;
