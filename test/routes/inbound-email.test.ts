import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { replyText } from "../../src/inbound-email";
import { api } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { brief, organization, PUBLISHED } from "../helpers/factories";
import { confirmedContact, mailbox, runMail } from "../helpers/mail";
import { asReporter, submitReport } from "../helpers/reporter";

// Replies by e-mail: the Worker's email handler takes a reporter's answer to a notice (its Reply-To)
// and adds it as a reporter comment, once; anything else is refused with a reason and writes nothing.

const REPORTER = "finder@researcher.example";
// The test's clock: the notices a reply causes wait a little for others to go with them, and that time passes.
testClock(Date.parse("2026-08-03T09:00:00.000Z"));

/** A report whose reporter got a notice: its Reply-To is where an answer goes. */
async function noticed() {
  const org = await organization({ name: "Acme Security" });
  await confirmedContact(org, { email: `resp-${org.slug}@acme.example`, role: "responder" });
  const b = await brief(org, { published_at: PUBLISHED });
  const r = await submitReport(org, { contact_email: REPORTER }, { briefId: b.id, shortcode: b.attributes.shortcode });
  const box = mailbox();
  const unprocessed = async () =>
    (await env.DB.prepare("SELECT id FROM events WHERE vuln_id = ? AND processed_at IS NULL").bind(r.id).all<{ id: string }>()).results.map(
      (e) => e.id,
    );
  await runMail(box, await unprocessed());
  const receipt = box.to(REPORTER)[0]!;
  return { org, r, replyTo: receipt.replyTo as string, subject: receipt.subject, unprocessed, responder: `resp-${org.slug}@acme.example` };
}

let counter = 0;
function mime(o: {
  from?: string;
  to: string;
  subject?: string;
  text: string;
  messageId?: string;
  attachment?: { name: string; content: string };
}) {
  const id = o.messageId ?? `<reply-${++counter}-${crypto.randomUUID()}@researcher.example>`;
  const headers = [
    `From: Finder <${o.from ?? REPORTER}>`,
    `To: ${o.to}`,
    `Subject: Re: ${o.subject ?? "your report"}`,
    `Message-ID: ${id}`,
    "MIME-Version: 1.0",
  ];
  if (!o.attachment) return { id, raw: [...headers, "Content-Type: text/plain; charset=utf-8", "", o.text].join("\r\n") };
  return {
    id,
    raw: [
      ...headers,
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/plain; charset=utf-8",
      "",
      o.text,
      "--b1",
      `Content-Type: text/plain; name="${o.attachment.name}"`,
      `Content-Disposition: attachment; filename="${o.attachment.name}"`,
      "Content-Transfer-Encoding: base64",
      "",
      btoa(o.attachment.content),
      "--b1--",
    ].join("\r\n"),
  };
}

