import { env, withEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, primaryDb } from "../../src/db";
import { countingD1 } from "../helpers/d1-counter";
import { GATHER_MS } from "../../src/notifications/outbox";
import { attemptNotification, sweepNotifications } from "../../src/notifications/send";
import { PLATFORM_CALLER } from "../../src/services/context";
import { sweepDeadlineAlerts } from "../../src/services/deadline-alerts";
import { api, browse, patch } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import { expectedErrorLogs } from "../helpers/logs";
import type { TestOrganization } from "../helpers/factories";
import {
  DESCRIPTION,
  emailProgram,
  emailReport,
  mailbox,
  mailOf,
  outbox,
  runMail,
  runQueueWithoutMail,
  type SentMail,
  unprocessedOf,
} from "../helpers/mail";
import { asReporter, nextIp } from "../helpers/reporter";

// Who is e-mailed what, read from the messages handed to the Email Service binding (the local
// simulation, which keeps them): each trigger sends exactly the e-mails it should and no others, and
// none carries a report's description, a comment's text or the reporter's token, but the receipt's link.

const H = 3_600_000;
const T0 = Date.parse("2026-08-03T09:00:00.000Z");
const { at } = testClock(T0);

const REPORTER = "finder@researcher.example";

type Program = Awaited<ReturnType<typeof program>>;
const program = emailProgram;
/** A report by REPORTER: one address for the file, so the tests also see the hourly limits hold across reports. */
const report = (p: Program, attributes: Record<string, unknown> = { contact_email: REPORTER }) => emailReport(p, attributes);

/** Nothing private in an e-mail: the description, a comment's text, the token (unless allowed). */
function expectNothingPrivate(mail: SentMail, secrets: string[]) {
  for (const part of [mail.subject, mail.text, mail.html, JSON.stringify(mail.headers ?? {})])
    for (const secret of secrets) expect(part ?? "").not.toContain(secret);
}

const comment = (org: TestOrganization, vulnId: string, body: string, visibility: "reporter" | "internal") =>
  api("POST", `/v1/vulns/${vulnId}/comments`, { key: org.key, body: { data: { type: "comment", attributes: { body, visibility } } } });

