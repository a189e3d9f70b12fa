import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { primaryDb } from "../../src/db";
import { PLATFORM_CALLER } from "../../src/services/context";
import { sweepDeadlineAlerts } from "../../src/services/deadline-alerts";
import { patch, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import {
  emailProgram,
  emailReport,
  type EmailProgram,
  mailbox,
  mailOf,
  outbox,
  runMail,
  runQueueWithoutMail,
  unprocessedOf,
} from "../helpers/mail";
import { runQueue } from "../helpers/queue";
import { asReporter, type SubmittedReport } from "../helpers/reporter";

// What the e-mails say and how they are grouped: notices to one address about one report that come
// within moments of each other go as one e-mail saying everything that changed (each sent once, none
// lost), the receipt goes alone and at once, a question says how to answer it, and contacts are told
// where the report is in the API in words (a person cannot open an API URL).

const H = 3_600_000;
const T0 = Date.parse("2026-08-03T09:00:00.000Z");
const { at } = testClock(T0);

const answer = (p: EmailProgram, r: SubmittedReport, body: string) =>
  post(`/v1/vulns/${r.id}/comments`, p.org.key, { data: { type: "comment", attributes: { body, visibility: "reporter" } } });
const move = (p: EmailProgram, r: SubmittedReport, triage_state: string) =>
  patch(`/v1/vulns/${r.id}`, p.org.key, { data: { type: "vuln", id: r.id, attributes: { triage_state } } });

/** A stored report whose receipt and first notices are sent, at T0 + 5 minutes. */
async function quietReport(p: EmailProgram) {
  const r = await emailReport(p);
  await mailOf(r.id);
  at(T0 + 5 * 60_000);
  return r;
}

const reporterNotices = async (vulnId: string) =>
  (await outbox({ vulnId })).filter((n) => n.recipient === "reporter" && n.kind !== "receipt").map((n) => [n.kind, n.status]);

describe("a question for the reporter", () => {
  it("says that a question was asked, where to read it and how to answer it", async () => {
    const p = await emailProgram();
    const r = await quietReport(p);
    expect((await move(p, r, "needs_more_info")).status).toBe(200);
    const [mail, ...more] = await mailOf(r.id);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe(`Your report ${r.shortcode}: a question for you`);
    expect(mail!.text).toContain(`Acme Security asked you a question about your report "Stored XSS in the profile name" (${r.shortcode})`);
    expect(mail!.text).toContain("Read the question on your report's page");
    expect(mail!.text).toContain("To answer, reply to this e-mail");
    expect(mail!.text).toContain("or answer on your report's page");
    expect(mail!.replyTo).toMatch(/^r\+/);
  });
});

describe("notices that come within moments", () => {
  it("go to the reporter as one e-mail saying everything that changed", async () => {
    const p = await emailProgram();
    const r = await quietReport(p);
    await answer(p, r, "Thanks, looking.");
    at(T0 + 5 * 60_000 + 5_000);
    await move(p, r, "needs_more_info");
    at(T0 + 5 * 60_000 + 20_000);
    await answer(p, r, "Which browser?");
    const box = mailbox();
    await runMail(box, await unprocessedOf(r.id));
    expect(box.sent.map((m) => [m.to, m.subject])).toEqual([[p.reporter, `Your report ${r.shortcode}: 3 updates from Acme Security`]]);
    const text = box.sent[0]!.text!;
    expect(text.split("\n\n").slice(0, 4)).toEqual([
      `3 updates about your report "Stored XSS in the profile name" (${r.shortcode}) to Acme Security, oldest first:`,
      "1. Acme Security wrote to you.",
      "2. Acme Security asked you a question and waits for your answer.",
      "3. Acme Security wrote to you.",
    ]);
    // What to do, said once, the answer last.
    expect(text.match(/To answer, reply to this e-mail/g)).toHaveLength(1);
    expect(text.indexOf("Read the question")).toBeLessThan(text.indexOf("To answer"));
    // Nothing private, and the unsubscribe link once.
    expect(text).not.toContain("Which browser?");
    expect(text.match(/\/u\//g)).toHaveLength(1);
    // Each notice is in the log, sent with that one e-mail.
    const rows = await env.DB.prepare(
      "SELECT status, sent_at, message_id FROM notifications WHERE vuln_id = ? AND recipient = 'reporter' AND kind <> 'receipt'",
    )
      .bind(r.id)
      .all<{ status: string; sent_at: string; message_id: string }>();
    expect(rows.results).toHaveLength(3);
    expect(new Set(rows.results.map((n) => `${n.status} ${n.sent_at} ${n.message_id}`)).size).toBe(1);
    expect(rows.results[0]!.status).toBe("sent");
  });

  it("are sent once when all their messages reach the consumer together", async () => {
    const p = await emailProgram();
    const r = await quietReport(p);
    await answer(p, r, "One.");
    await move(p, r, "triaged");
    await answer(p, r, "Two.");
    await runQueueWithoutMail(await unprocessedOf(r.id));
    const ids = (await outbox({ vulnId: r.id })).filter((n) => n.status === "pending").map((n) => n.id);
    expect(ids).toHaveLength(3);
    at(T0 + 5 * 60_000 + 60_000);
    const box = mailbox();
    const run = await runQueue(
      [...ids, ...ids].map((id) => ({ notification_id: id })),
      { env: { EMAIL: box.email } },
    );
    expect(box.sent).toHaveLength(1);
    expect(box.sent[0]!.subject).toBe(`Your report ${r.shortcode}: 3 updates from Acme Security`);
    // Every message is done with: acknowledged, or back once to find its notice sent.
    const again = await runQueue(
      ids.map((id) => ({ notification_id: id })),
      { env: { EMAIL: box.email } },
    );
    expect(run.acked + run.retried).toBe(6);
    expect(again.acked).toBe(3);
    expect(box.sent).toHaveLength(1);
    expect((await reporterNotices(r.id)).map(([, status]) => status)).toEqual(["sent", "sent", "sent"]);
  });

  it("wait no more than two minutes, however long others keep coming", async () => {
    const p = await emailProgram();
    const r = await quietReport(p);
    const start = T0 + 5 * 60_000;
    for (let i = 0; i < 7; i++) {
      at(start + i * 20_000);
      await answer(p, r, `Note ${i}.`);
    }
    await runQueueWithoutMail(await unprocessedOf(r.id));
    const [first] = (await outbox({ vulnId: r.id })).filter((n) => n.status === "pending");
    // Two minutes after the first, however recent the last: all seven go together.
    at(start + 120_000);
    const box = mailbox();
    await runQueue([{ notification_id: first!.id }], { env: { EMAIL: box.email } });
    expect(box.sent.map((m) => m.subject)).toEqual([`Your report ${r.shortcode}: 7 updates from Acme Security`]);
  });

  it("leave the receipt alone: it goes at once, while a notice written with it waits", async () => {
    const p = await emailProgram();
    const r = await emailReport(p);
    await answer(p, r, "Received, thanks.");
    const box = mailbox();
    await runQueue(await unprocessedOf(r.id), { env: { EMAIL: box.email } });
    await runQueue(
      (await outbox({ vulnId: r.id })).filter((n) => n.status === "pending").map((n) => ({ notification_id: n.id })),
      { env: { EMAIL: box.email } },
    );
    expect(box.sent.map((m) => m.subject)).toEqual([`Your report to Acme Security was received: ${r.shortcode}`]);
    expect(await reporterNotices(r.id)).toEqual([["organization_commented", "pending"]]);
    await runMail(box, []);
    expect(
      box.sent
        .map((m) => m.subject)
        .slice(1)
        .sort(),
    ).toEqual([`Acme Security wrote about your report ${r.shortcode}`, `New report ${r.shortcode}: Stored XSS in the profile name`].sort());
  });

  it("go to a contact as one e-mail too: a new report and the reporter's first comment", async () => {
    const p = await emailProgram();
    const r = await emailReport(p, { contact_email: p.reporter, notify_me: false });
    await runQueueWithoutMail(await unprocessedOf(r.id));
    at(T0 + 10_000);
    await asReporter("POST", "/v1/p/report/comments", r.token, {
      body: { data: { type: "comment", attributes: { body: "Also /admin." } } },
    });
    const box = mailbox();
    await runMail(box, []);
    expect(box.sent.map((m) => [m.to, m.subject])).toEqual([[p.responder, `2 updates on ${r.shortcode}: Stored XSS in the profile name`]]);
    expect(box.sent[0]!.text!.split("\n\n")).toEqual([
      `2 updates about the report "Stored XSS in the profile name" (${r.shortcode}) to Acme Security, oldest first:`,
      '1. The report came in, through the brief "Acme web".',
      "2. The reporter added a comment.",
      `In the API: GET ${env.PUBLIC_ORIGIN}/v1/vulns/${r.id} with your organization's key.`,
      `In the API: GET ${env.PUBLIC_ORIGIN}/v1/vulns/${r.id}/comments with your organization's key.`,
    ]);
  });

  it("to different people, or about different reports, go apart", async () => {
    const p = await emailProgram();
    const [one, two] = [await quietReport(p), await quietReport(p)];
    await answer(p, one, "A.");
    await answer(p, two, "B.");
    await post(`/v1/vulns/${one.id}/comments`, p.org.key, {
      data: { type: "comment", attributes: { body: "Internal.", visibility: "internal" } },
    });
    const box = mailbox();
    await runMail(box);
    expect(box.sent.map((m) => m.subject).sort()).toEqual(
      [`Acme Security wrote about your report ${one.shortcode}`, `Acme Security wrote about your report ${two.shortcode}`].sort(),
    );
  });
});

describe("e-mails to contacts", () => {
  it("name the report and say where it is in the API, in words, without a link a person cannot open", async () => {
    const p = await emailProgram();
    const r = await emailReport(p, { contact_email: p.reporter, notify_me: false });
    const [mail] = await mailOf(r.id);
    expect(mail!.to).toBe(p.responder);
    expect(mail!.text).toContain(`"Stored XSS in the profile name" (${r.shortcode})`);
    expect(mail!.text).toContain(`In the API: GET ${env.PUBLIC_ORIGIN}/v1/vulns/${r.id} with your organization's key.`);
    expect(mail!.html).not.toContain("<a ");
    expect(mail!.html).toContain(`In the API: GET ${env.PUBLIC_ORIGIN}/v1/vulns/${r.id} with your organization&#39;s key.`);
  });

  it("escalate a missed deadline in plain words", async () => {
    const p = await emailProgram();
    const r = await emailReport(p, { contact_email: p.reporter, notify_me: false });
    await mailOf(r.id);
    const queue = fakeQueue().queue;
    at(T0 + 10 * H + 60_000);
    await sweepDeadlineAlerts({ db: primaryDb(env.DB), caller: PLATFORM_CALLER, queue, defer: () => {} }, new Date(T0 + 10 * H + 60_000));
    const mail = (await mailOf(r.id)).find((m) => m.to === p.escalation);
    expect(mail!.text!.split("\n\n")).toEqual([
      "Acme Security missed a deadline on a report.",
      `Report: "Stored XSS in the profile name" (${r.shortcode}), received through the brief "Acme web".`,
      "Missed: acknowledging the report, due 2026-08-03 19:00 UTC. It is not done yet.",
      "You get this e-mail because you are an escalation contact of Acme Security.",
      `In the API: GET ${env.PUBLIC_ORIGIN}/v1/vulns/${r.id} with your organization's key.`,
    ]);
  });
});
