import { publicReadFromCache } from "./http/public-hit";
import type { QueueMessage } from "./lib/queue";

/** A module loaded on first use, once per isolate. */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

// Each entry point loads what it needs on first use, so start-up evaluates almost nothing: the HTTP
// app (every route and its zod schemas) is built on an isolate's first request that is not a cached
// public read, and isolates that only consume the queue or run the cron never build it.
const app = onFirstUse(() => import("./app").then((m) => m.app));
const consumer = onFirstUse(() => import("./events/consumer"));
const cron = onFirstUse(() => import("./scheduled"));
const inbound = onFirstUse(() => import("./inbound-email"));

export default {
  fetch: async (request, env, ctx) => (await publicReadFromCache(request, env)) ?? (await app()).fetch(request, env, ctx),

  // Outbox events (through Vuln::Created, the intake pipeline) and webhook deliveries.
  queue: async (batch, env) => (await consumer()).consume(batch as MessageBatch<QueueMessage>, env),

  scheduled: async (_controller, env) => (await cron()).runScheduled(env),

  // Replies by e-mail (Email Routing): a reporter's answer to a notice becomes a comment.
  email: async (message, env, ctx) => (await inbound()).handleEmail(message, env, ctx),
} satisfies ExportedHandler<Env>;