/** Delivers a message to the Worker's email handler as Email Routing does; answers the reason it was refused, or null. */
async function deliver(envelope: { from: string; to: string }, raw: string, rawSize?: number) {
  let rejected: string | null = null;
  const bytes = new TextEncoder().encode(raw);
  const message = {
    from: envelope.from,
    to: envelope.to,
    raw: new Response(bytes).body!,
    rawSize: rawSize ?? bytes.byteLength,
    headers: new Headers(),
    setReject: (reason: string) => {
      rejected = reason;
    },
    forward: async () => ({ messageId: "" }),
    reply: async () => ({ messageId: "" }),
  } as unknown as ForwardableEmailMessage;
  const ctx = createExecutionContext();
  await (worker as ExportedHandler<Env>).email!(
    message,
    { ...env, EVENTS: { send: async () => {}, sendBatch: async () => {} } as unknown as Queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return rejected;
}

const thread = async (token: string) =>
  (await asReporter("GET", "/v1/p/report/comments", token)).body.data.map((c: any) => [c.attributes.author, c.attributes.body]);

describe("a reply by e-mail", () => {
  it("becomes the reporter's comment, without the quoted notice or the signature, exactly once", async () => {
    const { r, replyTo, subject, unprocessed, responder } = await noticed();
    const text = [
      "Thanks. It also works on /settings:",
      "",
      "1. open /settings",
      "2. save the name",
      "",
      "On Mon, 3 Aug 2026 at 09:00, Acme Security <notifications@vdp.example> wrote:",
      "> Acme Security received your report",
      "> Keep this e-mail",
      "",
      "-- ",
      "Finder, researcher.example",
    ].join("\r\n");
    const { id, raw } = mime({ to: replyTo, subject, text });
    expect(await deliver({ from: REPORTER, to: replyTo }, raw)).toBeNull();
    expect(await thread(r.token)).toEqual([["reporter", "Thanks. It also works on /settings:\n\n1. open /settings\n2. save the name"]]);
    // What a reporter comment fires: the responder is told (without the text).
    const box = mailbox();
    await runMail(box, await unprocessed());
    expect(box.sent.map((m) => [m.to, m.subject])).toEqual([[responder, `The reporter commented on ${r.shortcode}`]]);
    expect(box.sent[0]!.text).not.toContain("/settings");
    // Delivered again (a retry of the sending server): nothing more.
    expect(await deliver({ from: REPORTER, to: replyTo }, mime({ to: replyTo, text, messageId: id }).raw)).toBeNull();
    expect(await thread(r.token)).toHaveLength(1);
  });

  it("adds its attachments as the reporter's files", async () => {
    const { org, r, replyTo } = await noticed();
    const { raw } = mime({ to: replyTo, text: "The log is attached.", attachment: { name: "trace.txt", content: "GET /settings 200\n" } });
    expect(await deliver({ from: REPORTER, to: replyTo }, raw)).toBeNull();
    const files = await api("GET", `/v1/vulns/${r.id}/attachments`, { key: org.key });
    expect(files.body.data.map((f: any) => [f.attributes.filename, f.attributes.uploaded_by, f.attributes.byte_size])).toEqual([
      ["trace.txt", "reporter", 18],
    ]);
  });

  it("is refused whole, writing nothing, when its attachments would take the report past its limits", async () => {
    const { org, r, replyTo } = await noticed();
    for (let i = 0; i < 20; i++) {
      const up = await api("POST", `/v1/vulns/${r.id}/attachments?filename=f${i}.txt`, {
        key: org.key,
        rawBody: "x",
        contentType: "text/plain",
      });
      expect(up.status).toBe(201);
    }
    const { raw } = mime({ to: replyTo, text: "One more file.", attachment: { name: "more.txt", content: "y" } });
    expect(await deliver({ from: REPORTER, to: replyTo }, raw)).toBe(
      "The attachments would take the report past 20 files or 50 MiB; nothing was added. Send fewer, or only the text.",
    );
    expect(await thread(r.token)).toEqual([]);
  });

  it("is refused with a reason, writing nothing, when forged, foreign, empty or too large", async () => {
    const { r, replyTo } = await noticed();
    const [local, domain] = replyTo.split("@") as [string, string];
    const forged = `${local.slice(0, -1)}${local.endsWith("a") ? "b" : "a"}@${domain}`;
    const cases: [string, { from: string; to: string }, string, number?][] = [
      ["a forged MAC", { from: REPORTER, to: forged }, mime({ to: forged, text: "hi" }).raw],
      ["another domain", { from: REPORTER, to: `${local}@elsewhere.example` }, mime({ to: `${local}@elsewhere.example`, text: "hi" }).raw],
      [
        "another sender",
        { from: "mallory@evil.example", to: replyTo },
        mime({ from: "mallory@evil.example", to: replyTo, text: "hi" }).raw,
      ],
      [
        "a From header not the reporter's",
        { from: REPORTER, to: replyTo },
        mime({ from: "mallory@evil.example", to: replyTo, text: "hi" }).raw,
      ],
      ["only the quote", { from: REPORTER, to: replyTo }, mime({ to: replyTo, text: "> Acme Security received your report" }).raw],
      ["over 10 MiB", { from: REPORTER, to: replyTo }, mime({ to: replyTo, text: "hi" }).raw, 10 * 1024 * 1024 + 1],
    ];
    const reasons = [];
    for (const [, envelope, raw, size] of cases) reasons.push(await deliver(envelope, raw, size));
    expect(reasons).toEqual([
      "No such recipient.",
      "No such recipient.",
      "This address takes replies from the report's reporter only, from the address the report gave.",
      "This address takes replies from the report's reporter only, from the address the report gave.",
      "The reply has no text above the quoted message.",
      "Message too large: at most 10 MiB.",
    ]);
    expect(await thread(r.token)).toEqual([]);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM inbound_emails WHERE vuln_id = ?").bind(r.id).first<{ n: number }>())!.n).toBe(
      0,
    );
  });
});

describe("replyText", () => {
  it("keeps what was written above the quote of the common mail clients and above the signature", () => {
    expect(replyText("Yes.\n\nOn Tue, Aug 4, 2026 at 10:00 AM Acme <n@vdp.example>\nwrote:\n> old")).toBe("Yes.");
    expect(replyText("Oui.\r\n\r\nLe mar. 4 août 2026 à 10:00, Acme <n@vdp.example> a écrit :\r\n> old")).toBe("Oui.");
    expect(replyText("Done\n\n-----Original Message-----\nFrom: Acme\n")).toBe("Done");
    expect(replyText("Done\n________________________________\nFrom: Acme\nSent: today")).toBe("Done");
    expect(replyText("Line one\n> quoted\nmore")).toBe("Line one");
    expect(replyText("Body\n-- \nSig")).toBe("Body");
    expect(replyText("On second thought, it is worse.\nSee /admin.")).toBe("On second thought, it is worse.\nSee /admin.");
    expect(replyText("> all quoted")).toBe("");
  });
});
