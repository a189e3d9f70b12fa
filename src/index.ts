import { createApp } from "./app";

const app = createApp();

export default {
  fetch: app.fetch,

  // The queue carries outbox events and intake work. Nothing produces messages yet; until a handler
  // exists for a message, it is retried, never acknowledged, so nothing is lost.
  async queue(batch) {
    for (const message of batch.messages) message.retry();
  },

  async scheduled() {},
} satisfies ExportedHandler<Env>;
