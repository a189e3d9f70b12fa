import { and, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import type { Db, Statement } from "../db";
import { webhookAttempts, webhookDeliveries, webhooks, type WebhookDeliveryRow, type WebhookRow } from "../db/schema";
import { uuidv7 } from "../lib/ids";
import { batchOf, isForeignKeyViolation, subquery } from "../db/queries";
import { nextDelaySeconds, parseRetryAfter } from "../lib/retry-schedule";
import { openWebhookSecret } from "./secrets";
import { signatureHeader } from "./signing";
import { checkWebhookUrl } from "./url";

export const ATTEMPT_TIMEOUT_MS = 15_000;
const LEASE_MS = 60_000;
// A message may arrive a little before its delivery is due (clocks differ); it still counts.
const DUE_SKEW_MS = 2_000;
export const FAILURES_BEFORE_DISABLE = 5;

export interface DeliveryContext {
  db: Db;
  serviceName: string;
  allowLoopback: boolean;
  fetch?: typeof fetch;
  random?: () => number;
  /** Records an attempt's statements, as one transaction (default: a D1 batch of its own; see groupCommit). */
  record?: (statements: Statement[]) => Promise<void>;
  /**
   * Called once the request is answered (or known not to go out), before the attempt is recorded:
   * the consumer's count of requests in flight drops then, not a D1 round trip later.
   */
  sent?: () => void;
}

/**
 * Group commit for the attempts of one invocation: an attempt's record joins the D1 batch about to
 * go out, or the next one, rather than taking a round trip of its own (at 6 requests in flight, a
 * thousand deliveries were a thousand small transactions queued behind each other). Each batch is
 * one transaction, so every attempt in it is recorded or none is; if a batch fails, its attempts
 * are recorded one by one, so only the attempt at fault sees the error (a webhook deleted while its
 * request was out). Nobody is answered before their own record is committed.
 */
export function groupCommit(db: Db): (statements: Statement[]) => Promise<void> {
  type Entry = { statements: Statement[]; done: (err?: unknown) => void };
  let queued: Entry[] = [];
  let flushing = false;
  const alone = (e: Entry) => batchOf(db, e.statements).then(() => e.done(), e.done);
  async function flush(): Promise<void> {
    flushing = true;
    while (queued.length > 0) {
      const group = queued;
      queued = [];
      try {
        await batchOf(
          db,
          group.flatMap((e) => e.statements),
        );
        for (const e of group) e.done();
      } catch {
        await Promise.all(group.map(alone));
      }
    }
    flushing = false;
  }
  return (statements) =>
    new Promise<void>((resolve, reject) => {
      queued.push({ statements, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!flushing) void flush();
    });
}

/** What the consumer does with the message: acknowledge it, or retry it after a delay. */
export type Outcome = { ack: true } | { ack: false; delaySeconds: number };

type Result = { statusCode: number | null; error: string | null; retryAfter: number | null; durationMs: number };

const DRAIN_LIMIT = 64 * 1024;

/**
 * The receiver's body is never stored or shown, but a short one (most send none, or "ok") is read
 * to its end: a body cancelled half-read closes the connection, where a drained one leaves it open
 * for the next delivery, and opening a connection per delivery was the largest part of sending.
 * Past 64 KiB it is cancelled.
 */
export async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
    if (read > DRAIN_LIMIT) {
      await reader.cancel();
      return;
    }
  }
}

