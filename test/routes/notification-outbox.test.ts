import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { primaryDb } from "../../src/db";
import { PLATFORM_CALLER } from "../../src/services/context";
import { sweepDeadlineAlerts } from "../../src/services/deadline-alerts";
import { closeUnansweredInfoRequests } from "../../src/services/vulns/info-requests";
import { api, patch, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import { emailProgram, emailReport, mailbox, mailOf, outbox, runMail, unprocessedOf } from "../helpers/mail";
import { asReporter } from "../helpers/reporter";

// Every e-mail is written to the outbox in the same D1 batch as the change that causes it (the
// request's, the cron's or the intake's), then sent from the queue: the rows are there the moment the
// change has committed, before any event is processed, and a change that commits nothing writes none.

const H = 3_600_000;
const T0 = Date.parse("2026-08-03T09:00:00.000Z");
const { at } = testClock(T0);

/** The report's e-mails (not the receipt) as [kind, to, status]. */
const written = async (vulnId: string) =>
  (await outbox({ vulnId })).filter((n) => n.kind !== "receipt").map((n) => [n.kind, n.to, n.status]);

const platform = (queue = fakeQueue().queue) => ({ db: primaryDb(env.DB), caller: PLATFORM_CALLER, queue, defer: () => {} });

describe("e-mails written with their change", () => {
  it("a reporter's comment writes the responders' e-mail in its own batch, and hands it to the queue", async () => {
    const p = await emailProgram();
    const r = await emailReport(p);
    await mailOf(r.id);
    const queue = fakeQueue();
    const res = await asReporter("POST", "/v1/p/report/comments", r.token, {
      body: { data: { type: "comment", attributes: { body: "More steps." } } },
      env: { EVENTS: queue.queue },
    });
    expect(res.status).toBe(201);
    // Nothing processed the comment's event yet.
    expect(await unprocessedOf(r.id)).toHaveLength(1);
    expect(await written(r.id)).toEqual([
      ["report_received", p.responder, "sent"],
      ["reporter_commented", p.responder, "pending"],
    ]);
    const [row] = (await outbox({ vulnId: r.id })).filter((n) => n.kind === "reporter_commented");
    expect(queue.sent).toContainEqual({ notification_id: row!.id });
    // Processing the event adds nothing.
    const box = mailbox();
    await runMail(box, await unprocessedOf(r.id));
    expect(box.sent.map((m) => m.to)).toEqual([p.responder]);
    expect(await written(r.id)).toEqual([
      ["report_received", p.responder, "sent"],
      ["reporter_commented", p.responder, "sent"],
    ]);
  });

  it("an organization's answer and a triage move write the reporter's e-mails in their batches", async () => {
    const p = await emailProgram();
    const r = await emailReport(p);
    await mailOf(r.id);
    const answer = await post(`/v1/vulns/${r.id}/comments`, p.org.key, {
      data: { type: "comment", attributes: { body: "Thanks.", visibility: "reporter" } },
    });
    expect(answer.status).toBe(201);
    expect(
      (await patch(`/v1/vulns/${r.id}`, p.org.key, { data: { type: "vuln", id: r.id, attributes: { triage_state: "triaged" } } })).status,
    ).toBe(200);
    expect((await written(r.id)).slice(1)).toEqual([
      ["organization_commented", p.reporter, "pending"],
      ["triage_changed", p.reporter, "pending"],
    ]);
  });

  it("the cron's deadline alerts write the responders' and the escalation contacts' e-mails in the alert's batch", async () => {
    const p = await emailProgram();
    const r = await emailReport(p, { contact_email: p.reporter, notify_me: false });
    await mailOf(r.id);
    at(T0 + 8 * H + 60_000);
    await sweepDeadlineAlerts(platform(), new Date(T0 + 8 * H + 60_000));
    expect(await written(r.id)).toEqual([
      ["report_received", p.responder, "sent"],
      ["deadline_approaching", p.responder, "pending"],
    ]);
    at(T0 + 10 * H + 60_000);
    await sweepDeadlineAlerts(platform(), new Date(T0 + 10 * H + 60_000));
    expect((await written(r.id)).slice(2)).toEqual([["deadline_breached", p.escalation, "pending"]]);
    // Written by the cron itself: neither alert's event is processed yet.
    expect(await unprocessedOf(r.id)).toHaveLength(2);
  });

  it("the cron's closing of an unanswered question writes the reporter's e-mail in its batch", async () => {
    const p = await emailProgram();
    const r = await emailReport(p);
    await mailOf(r.id);
    await patch(`/v1/vulns/${r.id}`, p.org.key, { data: { type: "vuln", id: r.id, attributes: { triage_state: "needs_more_info" } } });
    await mailOf(r.id);
    const closing = T0 + 31 * 24 * H;
    at(closing);
    expect(await closeUnansweredInfoRequests(platform(), new Date(closing))).toBe(1);
    expect((await written(r.id)).at(-1)).toEqual(["triage_changed", p.reporter, "pending"]);
  });
});

describe("a reporter credited in a published advisory", () => {
  const advisory = (vulnIds: string[], attributes: Record<string, unknown>) => ({
    data: {
      type: "advisory",
      attributes: {
        title: "Open redirect in login",
        summary: "The login page redirects anywhere.",
        affected: [
          { vendor: "Acme", product: "Widget", versions: [{ range: { introduced: "1.0.0", fixed: "1.4.2" }, status: "affected" }] },
        ],
        ...attributes,
      },
      relationships: { vulns: { data: vulnIds.map((id) => ({ type: "vuln", id })) } },
    },
  });
  const consent = (token: string) =>
    asReporter("PATCH", "/v1/p/report", token, {
      body: { data: { type: "report", attributes: { credit_name: "Jane Finder", credit_consent: true } } },
    });

  it("is told once per advisory, in the batch that publishes it, and nobody else is", async () => {
    const p = await emailProgram({});
    const credited = await emailReport(p);
    const quiet = await emailReport(p, { contact_email: "quiet@researcher.example", notify_me: false });
    const uncredited = await emailReport(p, { contact_email: "other@researcher.example" });
    for (const r of [credited, quiet, uncredited]) await mailOf(r.id);
    for (const r of [credited, quiet]) expect((await consent(r.token)).status).toBe(200);
    const ids = [credited.id, quiet.id, uncredited.id];
    const credits = [
      { reporter_of: credited.id, type: "finder" },
      { reporter_of: quiet.id, type: "finder" },
    ];
    const made = await post("/v1/advisories", p.org.key, advisory(ids, { credits, state: "published" }));
    expect(made.status).toBe(201);
    const a = made.body.data;
    const told = async () => (await outbox()).filter((n) => n.kind === "advisory_published").map((n) => [n.to, n.status]);
    expect(await told()).toEqual([[p.reporter, "pending"]]);

    const box = mailbox();
    await runMail(box, []);
    const mail = box.to(p.reporter).at(-1)!;
    expect(mail.subject).toBe(`Acme Security credits you in its advisory: Open redirect in login`);
    expect(mail.text).toContain(`${env.PUBLIC_ORIGIN}/a/${a.id}`);
    expect(mail.text).toContain(credited.shortcode);
    expect(mail.text).toContain("Jane Finder");
    expect(mail.replyTo).toBeDefined();
    const reporters = [p.reporter, "quiet@researcher.example", "other@researcher.example"];
    expect(box.sent.filter((m) => reporters.includes(m.to)).map((m) => m.to)).toEqual([p.reporter]);

    // A revision of the same advisory tells nobody again.
    const revised = await api("PATCH", `/v1/advisories/${a.id}`, {
      key: p.org.key,
      body: { data: { type: "advisory", id: a.id, attributes: { summary: "Revised.", revision_note: "Summary revised" } } },
    });
    expect(revised.body.data.attributes.revision).toBe(2);
    expect(await told()).toEqual([[p.reporter, "sent"]]);
  });
});