describe("e-mail on a new report", () => {
  it("tells the confirmed responders once it is stored, and sends the reporter a receipt with the page's link", async () => {
    const p = await program();
    const r = await report(p);
    // The receipt waits with the report, held until the report is stored.
    expect((await outbox({ vulnId: r.id })).map((n) => [n.kind, n.status, typeof n.sealed_link])).toEqual([["receipt", "held", "string"]]);
    expect(String((await outbox({ vulnId: r.id }))[0]!.sealed_link)).not.toContain(r.token);

    const sent = await mailOf(r.id);
    expect(sent.map((m) => m.to).sort()).toEqual([REPORTER, p.responder].sort());
    const toResponder = sent.find((m) => m.to === p.responder)!;
    expect(toResponder.subject).toBe(`New report ${r.shortcode}: Stored XSS in the profile name`);
    expect(toResponder.text).toContain(`${env.PUBLIC_ORIGIN}/v1/vulns/${r.id}`);
    expect(toResponder.text).toContain('through the brief "Acme web"');
    expectNothingPrivate(toResponder, [DESCRIPTION, r.token]);
    expect(toResponder.replyTo).toBeUndefined();

    const receipt = sent.find((m) => m.to === REPORTER)!;
    expect(receipt.subject).toBe(`Your report to Acme Security was received: ${r.shortcode}`);
    expect(receipt.text).toContain(`${env.PUBLIC_ORIGIN}/r/${r.token}`);
    expect(receipt.html).toContain(`href="${env.PUBLIC_ORIGIN}/r/${r.token}"`);
    expect(receipt.text).toContain(`acknowledge it by ${new Date(T0 + 10 * H).toISOString().slice(0, 10)}`);
    expectNothingPrivate(receipt, [DESCRIPTION]);
    const unsubscribe = new RegExp(`^<${env.PUBLIC_ORIGIN}/u/${r.id}\\.[a-z2-7]{24}>$`);
    expect(receipt.headers).toEqual({
      "List-Unsubscribe": expect.stringMatching(unsubscribe),
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
    expect(receipt.replyTo).toMatch(new RegExp(`^r\\+${r.shortcode.toLowerCase()}\\.[a-z2-7]{24}@${env.INBOUND_EMAIL_DOMAIN}$`));
    // Once sent, the outbox forgets the link; the log has both, sent.
    expect((await outbox({ vulnId: r.id })).map((n) => [n.kind, n.to, n.status, n.sealed_link])).toEqual(
      expect.arrayContaining([
        ["receipt", REPORTER, "sent", null],
        ["report_received", p.responder, "sent", null],
      ]),
    );
    // A redelivered message sends nothing twice.
    const created = (await env.DB.prepare("SELECT id FROM events WHERE vuln_id = ? AND type = 'Vuln::Created'")
      .bind(r.id)
      .first<{ id: string }>())!;
    const again = mailbox();
    await runMail(again, [created.id, created.id]);
    expect(again.sent).toEqual([]);
  });

  it("say a title in one line: no line break of a report's title reaches a header or starts a paragraph", async () => {
    const p = await program({ responder: true });
    // The API refuses such a title now (test/routes/single-line.test.ts); a row from before the rule may hold one.
    const r = await report(p, { title: "Redirect", contact_email: REPORTER });
    await env.DB.prepare("UPDATE vulns SET title = ? WHERE id = ?").bind("Redirect\r\nBcc: mallory@evil.example\u2028and more", r.id).run();
    const sent = await mailOf(r.id);
    const flat = "Redirect Bcc: mallory@evil.example and more";
    expect(sent.map((m) => m.subject).sort()).toEqual([
      `New report ${r.shortcode}: ${flat}`,
      `Your report to Acme Security was received: ${r.shortcode}`,
    ]);
    for (const m of sent) {
      expect(m.text).not.toMatch(/^Bcc|\u2028/m);
      expect(m.html).not.toMatch(/\u2028/);
    }
    expect(sent.find((m) => m.to === p.responder)!.text).toContain(`"${flat}" (${r.shortcode})`);
    expect(
      sent
        .flatMap((m) => [m.to, m.cc, m.bcc])
        .filter(Boolean)
        .sort(),
    ).toEqual([REPORTER, p.responder].sort());
  });

  it("keep in the log the subject the e-mail had, however its title is spelled (the change writes one, the sender the other)", async () => {
    const p = await program({ responder: true });
    const titles = [
      "Redirect\r\nBcc: mallory@evil.example\u2028and more",
      "Tabs\t\tand\u00a0no-break\u3000spaces \u0007 and a bell",
      // 180 characters, 300 UTF-16 units: the subject is cut at 200 characters, never inside one.
      `${"\u{1F600}".repeat(120)}${"a".repeat(60)}`,
    ];
    for (const title of titles) {
      // The API refuses a title that is not one line; a row from before that rule may hold one.
      const r = await report(p, { title: "Placeholder", contact_email: REPORTER, notify_me: false });
      await env.DB.prepare("UPDATE vulns SET title = ? WHERE id = ?").bind(title, r.id).run();
      const [mail] = await mailOf(r.id);
      const [logged] = await outbox({ vulnId: r.id });
      const row = await env.DB.prepare("SELECT subject FROM notifications WHERE id = ?").bind(logged!.id).first<{ subject: string }>();
      expect([title, row!.subject]).toEqual([title, mail!.subject]);
    }
    const long = await report(p, { title: titles[2], notify_me: false });
    expect((await mailOf(long.id))[0]!.subject).toBe(`New report ${long.shortcode}: ${"\u{1F600}".repeat(120)}${"a".repeat(52)}…`);
  });

  it("escape the title in the HTML part: a parser finds text, never an element of the reporter's", async () => {
    const p = await program({ responder: true });
    const title = `<img src=x onerror="alert(1)"> & <a href='https://evil.example'>x</a>`;
    const r = await report(p, { title, contact_email: REPORTER });
    for (const mail of await mailOf(r.id)) {
      // HTMLRewriter (workerd's own parser, not this project's code) lists the elements and the text.
      const elements: string[] = [];
      let text = "";
      await new HTMLRewriter()
        .on("*", { element: (e) => void elements.push(e.tagName) })
        .on("p", { text: (t) => void (text += t.text) })
        .transform(new Response(mail.html))
        .text();
      expect(elements).not.toContain("img");
      // The receipt's two links (the report page, unsubscribe); a contact's e-mail says where the report is in words.
      expect(elements.filter((e) => e === "a")).toHaveLength(mail.to === REPORTER ? 2 : 0);
      const decoded = text
        .replaceAll("&lt;", "<")
        .replaceAll("&gt;", ">")
        .replaceAll("&quot;", '"')
        .replaceAll("&#39;", "'")
        .replaceAll("&amp;", "&");
      expect(decoded).toContain(title);
      expect(mail.text).toContain(title);
    }
  });

  it("go to the escalation contacts when no responder is confirmed, and to nobody unconfirmed", async () => {
    const p = await program({ escalation: true });
    await api("POST", "/v1/contacts", {
      key: p.org.key,
      body: { data: { type: "contact", attributes: { name: "New", email: "new@acme.example", role: "responder" } } },
    });
    const r = await report(p, { contact_email: REPORTER, notify_me: false });
    const sent = await mailOf(r.id);
    // The unconfirmed responder's own confirmation went out with them; no report e-mail reached it.
    expect(sent.map((m) => [m.to, m.subject.split(" ")[0]]).sort()).toEqual([
      [p.escalation, "New"],
      ["new@acme.example", "Confirm"],
    ]);
  });

  it("respect notify_me: false sends the reporter nothing, true needs an address", async () => {
    const p = await program({ responder: true });
    const quiet = await report(p, { contact_email: REPORTER, notify_me: false });
    expect((await mailOf(quiet.id)).map((m) => m.to)).toEqual([p.responder]);
    const anonymous = await report(p, {});
    expect((await mailOf(anonymous.id)).map((m) => m.to)).toEqual([p.responder]);
    const refused = await api("POST", `/v1/p/briefs/${p.shortcode}/vulns`, {
      body: { data: { type: "vuln", attributes: { title: "T", description: "D", notify_me: true } } },
      contentType: "application/json",
      headers: { "CF-Connecting-IP": nextIp() },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({
      source: { pointer: "/data/attributes/notify_me" },
      detail: "data.attributes.notify_me: needs a contact_email to e-mail",
    });
  });
});

describe("e-mail as the report moves", () => {
  it("tells the responders of a reporter comment, and the reporter of an answer and a triage move, never the texts", async () => {
    const p = await program();
    const r = await report(p);
    await mailOf(r.id);

    const question = "It also works on /settings, with the session cookie of an admin.";
    expect(
      (await asReporter("POST", "/v1/p/report/comments", r.token, { body: { data: { type: "comment", attributes: { body: question } } } }))
        .status,
    ).toBe(201);
    let sent = await mailOf(r.id);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([[p.responder, `The reporter commented on ${r.shortcode}`]]);
    expectNothingPrivate(sent[0]!, [question, DESCRIPTION, r.token]);

    const answer = "Confirmed: our fix ships on Friday.";
    expect((await comment(p.org, r.id, answer, "reporter")).status).toBe(201);
    expect((await comment(p.org, r.id, "Internal: assign to Bo.", "internal")).status).toBe(201);
    sent = await mailOf(r.id);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([[REPORTER, `Acme Security wrote about your report ${r.shortcode}`]]);
    expectNothingPrivate(sent[0]!, [answer, "Internal", DESCRIPTION, r.token]);
    expect(sent[0]!.headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");

    expect(
      (await patch(`/v1/vulns/${r.id}`, p.org.key, { data: { type: "vuln", id: r.id, attributes: { triage_state: "triaged" } } })).status,
    ).toBe(200);
    sent = await mailOf(r.id);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      [REPORTER, `Your report ${r.shortcode}: Confirmed by the organization, being worked on`],
    ]);
    expectNothingPrivate(sent[0]!, [DESCRIPTION, r.token]);
  });

  it("tells the responders a deadline approaches and the escalation contacts it was missed, each once", async () => {
    const p = await program();
    const r = await report(p, { contact_email: REPORTER, notify_me: false });
    await mailOf(r.id);
    // (The cron sweeps every report of the file: this report's contacts are this program's alone.)
    const sweep = async (ms: number) => {
      at(ms);
      const produced = fakeQueue();
      await sweepDeadlineAlerts({ db: primaryDb(env.DB), caller: PLATFORM_CALLER, queue: produced.queue, defer: () => {} }, new Date(ms));
      return (await mailOf(r.id)).filter((m) => m.to === p.responder || m.to === p.escalation);
    };
    let sent = await sweep(T0 + 8 * H + 60_000);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      [p.responder, `Due soon on ${r.shortcode}: acknowledge the report by ${new Date(T0 + 10 * H).toISOString().slice(0, 10)} 19:00 UTC`],
    ]);
    sent = await sweep(T0 + 10 * H + 60_000);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      [
        p.escalation,
        `Missed on ${r.shortcode}: acknowledge the report was due ${new Date(T0 + 10 * H).toISOString().slice(0, 10)} 19:00 UTC`,
      ],
    ]);
    expectNothingPrivate(sent[0]!, [DESCRIPTION, r.token]);
    expect(await sweep(T0 + 10 * H + 120_000)).toEqual([]);
  });
});

