import { and, eq, gt, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db";
import { webhookDeliveries, webhooks } from "../db/schema";
import { publishDeliveries, type QueueMessage } from "../lib/queue";
import { batchOf, changedRows, inList } from "../db/queries";
import { needsReseal, openWebhookSecret, sealWebhookSecret, webhookKeyring } from "./secrets";

// A pending delivery this long past due has lost its message (the queue refused it, or it went to
// the dead-letter queue): the sweep sends it again.
export const DELIVERY_OVERDUE_MS = 10 * 60_000;
export const DELIVERY_RETENTION_DAYS = 30;

export async function sweepDeliveries(db: Db, queue: Queue<QueueMessage>, now = Date.now()): Promise<number> {
  const overdue = new Date(now - DELIVERY_OVERDUE_MS).toISOString();
  const nowIso = new Date(now).toISOString();
  const due = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lt(webhookDeliveries.nextAttemptAt, overdue),
        or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, nowIso)),
      ),
    )
    .limit(100);
  if (due.length === 0) return 0;
  // Due now, so the next sweep leaves them alone for a while and the message finds them due. The same
  // conditions again: a late message may have handled one since the select, and its new schedule stands.
  const taken = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: nowIso })
    .where(
      and(
        inList(
          webhookDeliveries.id,
          due.map((d) => d.id),
        ),
        eq(webhookDeliveries.status, "pending"),
        lt(webhookDeliveries.nextAttemptAt, overdue),
        or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, nowIso)),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  await publishDeliveries(
    queue,
    taken.map((t) => t.id),
  );
  return taken.length;
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
