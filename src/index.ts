import { app } from "./app";
import { createDb } from "./db";
import { consumeEvents } from "./events/consumer";
import { sweepOutbox, type EventMessage } from "./events/outbox";
import { purgeExpiredIdempotencyKeys } from "./services/idempotency";

export default {
  fetch: app.fetch,

  // The outbox events (and through Vuln::Created, the intake pipeline).
  queue: (batch, env) => consumeEvents(batch as MessageBatch<EventMessage>, env),

  // Every minute: re-send events the queue did not take, and forget expired idempotency keys.
  async scheduled(_controller, env) {
    const db = createDb(env.DB);
    await sweepOutbox(db, env.EVENTS as Queue<EventMessage>);
    await purgeExpiredIdempotencyKeys(db);
  },
} satisfies ExportedHandler<Env>;
