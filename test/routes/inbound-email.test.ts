import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { LIMITS } from "../../src/lib/limits";
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
  /** More header lines, as written ("Auto-Submitted: auto-replied"). */
  headers?: string[];
  /** The body as HTML instead of text. */
  html?: boolean;
  attachment?: { name: string; content: string };
}) {
  const id = o.messageId ?? `<reply-${++counter}-${crypto.randomUUID()}@researcher.example>`;
  const headers = [
    `From: Finder <${o.from ?? REPORTER}>`,
    `To: ${o.to}`,
    `Subject: Re: ${o.subject ?? "your report"}`,
    `Message-ID: ${id}`,
    ...(o.headers ?? []),
    "MIME-Version: 1.0",
  ];
  const type = `Content-Type: text/${o.html ? "html" : "plain"}; charset=utf-8`;
  if (!o.attachment) return { id, raw: [...headers, type, "", o.text].join("\r\n") };
  return {
    id,
    raw: [
      ...headers,
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      type,
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

/**
 * Delivers a message to the Worker's email handler as Email Routing does. Answers the reason it was
 * refused (or null) and what became of its raw stream: read to the end, cancelled, or left open (which
 * the runtime reports as a hung request).
 */
async function deliverWith(envelope: { from: string; to: string }, raw: string, rawSize?: number) {
  let rejected: string | null = null;
  let end: "read" | "cancelled" | "open" = "open";
  const bytes = new TextEncoder().encode(raw);
  let given = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (given) {
        controller.close();
        end = "read";
        return;
      }
      given = true;
      controller.enqueue(bytes);
    },
    cancel() {
      end = "cancelled";
    },
  });
  const message = {
    from: envelope.from,
    to: envelope.to,
    raw: stream,
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
  return { rejected: rejected as string | null, raw: end };
}

/** The reason a delivered message was refused, or null. */
const deliver = async (envelope: { from: string; to: string }, raw: string, rawSize?: number) =>
  (await deliverWith(envelope, raw, rawSize)).rejected;

const inboundCount = async (vulnId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM inbound_emails WHERE vuln_id = ?").bind(vulnId).first<{ n: number }>())!.n;

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

  it("is refused whole, writing nothing, when an attachment is empty", async () => {
    const { org, r, replyTo } = await noticed();
    const { raw } = mime({ to: replyTo, text: "The log is attached.", attachment: { name: "empty.txt", content: "" } });
    expect(await deliver({ from: REPORTER, to: replyTo }, raw)).toBe(
      "An attachment is empty; nothing was added. Send the file again, or only the text.",
    );
    expect(await thread(r.token)).toEqual([]);
    expect((await api("GET", `/v1/vulns/${r.id}/attachments`, { key: org.key })).body.data).toEqual([]);
    expect(await inboundCount(r.id)).toBe(0);
  });

  it("is refused, writing nothing, when it is an automatic reply, and the report keeps waiting on the reporter", async () => {
    const { org, r, replyTo } = await noticed();
    const moved = await api("PATCH", `/v1/vulns/${r.id}`, {
      key: org.key,
      body: { data: { type: "vuln", id: r.id, attributes: { triage_state: "needs_more_info" } } },
    });
    expect(moved.status).toBe(200);
    const automatic = [
      ["Auto-Submitted: auto-replied"],
      ["Auto-Submitted: auto-generated"],
      ["Auto-Submitted: Auto-Replied (vacation)"],
      ["Auto-Submitted: auto-notified; owner-email=finder@researcher.example"],
      ["X-Autoreply: yes"],
      ["X-Autorespond: Out of office"],
      ["Precedence: auto_reply"],
      ["Precedence: bulk"],
      ["Precedence: Junk"],
    ];
    const reasons = [];
    for (const headers of automatic) {
      const { raw } = mime({ to: replyTo, text: "I am out of the office until Monday.", headers });
      reasons.push(await deliver({ from: REPORTER, to: replyTo }, raw));
    }
    expect(reasons).toEqual(automatic.map(() => "This address takes replies written by the reporter, not automatic replies (RFC 3834)."));
    expect(await thread(r.token)).toEqual([]);
    expect(await inboundCount(r.id)).toBe(0);
    expect((await api("GET", `/v1/vulns/${r.id}`, { key: org.key })).body.data.attributes.triage_state).toBe("needs_more_info");

    // Auto-Submitted: no is a person's message (RFC 3834), as is a list's Precedence: it is taken.
    const { raw } = mime({ to: replyTo, text: "Here is the detail.", headers: ["Auto-Submitted: no", "Precedence: list"] });
    expect(await deliver({ from: REPORTER, to: replyTo }, raw)).toBeNull();
    expect(await thread(r.token)).toEqual([["reporter", "Here is the detail."]]);
    expect((await api("GET", `/v1/vulns/${r.id}`, { key: org.key })).body.data.attributes.triage_state).not.toBe("needs_more_info");
  });

  it("cancels the raw stream of a message it refuses without reading it, and reads the others to the end", async () => {
    const { replyTo } = await noticed();
    const [local, domain] = replyTo.split("@") as [string, string];
    const forged = `${local.slice(0, -1)}${local.endsWith("a") ? "b" : "a"}@${domain}`;
    const ends = [];
    for (const [envelope, raw, size] of [
      [{ from: REPORTER, to: forged }, mime({ to: forged, text: "hi" }).raw],
      [{ from: REPORTER, to: `${local}@elsewhere.example` }, mime({ to: `${local}@elsewhere.example`, text: "hi" }).raw],
      [{ from: "mallory@evil.example", to: replyTo }, mime({ from: "mallory@evil.example", to: replyTo, text: "hi" }).raw],
      [{ from: REPORTER, to: replyTo }, mime({ to: replyTo, text: "hi" }).raw, LIMITS.inboundEmailBytes + 1],
      [{ from: REPORTER, to: replyTo }, mime({ from: "mallory@evil.example", to: replyTo, text: "hi" }).raw],
      [{ from: REPORTER, to: replyTo }, mime({ to: replyTo, text: "Thanks." }).raw],
    ] as const) {
      const { rejected, raw: end } = await deliverWith(envelope, raw, size);
      ends.push([rejected === null ? "taken" : "refused", end]);
    }
    expect(ends).toEqual([
      ["refused", "cancelled"],
      ["refused", "cancelled"],
      ["refused", "cancelled"],
      ["refused", "cancelled"],
      ["refused", "read"],
      ["taken", "read"],
    ]);
  });

  it("is refused as too long, writing nothing, when its body is pathological for a quote stripper", async () => {
    const { r, replyTo } = await noticed();
    // Up to the message limit, less room for the headers: one line each, or quote markers nested deep.
    const size = LIMITS.inboundEmailBytes - 1024;
    const bodies: [string, boolean][] = [
      [`Am ${" schrieb".repeat(size / 8 - 1)}`, false],
      [`On ${" wrote:x".repeat(size / 8 - 1)}`, false],
      ["x".repeat(size), false],
      ["<".repeat(size), true],
      ["<script".repeat(size / 7), true],
      [`${"a".repeat(LIMITS.commentLength + 1)}\n${">".repeat(size - LIMITS.commentLength - 2)}`, false],
    ];
    const reasons = [];
    for (const [text, html] of bodies) reasons.push(await deliver({ from: REPORTER, to: replyTo }, mime({ to: replyTo, text, html }).raw));
    expect(reasons).toEqual(bodies.map(() => `The reply is longer than ${LIMITS.commentLength} characters.`));
    // Nested quote markers with nothing above them: no reply at all.
    const quoted = Array.from({ length: 1000 }, (_, depth) => `${"> ".repeat(depth + 1)}line ${depth}`).join("\n");
    expect(await deliver({ from: REPORTER, to: replyTo }, mime({ to: replyTo, text: quoted }).raw)).toBe(
      "The reply has no text above the quoted message.",
    );
    expect(await thread(r.token)).toEqual([]);
    expect(await inboundCount(r.id)).toBe(0);
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
    expect(await inboundCount(r.id)).toBe(0);
  });
});
