import { and, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db";
import { events, vulnRecords, vulns, webhookDeliveries, webhooks, webhookSubscriptions, type EventRow, type WebhookDeliveryRow, type WebhookRow } from "../db/schema";
import { canonicalSubmission } from "../intake/intake";
import { sha256Hex } from "../lib/crypto";
import { inList } from "../services/listing";
import { leasedUntil } from "../webhooks/deliver";
import { newDelivery } from "../webhooks/fanout";
import { vulnEvent } from "./outbox";

// The events of one message batch processed together, in three D1 round trips whatever their
// number, where one at a time cost about eleven each (read the event, two intake batches, three
// fan-outs each reading the webhooks, then a lease per delivery):
//   1. the events, and the enabled webhooks of their organizations with what each subscribes to;
//   2. every event's fan-out and, for each Vuln::Created, the intake's first step (dispatching ->
//      received) with Vuln::Inbox::Received fanned out in the statements after the one that writes it;
//   3. the intake's second step (the record, received -> stored) with Vuln::Inbox::Stored likewise.
// Each step is one D1 batch, so one transaction: every statement keeps the guard it has when run
// alone (conditional updates, events chained on changes(), the fan-out's unique index, processed_at
// set only if unset), and a redelivered message changes nothing. Deliveries are written leased to
// this invocation, which sends them next without a lease round trip. If a step fails, the consumer
// processes the batch's events one by one instead, so a failure retries its own message alone.

type Statement = BatchItem<"sqlite">;

/** A delivery this invocation wrote, leased, with the webhook to send it to. */
export interface LeasedDelivery {
  delivery: WebhookDeliveryRow;
  webhook: WebhookRow;
}

/** What writes a fan-out of one event makes, and how to read back the deliveries they wrote. */
interface FanOut {
  statements: Statement[];
  /** Turns the results of `statements`, in order, into the deliveries written. */
  written(results: unknown[]): LeasedDelivery[];
}

type Targets = Map<string, WebhookRow[]>;
const targetKey = (organizationId: string, type: string) => `${organizationId} ${type}`;

/**
 * Fans out an event whose row this batch already read: one insert per subscribed webhook (the
 * unique index refuses a second fan-out of the event), then the event marked processed.
 */
function fanOutKnown(db: Db, event: EventRow, targets: Targets, now: number, opts: { markProcessed: boolean }): FanOut {
  const nowIso = new Date(now).toISOString();
  const rows = (targets.get(targetKey(event.organizationId, event.type)) ?? []).map((webhook) => ({
    webhook,
    row: { ...newDelivery(webhook.id, event.organizationId, event, nowIso), leaseUntil: leasedUntil(now) },
  }));
  return {
    statements: [
      ...rows.map(({ row }) => db.insert(webhookDeliveries).values(row).onConflictDoNothing().returning({ id: webhookDeliveries.id })),
      ...(opts.markProcessed ? [markProcessed(db, event.id, nowIso)] : []),
    ],
    written: (results) => rows.filter((_, i) => (results[i] as unknown[]).length > 0).map(({ row, webhook }) => ({ delivery: row, webhook })),
  };
}

/**
 * Fans out an event written earlier in the same batch (its payload built by SQLite): each delivery
 * is copied from the event's row, so nothing is written if the event was not.
 */
function fanOutWritten(db: Db, event: { id: string; type: string }, organizationId: string, targets: Targets, now: number): FanOut {
  const nowIso = new Date(now).toISOString();
  const lease = leasedUntil(now);
  const rows = (targets.get(targetKey(organizationId, event.type)) ?? []).map((webhook) => ({ webhook, id: newDelivery(webhook.id, organizationId, { ...event, payload: "" }, nowIso).id }));
  return {
    statements: [
      ...rows.map(({ webhook, id }) =>
        db
          .insert(webhookDeliveries)
          .select(
            db
              .select({
                id: sql<string>`${id}`.as("id"),
                webhookId: sql<string>`${webhook.id}`.as("webhook_id"),
                organizationId: events.organizationId,
                eventId: events.id,
                eventType: events.type,
                requestBody: events.payload,
                redeliveryOf: sql<null>`null`.as("redelivery_of"),
                status: sql<"pending">`'pending'`.as("status"),
                attemptCount: sql<number>`0`.as("attempt_count"),
                lastStatusCode: sql<null>`null`.as("last_status_code"),
                nextAttemptAt: sql<string>`${nowIso}`.as("next_attempt_at"),
                leaseUntil: sql<string>`${lease}`.as("lease_until"),
                createdAt: sql<string>`${nowIso}`.as("created_at"),
                updatedAt: sql<string>`${nowIso}`.as("updated_at"),
              })
              .from(events)
              .where(and(eq(events.id, event.id), isNull(events.processedAt))),
          )
          .onConflictDoNothing()
          .returning(),
      ),
      markProcessed(db, event.id, nowIso),
    ],
    written: (results) =>
      rows.flatMap(({ webhook }, i) => ((results[i] as WebhookDeliveryRow[])[0] ? [{ delivery: (results[i] as WebhookDeliveryRow[])[0]!, webhook }] : [])),
  };
}

function markProcessed(db: Db, eventId: string, nowIso: string): Statement {
  return db.update(events).set({ processedAt: nowIso }).where(and(eq(events.id, eventId), isNull(events.processedAt)));
}

/** Runs the statements as one batch and hands each part its own slice of the results. */
async function runParts(db: Db, parts: FanOut[]): Promise<LeasedDelivery[]> {
  const statements = parts.flatMap((p) => p.statements);
  if (statements.length === 0) return [];
  const results = await db.batch(statements as [Statement, ...Statement[]]);
  let at = 0;
  return parts.flatMap((p) => {
    const mine = results.slice(at, (at += p.statements.length));
    return p.written(mine);
  });
}

/** A part whose results matter only to the caller (the intake's select). */
function capture(statements: Statement[], into: unknown[][]): FanOut {
  return { statements, written: (results) => (into.push(results), []) };
}

/**
 * Processes the events `ids` (already processed or gone: nothing to do). The deliveries each step
 * writes, leased, go to `send` as soon as the step is committed, so the first requests leave while
 * the next step runs; it resolves once every step is committed.
 */
export async function processEventBatch(db: Db, ids: readonly string[], send: (deliveries: LeasedDelivery[]) => void, now = Date.now()): Promise<void> {
  const eventIds = [...new Set(ids)];
  if (eventIds.length === 0) return;
  const nowIso = new Date(now).toISOString();
  const [rows, hooks] = await db.batch([
    db.select().from(events).where(inList(events.id, eventIds)),
    db
      .select({ ...getTableColumns(webhooks), subscribedTo: webhookSubscriptions.eventType })
      .from(webhooks)
      .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.webhookId, webhooks.id))
      .where(and(eq(webhooks.enabled, true), sql`${webhooks.organizationId} IN (SELECT organization_id FROM events WHERE ${inList(events.id, eventIds)})`)),
  ]);
  console.warn(`TIMING step1 ${Date.now() - now}`);
  const targets: Targets = new Map();
  for (const { subscribedTo, ...webhook } of hooks) {
    const key = targetKey(webhook.organizationId, subscribedTo);
    targets.set(key, [...(targets.get(key) ?? []), webhook]);
  }
  const pending = rows.filter((e) => e.processedAt === null);

  // Step 2: fan-outs, and the intake's first step for each new vuln.
  const intakes: { eventId: string; vulnId: string; organizationId: string; read: unknown[][] }[] = [];
  const first: FanOut[] = [];
  for (const event of pending) {
    if (event.type === "Vuln::Created" && event.vulnId) {
      const received = vulnEvent(db, "Vuln::Inbox::Received", event.vulnId, nowIso, { ifPreviousChanged: true });
      const intake = { eventId: event.id, vulnId: event.vulnId, organizationId: event.organizationId, read: [] as unknown[][] };
      intakes.push(intake);
      first.push(
        capture([db.update(vulns).set({ inboxState: "received", updatedAt: nowIso }).where(and(eq(vulns.id, event.vulnId), eq(vulns.inboxState, "dispatching"))), received.statement], []),
        fanOutWritten(db, received.event, event.organizationId, targets, now),
        capture([db.select({ submission: vulns.submission, inboxState: vulns.inboxState }).from(vulns).where(eq(vulns.id, event.vulnId))], intake.read),
      );
    }
    // Vuln::Created is marked processed with the intake's last step: until then a retry redoes the intake.
    first.push(fanOutKnown(db, event, targets, now, { markProcessed: event.type !== "Vuln::Created" || !event.vulnId }));
  }
  const t1 = Date.now(); const d1 = await runParts(db, first); console.warn(`TIMING step2 ${Date.now() - t1} statements=${first.flatMap((p) => p.statements).length}`); send(d1);

  // Step 3: the intake's record for each vuln now received.
  const second: FanOut[] = [];
  for (const intake of intakes) {
    // read: [the select's results], whose one row is the vuln as step 2 left it.
    const vuln = (intake.read[0]?.[0] as { submission: typeof vulns.$inferSelect.submission; inboxState: string }[] | undefined)?.[0];
    if (!vuln || vuln.inboxState !== "received") {
      second.push(capture([markProcessed(db, intake.eventId, nowIso)], []));
      continue;
    }
    const submission = vuln.submission;
    const stored = vulnEvent(db, "Vuln::Inbox::Stored", intake.vulnId, nowIso, { ifPreviousChanged: true });
    second.push(
      capture(
        [
          db
            .insert(vulnRecords)
            .values({
              vulnId: intake.vulnId,
              title: submission.title,
              description: submission.description,
              contactEmail: submission.contact_email,
              domains: submission.domains,
              receivedAt: submission.received_at,
              sha256: await sha256Hex(canonicalSubmission(submission)),
              storedAt: nowIso,
            })
            .onConflictDoNothing(),
          db.update(vulns).set({ inboxState: "stored", updatedAt: nowIso }).where(and(eq(vulns.id, intake.vulnId), eq(vulns.inboxState, "received"))),
          stored.statement,
        ],
        [],
      ),
      fanOutWritten(db, stored.event, intake.organizationId, targets, now),
      capture([markProcessed(db, intake.eventId, nowIso)], []),
    );
  }
  send(await runParts(db, second));
}
