import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { primaryDb } from "../../src/db";
import { attemptNotification } from "../../src/notifications/send";
import { api } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { emailProgram, emailReport, mailbox, outbox, runQueueWithoutMail, unprocessedOf } from "../helpers/mail";
import { runQueue } from "../helpers/queue";

// The hourly limits (20 e-mails an hour to one address, 500 per organization) under concurrency: many
// attempts at once each take a place in one conditional write, so none sees room another took; those
// past a limit wait (delayed, never dropped) and the log says why.

const H = 3_600_000;
const T0 = Date.parse("2026-08-03T09:00:00.000Z");
const { at } = testClock(T0);

/** The organization's e-mails of one status, as its log lists them. */
async function logged(key: string, status: string) {
  const res = await api("GET", `/v1/notifications?q[status_eq]=${status}&page[size]=100`, { key });
  expect(res.status).toBe(200);
  return res.body.data.map((n: any) => n.attributes) as Record<string, any>[];
}

describe("the hourly limits, with many e-mails attempted at once", () => {
  it("send one reporter 20 e-mails in the hour, however many messages the consumer takes together; the rest wait", async () => {
    const p = await emailProgram({});
    // 23 reports of one reporter, stored, their receipts' messages lost.
    const reports = [];
    for (let i = 0; i < 23; i++) reports.push(await emailReport(p, { contact_email: p.reporter, title: `Report ${i}` }));
    await runQueueWithoutMail((await Promise.all(reports.map((r) => unprocessedOf(r.id)))).flat());
    const receipts = (await Promise.all(reports.map((r) => outbox({ vulnId: r.id })))).flat().filter((n) => n.kind === "receipt");
    expect(receipts.map((n) => n.status)).toEqual(Array(23).fill("pending"));

    // Their messages, handed to the consumer in one batch (it attempts several at once).
    at(T0 + 60_000);
    const box = mailbox();
    const run = await runQueue(
      receipts.map((n) => ({ notification_id: n.id })),
      { env: { EMAIL: box.email } },
    );
    expect(box.to(p.reporter)).toHaveLength(20);
    expect([run.acked, run.retried]).toEqual([20, 3]);
    const waiting = (await logged(p.org.key, "delayed")).filter((n) => n.to === p.reporter);
    expect(waiting.map((n) => [n.kind, n.last_error])).toEqual(
      Array(3).fill(["receipt", "waiting: the recipient's limit of 20 e-mails an hour is reached"]),
    );
    // A place frees an hour after the hour's first e-mail: then they go, each once.
    expect(waiting.map((n) => n.next_attempt_at)).toEqual(Array(3).fill(new Date(T0 + 60_000 + H + 1000).toISOString()));
    at(T0 + 60_000 + H + 2_000);
    const later = await runQueue(
      receipts.map((n) => ({ notification_id: n.id })),
      { env: { EMAIL: box.email } },
    );
    expect(later.acked).toBe(23);
    expect(box.to(p.reporter)).toHaveLength(23);
    expect(new Set(box.sent.map((m) => m.subject)).size).toBe(23);
  });

  it("send an organization 500 e-mails in the hour when its attempts run at once; the rest wait", async () => {
    const p = await emailProgram({ responder: true, escalation: true });
    // The hour's history: 490 sent 30 minutes ago, written as the log keeps them; with the two
    // contacts' confirmations, 492.
    const sentAt = new Date(T0 - 30 * 60_000).toISOString();
    await env.DB.batch(
      Array.from({ length: 490 }, (_, i) =>
        env.DB.prepare(
          `INSERT INTO notifications (id, organization_id, kind, recipient, "to", subject, params, status, attempt_count, sent_at, created_at, updated_at)
           VALUES (?, ?, 'report_received', 'contact', ?, 's', '{}', 'sent', 1, ?, ?, ?)`,
        ).bind(crypto.randomUUID(), p.org.id, `past-${i}@acme.example`, sentAt, sentAt, sentAt),
      ),
    );
    // Twelve reports, each told to one contact (the responder), and deadline-free: twelve e-mails for eight places.
    const reports = [];
    for (let i = 0; i < 12; i++) reports.push(await emailReport(p, { contact_email: `r${i}@researcher.example`, notify_me: false }));
    await runQueueWithoutMail((await Promise.all(reports.map((r) => unprocessedOf(r.id)))).flat());
    const told = (await Promise.all(reports.map((r) => outbox({ vulnId: r.id })))).flat();
    expect(told.map((n) => [n.kind, n.to])).toEqual(Array(12).fill(["report_received", p.responder]));

    const box = mailbox();
    const ctx = { db: primaryDb(env.DB), email: box.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    const now = T0 + 5 * 60_000;
    at(now);
    const outcomes = await Promise.all(told.map((n) => attemptNotification(ctx, String(n.id), now)));
    expect(box.sent).toHaveLength(8);
    expect(outcomes.filter((o) => o.ack)).toHaveLength(8);
    const waiting = await logged(p.org.key, "delayed");
    expect(waiting.map((n) => n.last_error)).toEqual(Array(4).fill("waiting: the organization's limit of 500 e-mails an hour is reached"));
    // The first place frees when the history's e-mails are an hour old.
    expect(waiting.map((n) => n.next_attempt_at)).toEqual(Array(4).fill(new Date(T0 + 30 * 60_000 + 1000).toISOString()));
  });
});
