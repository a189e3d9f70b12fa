import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { api, browse } from "./api";
import type { TestOrganization } from "./factories";
import { runQueue } from "./queue";

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
 * (or every unprocessed one), the e-mails they wrote, and every e-mail due. Returns the runs' outcomes.
 */
export async function runMail(box: Mailbox, eventIds?: string[]) {
  const events =
    eventIds ??
    (await env.DB.prepare("SELECT id FROM events WHERE processed_at IS NULL ORDER BY created_at").all<{ id: string }>()).results.map(
      (e) => e.id,
    );
  const runs = [];
  if (events.length) runs.push(await runQueue(events, { env: { EMAIL: box.email } }));
  for (let round = 0; round < 5; round++) {
    const due = (
      await env.DB.prepare("SELECT id FROM notifications WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY created_at")
        .bind(new Date().toISOString())
        .all<{ id: string }>()
    ).results;
    if (due.length === 0) break;
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

export const linkIn = (text: string | undefined, path: "c" | "u" | "r") => {
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