describe("the reporter's unsubscribe link", () => {
  it("shows a button, stops further e-mails about that report (one click from the mail provider too), and nothing else", async () => {
    const p = await program({ responder: true });
    const r = await report(p);
    const receipt = (await mailOf(r.id)).find((m) => m.to === REPORTER)!;
    const link = new URL(receipt.headers!["List-Unsubscribe"]!.slice(1, -1)).pathname;
    const shown = await browse("GET", link);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`<form method="post" action="${link}">`);
    // Fetching it stops nothing.
    await comment(p.org, r.id, "Thanks!", "reporter");
    expect((await mailOf(r.id)).map((m) => m.to)).toEqual([REPORTER]);
    // A forged link is not one.
    expect(
      (
        await browse(
          "POST",
          link.replace(/.$/, (c) => (c === "a" ? "b" : "a")),
          { body: "List-Unsubscribe=One-Click" },
        )
      ).status,
    ).toBe(404);

    // An answer whose e-mail is written but not yet sent when the reporter unsubscribes is not sent.
    await comment(p.org, r.id, "One more question.", "reporter");
    await runQueueWithoutMail(await unprocessedOf(r.id));
    expect((await outbox({ vulnId: r.id })).filter((n) => n.status === "pending").map((n) => n.kind)).toEqual(["organization_commented"]);
    // The mail provider's one-click POST, from its own site.
    const clicked = await browse("POST", link, {
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
    });
    expect(clicked.status).toBe(200);
    expect(clicked.text).toContain("You will get no more e-mail about report");
    expect(
      (await outbox({ vulnId: r.id })).filter((n) => n.kind === "organization_commented").map((n) => [n.status, n.last_error]),
    ).toEqual([
      ["sent", null],
      ["cancelled", "the reporter asked for no more e-mail"],
    ]);
    await comment(p.org, r.id, "Fixed.", "reporter");
    await patch(`/v1/vulns/${r.id}`, p.org.key, { data: { type: "vuln", id: r.id, attributes: { triage_state: "resolved" } } });
    expect(await mailOf(r.id)).toEqual([]);
    // The organization still hears the reporter.
    await asReporter("POST", "/v1/p/report/comments", r.token, { body: { data: { type: "comment", attributes: { body: "Thanks" } } } });
    expect((await mailOf(r.id)).map((m) => m.to)).toEqual([p.responder]);
  });
});

