import { and, eq, gt, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db";
import { webhookDeliveries, webhooks } from "../db/schema";
import { publishDeliveries, QUEUE_BATCH_LIMIT, type QueueMessage } from "../lib/queue";
import { batchOf, changedRows, inList } from "../db/queries";
import { needsReseal, openWebhookSecret, sealWebhookSecret, webhookKeyring } from "./secrets";

// A pending delivery this long past its due time and past its lease has lost its message (the queue
// refused it, it went to the dead-letter queue, or the isolate died holding it): the sweep sends it
// again. With the cron every minute, that is within 2 minutes of its lease ending. A message that
// was only slow and arrives too finds the delivery leased or done: nothing is sent twice.
export const DELIVERY_OVERDUE_MS = 60_000;
export const DELIVERY_RETENTION_DAYS = 30;
// Pages of one queue batch, until none are due, at most this many a run (a backlog of 10,000 is gone
// in five runs; each page costs two D1 statements and one queue batch).
const SWEEP_PAGE = QUEUE_BATCH_LIMIT;
export const DELIVERY_SWEEP_MAX_PAGES = 20;

export async function sweepDeliveries(db: Db, queue: Queue<QueueMessage>, now = Date.now()): Promise<number> {
  let sent = 0;
  for (let page = 0; page < DELIVERY_SWEEP_MAX_PAGES; page++) {
    const { selected, taken } = await sweepDeliveryPage(db, queue, now);
    sent += taken;
    if (selected < SWEEP_PAGE) break;
  }
  return sent;
}

async function sweepDeliveryPage(db: Db, queue: Queue<QueueMessage>, now: number): Promise<{ selected: number; taken: number }> {
  const overdue = new Date(now - DELIVERY_OVERDUE_MS).toISOString();
  const nowIso = new Date(now).toISOString();
  const lost = and(
    eq(webhookDeliveries.status, "pending"),
    lt(webhookDeliveries.nextAttemptAt, overdue),
    or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, overdue)),
  );
  const due = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(lost).limit(SWEEP_PAGE);
  if (due.length === 0) return { selected: 0, taken: 0 };
  // Due now, so the next page (and the next run) leaves them alone while their messages find them due.
  // The same conditions again: a late message may have handled one since the select, and its new
  // schedule stands.
  const taken = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: nowIso })
    .where(
      and(
        inList(
          webhookDeliveries.id,
          due.map((d) => d.id),
        ),
        lost,
      ),
    )
    .returning({ id: webhookDeliveries.id });
  await publishDeliveries(
    queue,
    taken.map((t) => t.id),
  );
  return { selected: due.length, taken: taken.length };
}

/** Deliveries (and their attempts) are kept 30 days. */
export async function purgeDeliveries(db: Db, now = Date.now()): Promise<void> {
  const cutoff = new Date(now - DELIVERY_RETENTION_DAYS * 86_400_000).toISOString();
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, cutoff));
}

const RESEAL_PAGE = 50;
const RESEAL_MAX_PAGES = 10;

/**
 * Keeps stored signing secrets under the first key of WEBHOOK_SECRET_KEY: seals the plain ones left
 * from before secrets were sealed, reseals those under an older key (so that key can be removed once
 * this has run), and forgets previous secrets whose 24 hours are over. Each update holds only if the
 * row still has the values read, so a rotation in between wins. A secret that does not open is
 * logged and left as it is (it signs nothing until fixed); the pages move on past it.
 */
export async function resealWebhookSecrets(db: Db, now = Date.now()): Promise<{ resealed: number; failed: number }> {
  const keyring = await webhookKeyring();
  await db
    .update(webhooks)
    .set({ previousSecret: null, previousSecretExpiresAt: null })
    .where(
      and(
        isNotNull(webhooks.previousSecret),
        or(isNull(webhooks.previousSecretExpiresAt), lte(webhooks.previousSecretExpiresAt, new Date(now).toISOString())),
      ),
    );
  const current = `v1.${keyring.current}.`;
  const stale = (column: typeof webhooks.secret | typeof webhooks.previousSecret) =>
    sql`substr(${column}, 1, ${current.length}) <> ${current}`;
  let resealed = 0;
  let failed = 0;
  let after = "";
  for (let page = 0; page < RESEAL_MAX_PAGES; page++) {
    const rows = await db
      .select({ id: webhooks.id, secret: webhooks.secret, previousSecret: webhooks.previousSecret })
      .from(webhooks)
      .where(
        and(gt(webhooks.id, after), or(stale(webhooks.secret), and(isNotNull(webhooks.previousSecret), stale(webhooks.previousSecret)))),
      )
      .orderBy(webhooks.id)
      .limit(RESEAL_PAGE);
    const updates = [];
    for (const row of rows) {
      try {
        const reseal = async (stored: string) =>
          needsReseal(stored, keyring) ? sealWebhookSecret(row.id, await openWebhookSecret(row.id, stored, keyring), keyring) : stored;
        const secret = await reseal(row.secret);
        const previousSecret = row.previousSecret === null ? null : await reseal(row.previousSecret);
        updates.push(
          db
            .update(webhooks)
            .set({ secret, previousSecret })
            .where(
              and(
                eq(webhooks.id, row.id),
                eq(webhooks.secret, row.secret),
                row.previousSecret === null ? isNull(webhooks.previousSecret) : eq(webhooks.previousSecret, row.previousSecret),
              ),
            ),
        );
      } catch (err) {
        failed++;
        console.error(
          JSON.stringify({ level: "error", message: "webhook signing secret cannot be resealed", webhook_id: row.id, error: String(err) }),
        );
      }
    }
    if (updates.length) resealed += (await batchOf(db, updates)).reduce<number>((n, r) => n + changedRows(r), 0);
    if (rows.length < RESEAL_PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  return { resealed, failed };
}