async function send(ctx: DeliveryContext, url: string, headers: Record<string, string>, body: string, now: number): Promise<Result> {
  const started = Date.now();
  try {
    const res = await (ctx.fetch ?? fetch)(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    await drain(res.body);
    const redirect = res.status >= 300 && res.status < 400;
    return {
      statusCode: res.status,
      error: redirect ? `redirect to ${res.headers.get("location") ?? "(no location)"} not followed` : null,
      retryAfter: parseRetryAfter(res.headers.get("retry-after"), now),
      durationMs: Date.now() - started,
    };
  } catch (err) {
    const timeout = (err as Error)?.name === "TimeoutError" || (err as Error)?.name === "AbortError";
    return {
      statusCode: null,
      error: timeout ? `timed out after ${ATTEMPT_TIMEOUT_MS / 1000} s` : `request failed: ${String((err as Error)?.message ?? err)}`,
      retryAfter: null,
      durationMs: Date.now() - started,
    };
  }
}

/**
 * The secrets that sign: the current one, and the previous one while its 24 hours last. One that
 * does not open (an altered row, a key removed from WEBHOOK_SECRET_KEY too early) stops the attempt
 * before anything is sent: the lease is given back and the error thrown, so the consumer logs it and
 * retries the message. The attempt is not recorded and counts against neither the delivery nor the
 * webhook: the receiver did nothing wrong, and once the key is fixed the delivery goes out signed.
 */
async function signingSecrets(db: Db, webhook: WebhookRow, deliveryId: string, nowIso: string): Promise<string[]> {
  const stored = [webhook.secret];
  if (webhook.previousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > nowIso)
    stored.push(webhook.previousSecret);
  try {
    return await Promise.all(stored.map((s) => openWebhookSecret(webhook.id, s)));
  } catch (err) {
    await db.update(webhookDeliveries).set({ leaseUntil: null }).where(eq(webhookDeliveries.id, deliveryId));
    throw new Error(
      `webhook ${webhook.id}: its signing secret cannot be used, so delivery ${deliveryId} is not sent: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/**
 * One attempt of one delivery. The delivery is leased first, so a duplicate message cannot send it
 * twice; the attempt is recorded (and the webhook updated) in one batch before the message is
 * acknowledged or retried, so no attempt goes unrecorded and none is lost.
 */
export async function attemptDelivery(ctx: DeliveryContext, deliveryId: string): Promise<Outcome> {
  const { db } = ctx;
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const lease = new Date(now + LEASE_MS).toISOString();
  // (Two selects, not a join: D1 batch rows are keyed by column name, and both tables have id,
  // organization_id, created_at ... which a join would collide.)
  const [leased, deliveries, hooks] = await db.batch([
    db
      .update(webhookDeliveries)
      .set({ leaseUntil: lease })
      .where(
        and(
          eq(webhookDeliveries.id, deliveryId),
          eq(webhookDeliveries.status, "pending"),
          or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, new Date(now + DUE_SKEW_MS).toISOString())),
          or(isNull(webhookDeliveries.leaseUntil), lte(webhookDeliveries.leaseUntil, nowIso)),
        ),
      ),
    db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)),
    db
      .select()
      .from(webhooks)
      .where(eq(webhooks.id, subquery`(SELECT webhook_id FROM webhook_deliveries WHERE id = ${deliveryId})`)),
  ]);
  const delivery = deliveries[0];
  if (!delivery) return { ack: true }; // gone with its webhook
  if (leased.meta.changes === 0 || delivery.leaseUntil !== lease) {
    // Held by another attempt, maybe ours that sent and then failed to record: come back when the
    // lease ends rather than drop the message. Done, or not due yet (a duplicate): nothing to do.
    if (delivery.status === "pending" && delivery.leaseUntil !== null && delivery.leaseUntil > nowIso) {
      return { ack: false, delaySeconds: Math.ceil((Date.parse(delivery.leaseUntil) - now) / 1000) + 1 };
    }
    return { ack: true };
  }
  return sendAndRecord(ctx, delivery, hooks[0] ?? null, now);
}

/**
 * A delivery this invocation inserted already leased (see src/events/process-batch.ts), attempted
 * without the lease round trip: the fan-out that wrote the row is what leased it. Once the lease is
 * nearly over (a long wait behind other deliveries), it is attempted the ordinary way instead, which
 * waits for the lease to end rather than risk sending it twice.
 */
export async function attemptLeased(ctx: DeliveryContext, delivery: WebhookDeliveryRow, webhook: WebhookRow): Promise<Outcome> {
  const now = Date.now();
  if (delivery.leaseUntil === null || Date.parse(delivery.leaseUntil) - now < LEASE_MS / 4) return attemptDelivery(ctx, delivery.id);
  return sendAndRecord(ctx, delivery, webhook, now);
}

/** Until when a delivery the consumer writes for itself stays leased to it. */
export function leasedUntil(now: number): string {
  return new Date(now + LEASE_MS).toISOString();
}

/** Sends a leased delivery to its webhook (or records why not) and records the attempt. */
async function sendAndRecord(
  ctx: DeliveryContext,
  delivery: WebhookDeliveryRow,
  webhook: WebhookRow | null,
  now: number,
): Promise<Outcome> {
  const { db } = ctx;
  const deliveryId = delivery.id;
  const nowIso = new Date(now).toISOString();
  const check = webhook ? checkWebhookUrl(webhook.url, { allowLoopback: ctx.allowLoopback }) : null;
  // A ping or a redelivery is something the owner asked for: it goes out even while the webhook is disabled.
  const active = webhook !== null && (webhook.enabled || delivery.eventType === "Webhook::Ping" || delivery.redeliveryOf !== null);
  let result: Result;
  if (!webhook || !active) {
    result = {
      statusCode: null,
      error: webhook ? `webhook disabled (${webhook.disabledReason ?? "by its owner"})` : "webhook deleted",
      retryAfter: null,
      durationMs: 0,
    };
  } else if (!check!.ok) {
    result = { statusCode: null, error: `url refused: ${check!.reason}`, retryAfter: null, durationMs: 0 };
  } else {
    const timestamp = Math.floor(now / 1000);
    const secrets = await signingSecrets(db, webhook, deliveryId, nowIso);
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": `${ctx.serviceName}/1.0`,
      "X-Webhook-Event": delivery.eventType,
      "webhook-id": delivery.eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signatureHeader(secrets, delivery.eventId, timestamp, delivery.requestBody),
    };
    result = await send(ctx, check!.url, headers, delivery.requestBody, now);
  }
  ctx.sent?.();

  const attempt = delivery.attemptCount + 1;
  const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const gone = result.statusCode === 410;
  const final = !webhook || !active || !check?.ok || gone;
  const delay = succeeded || final ? null : nextDelaySeconds(attempt, result.retryAfter, (ctx.random ?? Math.random)());
  const exhausted = !succeeded && !final && delay === null;
  const status = succeeded ? "succeeded" : delay === null ? "failed" : "pending";

  const statements = [
    db.insert(webhookAttempts).values({
      id: uuidv7(),
      deliveryId,
      attemptedAt: nowIso,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
    }),
    db
      .update(webhookDeliveries)
      .set({
        status,
        attemptCount: attempt,
        lastStatusCode: result.statusCode,
        nextAttemptAt: delay === null ? null : new Date(now + delay * 1000).toISOString(),
        leaseUntil: null,
        updatedAt: nowIso,
      })
      .where(eq(webhookDeliveries.id, deliveryId)),
  ] as const;
  const webhookUpdate = webhook ? webhookAfter(db, webhook, { succeeded, gone, exhausted }, nowIso) : null;
  try {
    const record: Statement[] = webhookUpdate ? [...statements, webhookUpdate] : [...statements];
    await (ctx.record ? ctx.record(record) : batchOf(db, record));
  } catch (err) {
    // The webhook (and with it this delivery) was deleted while the request was out: nothing to record.
    if (isForeignKeyViolation(err)) return { ack: true };
    throw err;
  }
  return delay === null ? { ack: true } : { ack: false, delaySeconds: delay };
}

/**
 * What an attempt's outcome changes on its webhook, if anything: a success resets its run of failures
 * (when it had one: known from the read, so a healthy webhook costs no statement), a 410 disables it as
 * gone, and a delivery that used up every attempt adds a failure, disabling it as failing at the fifth.
 */
function webhookAfter(
  db: Db,
  webhook: WebhookRow,
  outcome: { succeeded: boolean; gone: boolean; exhausted: boolean },
  nowIso: string,
): Statement | null {
  if (outcome.succeeded) {
    if (webhook.consecutiveFailures === 0) return null;
    return db
      .update(webhooks)
      .set({ consecutiveFailures: 0 })
      .where(and(eq(webhooks.id, webhook.id), gt(webhooks.consecutiveFailures, 0)));
  }
  if (outcome.gone) {
    return db.update(webhooks).set({ enabled: false, disabledReason: "gone", updatedAt: nowIso }).where(eq(webhooks.id, webhook.id));
  }
  if (!outcome.exhausted) return null;
  const disables = sql`${webhooks.consecutiveFailures} + 1 >= ${FAILURES_BEFORE_DISABLE}`;
  return db
    .update(webhooks)
    .set({
      consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`,
      enabled: sql`CASE WHEN ${disables} THEN 0 ELSE ${webhooks.enabled} END`,
      disabledReason: sql`CASE WHEN ${disables} THEN 'failing' ELSE ${webhooks.disabledReason} END`,
      updatedAt: nowIso,
    })
    .where(eq(webhooks.id, webhook.id));
}