describe("sending", () => {
  it("retries a failed send on the webhooks' schedule and records each attempt; never sends twice", async () => {
    const p = await program({ responder: true });
    const r = await report(p, { contact_email: REPORTER, notify_me: false });
    const failing = mailbox({ failures: 1 });
    const logs = expectedErrorLogs();
    const runs = await runMail(failing, await unprocessedOf(r.id));
    expect(logs.map((l) => [l.level, l.message, l.error])).toEqual([
      ["warn", "e-mail not sent", "Error: Email Service unavailable (simulated outage)"],
    ]);
    expect(failing.sent).toEqual([]);
    const [row] = await outbox({ vulnId: r.id });
    expect(row).toMatchObject({
      kind: "report_received",
      status: "pending",
      attempt_count: 1,
      last_error: "Email Service unavailable (simulated outage)",
    });
    // The queue message is retried after the first step (5 s, with jitter).
    const delay = runs.at(-1)!.delays[0]!;
    expect(delay).toBeGreaterThanOrEqual(4);
    expect(delay).toBeLessThanOrEqual(6);

    const ctx = { db: primaryDb(env.DB), email: failing.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    // Too early: nothing is sent, and the message comes back when it is due.
    expect(await attemptNotification(ctx, String(row!.id), Date.now())).toEqual({ ack: false, delaySeconds: delay + 1 });
    expect(failing.sent).toEqual([]);
    expect(await attemptNotification(ctx, String(row!.id), Date.now() + 10_000)).toEqual({ ack: true });
    expect(failing.sent.map((m) => m.to)).toEqual([p.responder]);
    expect(await attemptNotification(ctx, String(row!.id), Date.now() + 20_000)).toEqual({ ack: true });
    expect(failing.sent).toHaveLength(1);
    const log = await api("GET", "/v1/notifications?q[status_eq]=sent", { key: p.org.key });
    expect(log.body.data.find((n: any) => n.relationships.vuln.data?.id === r.id).attributes).toMatchObject({
      status: "sent",
      attempt_count: 2,
      last_error: null,
    });
  });

  it("makes e-mails wait past 20 an hour to one address, says so in the log, and sends them when the hour frees", async () => {
    const p = await program({ responder: true });
    const box = mailbox();
    // The responder's confirmation is the hour's first e-mail to that address; 19 reports fill the hour.
    const reports = [];
    for (let i = 0; i < 20; i++) reports.push(await report(p, { contact_email: REPORTER, notify_me: false }));
    for (const r of reports) await runMail(box, await unprocessedOf(r.id));
    expect(box.to(p.responder)).toHaveLength(19);
    const waiting = await api("GET", "/v1/notifications?q[status_eq]=delayed", { key: p.org.key });
    expect(waiting.body.data.map((n: any) => [n.attributes.to, n.attributes.last_error])).toEqual([
      [p.responder, "waiting: the recipient's limit of 20 e-mails an hour is reached"],
    ]);
    const id = waiting.body.data[0].id;
    const ctx = { db: primaryDb(env.DB), email: box.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    // Not before the hour of the first e-mail ends (the queue message comes back then).
    const early = await attemptNotification(ctx, id, T0 + H - 60_000);
    expect(early).toEqual({ ack: false, delaySeconds: 62 });
    expect(box.to(p.responder)).toHaveLength(19);
    expect(await attemptNotification(ctx, id, T0 + H + 5_000)).toEqual({ ack: true });
    expect(box.to(p.responder)).toHaveLength(20);
    expect((await api("GET", "/v1/notifications?q[status_eq]=delayed", { key: p.org.key })).body.data).toEqual([]);
  });
  it("sends no receipt whose sealed link does not open (EMAIL_LINK_KEY lost its key): it waits, logged, nothing recorded", async () => {
    const p = await program({ responder: true });
    const r = await report(p);
    await runQueueWithoutMail(await unprocessedOf(r.id));
    const receipt = (await outbox({ vulnId: r.id })).find((n) => n.kind === "receipt")!;
    expect(receipt).toMatchObject({ status: "pending", attempt_count: 0 });
    const box = mailbox();
    const ctx = { db: primaryDb(env.DB), email: box.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    const other = "k2:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    await withEnv({ ...env, EMAIL_LINK_KEY: other }, async () => {
      await expect(attemptNotification(ctx, String(receipt.id))).rejects.toThrow(
        new RegExp(`notification ${receipt.id} cannot be composed: sealed with key "dev"`),
      );
    });
    expect(box.sent).toEqual([]);
    // Not counted as an attempt, the lease given back, the link still sealed: once the key is back, it goes.
    expect((await outbox({ vulnId: r.id })).find((n) => n.kind === "receipt")).toMatchObject({
      status: "pending",
      attempt_count: 0,
      sealed_link: receipt.sealed_link,
    });
    expect(await attemptNotification(ctx, String(receipt.id))).toEqual({ ack: true });
    expect(box.sent.map((m) => m.to)).toEqual([REPORTER]);
    expect(box.sent[0]!.text).toContain(`/r/${r.token}`);
  });

  it("costs two D1 round trips an e-mail: the lease with every read it needs, then the outcome", async () => {
    const p = await program({ responder: true });
    const r = await report(p, { contact_email: REPORTER, notify_me: false });
    await runQueueWithoutMail(await unprocessedOf(r.id));
    const [row] = await outbox({ vulnId: r.id });
    const counter = countingD1(env.DB);
    const box = mailbox();
    const ctx = { db: createDb(counter.db), email: box.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    // Once it has waited for others to go with it.
    expect(await attemptNotification(ctx, String(row!.id), Date.now() + GATHER_MS)).toEqual({ ack: true });
    expect(box.sent).toHaveLength(1);
    expect(counter.count()).toBe(2);
  });

  it("makes e-mails wait past 500 an hour for one organization", async () => {
    const p = await program({ responder: true });
    // The hour's history: 499 more sent (with the confirmation, 500), written as the log keeps them.
    const sentAt = new Date(T0 - 30 * 60_000).toISOString();
    await env.DB.batch(
      Array.from({ length: 499 }, (_, i) =>
        env.DB.prepare(
          `INSERT INTO notifications (id, organization_id, kind, recipient, "to", subject, params, status, attempt_count, sent_at, created_at, updated_at)
           VALUES (?, ?, 'report_received', 'contact', ?, 's', '{}', 'sent', 1, ?, ?, ?)`,
        ).bind(crypto.randomUUID(), p.org.id, `past-${i}@acme.example`, sentAt, sentAt, sentAt),
      ),
    );
    const r = await report(p, { contact_email: REPORTER, notify_me: false });
    const box = mailbox();
    await runMail(box, await unprocessedOf(r.id));
    expect(box.sent).toEqual([]);
    const [row] = await outbox({ vulnId: r.id });
    expect(row).toMatchObject({ status: "delayed", last_error: "waiting: the organization's limit of 500 e-mails an hour is reached" });
    const ctx = { db: primaryDb(env.DB), email: box.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    // The place frees an hour after the oldest of the hour's e-mails: the confirmation, sent at T0.
    expect(await attemptNotification(ctx, String(row!.id), T0 + H + 2_000)).toEqual({ ack: true });
    expect(box.sent.map((m) => m.to)).toEqual([p.responder]);
  });

  it("are handed to the queue again by the cron when their message was lost, and sent once", async () => {
    const p = await program({ responder: true });
    const r = await report(p, { contact_email: REPORTER, notify_me: false });
    // The event is processed, but its e-mail's message never reaches the queue.
    await runQueueWithoutMail(await unprocessedOf(r.id));
    const [row] = await outbox({ vulnId: r.id });
    expect(row).toMatchObject({ status: "pending" });
    // Due once it has waited for others to go with it; lost a minute after that.
    const due = Date.now() + GATHER_MS;
    const queue = fakeQueue();
    expect(await sweepNotifications(primaryDb(env.DB), queue.queue, due + 30_000)).toBe(0);
    expect(await sweepNotifications(primaryDb(env.DB), queue.queue, due + 61_000)).toBe(1);
    expect(queue.sent).toEqual([{ notification_id: row!.id }]);
    // Taken: the next run leaves it to its message.
    expect(await sweepNotifications(primaryDb(env.DB), queue.queue, due + 62_000)).toBe(0);
    // Its message, and a late duplicate of the lost one: one e-mail.
    const box = mailbox();
    const ctx = { db: primaryDb(env.DB), email: box.email, from: env.EMAIL_FROM, publicOrigin: env.PUBLIC_ORIGIN };
    expect(await attemptNotification(ctx, String(row!.id), due + 63_000)).toEqual({ ack: true });
    expect(await attemptNotification(ctx, String(row!.id), due + 64_000)).toEqual({ ack: true });
    expect(box.sent.map((m) => m.to)).toEqual([p.responder]);
  });
});
