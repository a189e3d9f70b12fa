import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { primaryDb } from "../../src/db";
import { organizations, webhookAttempts } from "../../src/db/schema";
import { uuidv7 } from "../../src/lib/ids";
import { processEventBatch } from "../../src/events/process-batch";
import { attemptLeased, drain, groupCommit } from "../../src/webhooks/deliver";
import type { LeasedDelivery } from "../../src/webhooks/fanout";
import { countingD1 } from "../helpers/d1-counter";
import { rewritingSql } from "../helpers/d1-faults";
import { expectedErrorLogs } from "../helpers/logs";
import { createVulns, deliverEvents, receiver, subscribedOrganization as subscribed } from "../helpers/webhooks";

// A message batch's events are processed together (src/events/process-batch.ts): a few D1 round
// trips whatever their number, with the guarantees of processing them one by one.

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const row = (sql: string, ...values: unknown[]) =>
  env.DB.prepare(sql)
    .bind(...values)
    .first<Record<string, unknown>>();

describe("a batch of events processed together", () => {
  it("takes three D1 round trips for 2 new vulns and for 20, each driven to stored with its events processed", async () => {
    for (const n of [2, 20]) {
      const { o, briefId } = await subscribed([]);
      const { events, vulns } = await createVulns(o, briefId, n);
      const counting = countingD1(env.DB);
      const run = await deliverEvents(events, { DB: counting.db });
      expect(run.acked).toBe(n);
      expect(counting.count()).toBe(3);
      const states = await env.DB.prepare("SELECT inbox_state AS s, count(*) AS n FROM vulns WHERE organization_id = ? GROUP BY 1")
        .bind(o.id)
        .all();
      expect(states.results).toEqual([{ s: "stored", n }]);
      expect(await row("SELECT count(*) AS n FROM events WHERE organization_id = ? AND processed_at IS NULL", o.id)).toEqual({ n: 0 });
      expect(
        await row("SELECT count(*) AS n FROM vuln_records WHERE vuln_id IN (SELECT value FROM json_each(?))", JSON.stringify(vulns)),
      ).toEqual({ n });
    }
  });

  it("delivers every subscribed event of the intake once, even when the batch comes twice", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created", "Vuln::Inbox::Received", "Vuln::Inbox::Stored"]);
    const { events } = await createVulns(o, briefId, 5);
    const r = receiver();
    restore = r.restore;
    await deliverEvents(events);
    await deliverEvents(events);
    const types = r.sent.map((s) => s.headers["x-webhook-event"]).sort();
    expect(types).toEqual([
      ...Array(5).fill("Vuln::Created"),
      ...Array(5).fill("Vuln::Inbox::Received"),
      ...Array(5).fill("Vuln::Inbox::Stored"),
    ]);
    expect(new Set(r.sent.map((s) => s.headers["webhook-id"])).size).toBe(15);
    expect(
      await row(
        "SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = ? AND status = 'succeeded' AND lease_until IS NULL",
        o.id,
      ),
    ).toEqual({ n: 15 });
  });

  it("marks Vuln::Created processed only with the intake's last step, so a failure there is redone, not lost", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created"]);
    const { events, vulns } = await createVulns(o, briefId, 3);
    const r = receiver();
    restore = r.restore;
    const logs = expectedErrorLogs();
    // Keeping the record fails inside D1, together and then one by one: the messages are retried.
    const broken = rewritingSql((sql) => sql.replace('insert into "vuln_records"', 'insert into "vuln_records_missing"'));
    const failed = await deliverEvents(events, { DB: broken });
    expect(failed.retried).toBe(3);
    expect(logs.map((l) => l.message)).toEqual([
      "events processed one by one: processing them together failed",
      ...events.map(() => "queue message failed; retrying"),
    ]);
    expect(await row("SELECT count(*) AS n FROM vulns WHERE organization_id = ? AND inbox_state = 'received'", o.id)).toEqual({ n: 3 });
    expect(
      await row(
        "SELECT count(*) AS n FROM events WHERE id IN (SELECT value FROM json_each(?)) AND processed_at IS NULL",
        JSON.stringify(events),
      ),
    ).toEqual({ n: 3 });
    // The retry finishes the intake and sends nothing twice.
    const retried = await deliverEvents(events);
    expect(retried.acked).toBe(3);
    expect(
      await row(
        "SELECT count(*) AS n FROM vulns WHERE id IN (SELECT value FROM json_each(?)) AND inbox_state = 'stored'",
        JSON.stringify(vulns),
      ),
    ).toEqual({ n: 3 });
    expect(await row("SELECT count(*) AS n FROM events WHERE organization_id = ? AND processed_at IS NULL", o.id)).toEqual({ n: 0 });
    expect(await row("SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = ?", o.id)).toEqual({ n: 3 });
    expect(new Set(r.sent.map((s) => s.headers["webhook-id"]))).toEqual(new Set(events));
  });

  it("falls back to one by one when the batch fails, so only the message at fault is retried", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created"]);
    const { events, vulns } = await createVulns(o, briefId, 4);
    // The database refuses to move one of the vulns along, whoever asks: the batch fails as a whole.
    await env.DB.prepare(
      `CREATE TRIGGER poisoned BEFORE UPDATE OF inbox_state ON vulns WHEN NEW.id = '${vulns[2]}' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
    ).run();
    const r = receiver();
    restore = r.restore;
    const logs = expectedErrorLogs();
    const run = await deliverEvents(events).finally(() => env.DB.prepare("DROP TRIGGER poisoned").run());
    expect(run.acked).toBe(3);
    expect(logs).toEqual([
      expect.objectContaining({
        message: "events processed one by one: processing them together failed",
        error: expect.stringContaining("poisoned"),
      }),
      expect.objectContaining({ message: "queue message failed; retrying", event_id: events[2] }),
    ]);
    expect(run.retried).toBe(1);
    expect(run.retryMessages.map((m) => m.msgId)).toEqual([run.messageIds[2]]);
    expect(r.sent.map((s) => s.headers["webhook-id"]).sort()).toEqual([events[0], events[1], events[3]].sort());
  });
});

describe("a delivery written leased", () => {
  it("is not sent when its lease is nearly over by its turn: it waits for the lease to end instead", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created"]);
    const { events } = await createVulns(o, briefId, 1);
    const leased: LeasedDelivery[] = [];
    const db = primaryDb(env.DB);
    await processEventBatch(db, events, (w) => leased.push(...w.deliveries));
    expect(leased).toHaveLength(1);
    // As if it had waited behind other deliveries for most of its minute.
    const soon = new Date(Date.now() + 5_000).toISOString();
    await env.DB.prepare("UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?").bind(soon, leased[0]!.delivery.id).run();
    const r = receiver();
    restore = r.restore;
    const outcome = await attemptLeased(
      { db, serviceName: "test", allowLoopback: false },
      { ...leased[0]!.delivery, leaseUntil: soon },
      leased[0]!.webhook,
    );
    expect(r.sent).toHaveLength(0);
    expect(outcome.ack).toBe(false);
    expect((outcome as { delaySeconds: number }).delaySeconds).toBeGreaterThanOrEqual(5);
  });
});

describe("recording attempts together", () => {
  it("groups the records that wait for a batch into the next one, and records the others when one fails", async () => {
    const { o } = await subscribed([]);
    const counting = countingD1(env.DB);
    const db = primaryDb(counting.db);
    const record = groupCommit(db);
    const rename = (name: string) => [db.update(organizations).set({ name }).where(eq(organizations.id, o.id))];
    // An attempt of a delivery that does not exist: the database refuses it (foreign key).
    const orphan = [
      db
        .insert(webhookAttempts)
        .values({ id: uuidv7(), deliveryId: uuidv7(), attemptedAt: new Date().toISOString(), statusCode: 200, durationMs: 1, error: null }),
    ];

    await Promise.all([record(rename("A")), record(rename("B")), record(rename("C"))]);
    // The first goes at once; the two that came while it ran go together.
    expect(counting.count()).toBe(2);

    const results = await Promise.allSettled([record(rename("D")), record(rename("E")), record(orphan), record(rename("F"))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    // D alone; E, the orphan and F together, which fails; then each of those alone.
    expect(counting.count()).toBe(2 + 1 + 1 + 3);
    expect(await row("SELECT name FROM organizations WHERE id = ?", o.id)).toEqual({ name: "F" });
  });
});

describe("the receiver's answer", () => {
  function body(size: number) {
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= size) return controller.close();
        pulled += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    return { stream, pulled: () => pulled, cancelled: () => cancelled };
  }

  it("is read to its end when short, leaving the connection for the next delivery, and cancelled past 64 KiB", async () => {
    const short = body(32 * 1024);
    await drain(short.stream);
    expect(short.pulled()).toBe(32 * 1024);
    expect(short.cancelled()).toBe(false);
    const long = body(10 * 1024 * 1024);
    await drain(long.stream);
    expect(long.cancelled()).toBe(true);
    expect(long.pulled()).toBeLessThan(128 * 1024);
  });
});
