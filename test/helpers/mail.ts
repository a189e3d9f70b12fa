import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { GATHER_BOUND_MS } from "../../src/notifications/outbox";
import { api, browse } from "./api";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "./factories";
import { runQueue } from "./queue";
import { submitReport } from "./reporter";

/** An e-mail as the Worker handed it to the Email Service binding, with the id the binding gave it. */
export type SentMail = EmailMessageBuilder & { messageId: string; to: string };

/**
 * The EMAIL binding the consumer sends through in a test: the local simulation wrangler ships (which
 * checks and keeps every message), watched so the test reads what each message said. `failures` sends
 * that many fail first, as an outage of the service would.
 */
export function mailbox(opts: { failures?: number } = {}) {
  let failures = opts.failures ?? 0;
  const sent: SentMail[] = [];
  const email = {
    async send(builder: EmailMessageBuilder) {
      if (failures > 0) {
        failures--;
        throw new Error("Email Service unavailable (simulated outage)");
      }
      const result = await env.EMAIL.send(builder);
      sent.push({ ...builder, to: builder.to as string, messageId: result.messageId });
      return result;
    },
  } as unknown as SendEmail;
  return {
    email,
    sent,
    /** The e-mails to one address, oldest first. */
    to: (address: string) => sent.filter((m) => m.to === address),
  };
}
export type Mailbox = ReturnType<typeof mailbox>;

/**
 * Runs the queue as it would run in the background, until it has nothing more to do: the events given
 * (or every unprocessed one), the e-mails they wrote, and every e-mail due. A notice that waits for
 * others to go with it is due later: in a test on the test's clock (testClock), that time passes (the
 * clock moves to it); a retry after a failed send is left to the test. Returns the runs' outcomes.
 */
export async function runMail(box: Mailbox, eventIds?: string[]) {
  const events =
    eventIds ??
    (await env.DB.prepare("SELECT id FROM events WHERE processed_at IS NULL ORDER BY created_at").all<{ id: string }>()).results.map(
      (e) => e.id,
    );
  const runs = [];
  if (events.length) runs.push(await runQueue(events, { env: { EMAIL: box.email } }));
  for (let round = 0; round < 8; round++) {
    const now = new Date().toISOString();
    const due = (
      await env.DB.prepare("SELECT id FROM notifications WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY created_at")
        .bind(now)
        .all<{ id: string }>()
    ).results;
    if (due.length === 0) {
      const waiting = await env.DB.prepare(
        "SELECT min(next_attempt_at) AS next FROM notifications WHERE status = 'pending' AND attempt_count = 0 AND next_attempt_at > ? AND next_attempt_at <= ?",
      )
        .bind(now, new Date(Date.now() + GATHER_BOUND_MS).toISOString())
        .first<{ next: string | null }>();
      if (!waiting?.next) break;
      if (!vi.isFakeTimers()) throw new Error("runMail: notices wait for others to go with them; let time pass with testClock");
      vi.setSystemTime(Date.parse(waiting.next));
      continue;
    }
    runs.push(
      await runQueue(
        due.map((n) => ({ notification_id: n.id })),
        { env: { EMAIL: box.email } },
      ),
    );
  }
  return runs;
}

/** The outbox's rows for a vuln or a contact, as the log keeps them. */
export async function outbox(where: { vulnId?: string; contactId?: string } = {}) {
  const clause = where.vulnId ? "WHERE vuln_id = ?" : where.contactId ? "WHERE contact_id = ?" : "";
  const stmt = env.DB.prepare(
    `SELECT id, kind, recipient, "to", status, attempt_count, last_error, sealed_link FROM notifications ${clause} ORDER BY created_at, kind, "to"`,
  );
  return (await (clause ? stmt.bind(where.vulnId ?? where.contactId) : stmt).all<Record<string, unknown>>()).results;
}

export const createContact = (org: TestOrganization, attributes: Record<string, unknown>, key = org.key) =>
  api("POST", "/v1/contacts", { key, body: { data: { type: "contact", attributes } } });

export const linkIn = (text: string | undefined, path: "c" | "i" | "u" | "r") => {
  const m = new RegExp(`${env.PUBLIC_ORIGIN}/${path}/(\\S+)`).exec(text ?? "");
  if (!m) throw new Error(`no /${path}/ link in: ${text}`);
  return `/${path}/${m[1]}`;
};

/** A contact confirmed the way its owner does: the e-mail's link, then the page's button. */
export async function confirmedContact(
  org: TestOrganization,
  attributes: { name?: string; email: string; role: "responder" | "escalation" },
) {
  const res = await createContact(org, { name: "Ana Lima", ...attributes });
  expect(res.status).toBe(201);
  const box = mailbox();
  await runMail(box, []);
  const link = linkIn(box.to(attributes.email)[0]?.text, "c");
  expect((await browse("POST", link, { headers: { "Sec-Fetch-Site": "same-origin" } })).status).toBe(200);
  return res.body.data.id as string;
}

export const DESCRIPTION = "Set the name to <img src=x onerror=alert(1)> and open /admin/users.";

/**
 * An organization with a confirmed responder and escalation contact, a published brief promising
 * 10 h / 100 h, and a reporter's address of its own (the hourly limits count per address).
 */
export async function emailProgram(contacts: { responder?: boolean; escalation?: boolean } = { responder: true, escalation: true }) {
  const org = await organization({ name: "Acme Security" });
  if (contacts.responder) await confirmedContact(org, { email: `resp-${org.slug}@acme.example`, role: "responder" });
  if (contacts.escalation) await confirmedContact(org, { email: `esc-${org.slug}@acme.example`, role: "escalation" });
  const p = await policy(org, { response_targets: { acknowledge_hours: 10, triage_hours: 100 } });
  const b = await brief(org, { published_at: PUBLISHED, name: "Acme web" }, p.id);
  return {
    org,
    briefId: b.id,
    shortcode: b.attributes.shortcode as string,
    responder: `resp-${org.slug}@acme.example`,
    escalation: `esc-${org.slug}@acme.example`,
    reporter: `finder-${org.slug}@researcher.example`,
  };
}
export type EmailProgram = Awaited<ReturnType<typeof emailProgram>>;

/** A report through the program's brief, by its reporter unless the attributes say otherwise. */
export function emailReport(p: EmailProgram, attributes: Record<string, unknown> = { contact_email: p.reporter }) {
  return submitReport(p.org, { description: DESCRIPTION, ...attributes }, { briefId: p.briefId, shortcode: p.shortcode });
}

/** A report's events not processed yet, oldest first. */
export const unprocessedOf = async (vulnId: string) =>
  (
    await env.DB.prepare("SELECT id FROM events WHERE vuln_id = ? AND processed_at IS NULL ORDER BY created_at")
      .bind(vulnId)
      .all<{ id: string }>()
  ).results.map((e) => e.id);

/** Processes events as the consumer does, its e-mails' messages lost (the queue it publishes to refuses them). */
export const runQueueWithoutMail = (eventIds: string[]) => runQueue(eventIds, { env: { EMAIL: mailbox().email } });

/** Runs what the change wrote (its events, then their e-mails) and answers the e-mails sent. */
export async function mailOf(vulnId: string, box: Mailbox = mailbox()) {
  await runMail(box, await unprocessedOf(vulnId));
  return box.sent;
}
