import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import worker from "../../src/index";
import { fakeQueue } from "./events";
import { withDatabases, withShard } from "./shards";

/**
 * Hands messages to the Worker's queue handler, as the Queue would, and says what it acked and
 * retried, with what delays (getQueueResult does not report them, so the retry calls are watched),
 * and what it sent on to the queue. A string body stands for an event id.
 */
export async function runQueue(bodies: (object | string)[], opts: { env?: Partial<Env>; attempts?: number } = {}) {
  const produced = fakeQueue();
  const messages = await Promise.all(bodies.map((body) => withShard(typeof body === "string" ? { event_id: body } : body)));
  const batch = createMessageBatch(
    "vdp-events",
    messages.map((body, i) => ({
      id: `m${i}-${crypto.randomUUID()}`,
      timestamp: new Date(),
      attempts: opts.attempts ?? 1,
      body,
    })),
  );
  const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
  const ctx = createExecutionContext();
  const bindings = { ...env, EVENTS: produced.queue, ...opts.env };
  await (worker as ExportedHandler<Env>).queue!(batch, withDatabases(bindings, opts.env?.DB ?? env.DB) as unknown as Env, ctx);
  const result = await getQueueResult(batch, ctx);
  // What the consumer sent on, as a one-database world sees it (a sharded one's messages also name their shard).
  const sent = (produced.sent as { event_id?: string; delivery_id?: string; shard?: string }[]).map(({ shard: _, ...body }) => body);
  return {
    ...result,
    messageIds: batch.messages.map((m) => m.id),
    acked: result.explicitAcks.length,
    retried: result.retryMessages.length,
    retryCalls: retries.map((r) => r.mock.calls),
    delays: retries.flatMap((r) => r.mock.calls.map((c) => (c[0] as { delaySeconds?: number } | undefined)?.delaySeconds)),
    produced: sent,
    producedDelays: produced.delays,
    publishedEvents: sent.flatMap((m) => (m.event_id ? [m.event_id] : [])),
  };
}
