import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import worker from "../../src/index";
import { fakeQueue } from "./events";

/**
 * Hands messages to the Worker's queue handler, as the Queue would, and says what it acked and
 * retried, with what delays (getQueueResult does not report them, so the retry calls are watched),
 * and what it sent on to the queue. A string body stands for an event id.
 */
export async function runQueue(bodies: (object | string)[], opts: { env?: Partial<Env>; attempts?: number } = {}) {
  const produced = fakeQueue();
  const batch = createMessageBatch(
    "vdp-events",
    bodies.map((body, i) => ({
      id: `m${i}-${crypto.randomUUID()}`,
      timestamp: new Date(),
      attempts: opts.attempts ?? 1,
      body: typeof body === "string" ? { event_id: body } : body,
    })),
  );
  const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
  const ctx = createExecutionContext();
  await (worker as ExportedHandler<Env>).queue!(batch, { ...env, EVENTS: produced.queue, ...opts.env }, ctx);
  const result = await getQueueResult(batch, ctx);
  const sent = produced.sent as { event_id?: string; delivery_id?: string }[];
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
