import { and, eq, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { inList, subquery } from "../db/queries";
import { publishNotifications, QUEUE_BATCH_LIMIT, type QueueMessage } from "../lib/queue";
import { contacts, notifications, vulns, type NotificationRow } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { loggable } from "../lib/log";
import { nextDelaySeconds } from "../webhooks/schedule";
import { confirmationToken, openLink, replyAddress, unsubscribeToken } from "./links";
import { render, type Links, type NotificationParams } from "./templates";

// Sending one e-mail of the outbox, from the queue, like a webhook delivery: leased first, so a
// duplicate message cannot send it twice; the outcome recorded before the message is acknowledged;
// a failed send retried on the webhooks' schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and then
// recorded as failed. Past an hourly limit it waits (delayed) until the hour frees a place.

const LEASE_MS = 60_000;
const DUE_SKEW_MS = 2_000;
const HOUR_MS = 3_600_000;
/** The longest last_error the log keeps, in characters. */
export const ERROR_LENGTH = 500;

/** What sending needs: the database, the Email Service binding and the settings the links are made from. */
export interface EmailContext {
  db: Db;
  email: { send(builder: EmailMessageBuilder): Promise<EmailSendResult> };
  from: string;
  publicOrigin: string;
}

export type EmailOutcome = { ack: true } | { ack: false; delaySeconds: number };

/** Why an e-mail is not sent at all: its contact went or changed, or its reporter unsubscribed. */
function cancelled(row: NotificationRow, contact: { email: string; confirmedAt: string | null } | undefined, report: Reporter | undefined) {
  if (row.recipient === "contact") {
    if (!contact || contact.email.toLowerCase() !== row.to.toLowerCase()) return "the contact was deleted or its address changed";
    if (row.kind === "contact_confirmation" ? contact.confirmedAt !== null : contact.confirmedAt === null)
      return row.kind === "contact_confirmation" ? "the address is confirmed already" : "the contact is not confirmed";
    return null;
  }
  if (!report) return "the report was deleted";
  if (!report.notifyReporter || report.contactEmail?.toLowerCase() !== row.to.toLowerCase()) return "the reporter asked for no more e-mail";
  return null;
}

interface Reporter {
  id: string;
  shortcode: string;
  notifyReporter: boolean;
  contactEmail: string | null;
}

/** The headers and links of a reporter's e-mail: unsubscribe (RFC 8058 one-click too) and the reply address. */
async function reporterExtras(ctx: EmailContext, report: Reporter) {
  const unsubscribe = `${ctx.publicOrigin}/u/${await unsubscribeToken(report.id)}`;
  return {
    links: { unsubscribe },
    replyTo: await replyAddress(report.id, report.shortcode),
    headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

/**
 * The hour's sends so far, per organization and per address, with the oldest of each (when a place
 * frees), on the indexes (organization_id, sent_at) and (to, sent_at).
 */
function sentInHour(db: Db, id: string, since: string) {
  // The outer row's columns, inside a nested template: Drizzle writes those with their table's name.
  const within = (column: SQL, value: SQLiteColumn) => sql`FROM ${notifications} n WHERE n.${column} = ${value} AND n.sent_at > ${since}`;
  const byOrganization = within(sql.raw("organization_id"), notifications.organizationId);
  const byRecipient = within(sql.raw(`"to"`), notifications.to);
  return db
    .select({
      organizationSent: subquery<number>`(SELECT count(*) ${byOrganization})`,
      organizationOldest: subquery<string | null>`(SELECT min(n.sent_at) ${byOrganization})`,
      recipientSent: subquery<number>`(SELECT count(*) ${byRecipient})`,
      recipientOldest: subquery<string | null>`(SELECT min(n.sent_at) ${byRecipient})`,
    })
    .from(notifications)
    .where(eq(notifications.id, id));
}

/**
 * One attempt at one e-mail. Reads, in one round trip with the lease: the row, its contact or its
 * report as they are now, and the hour's sends. Then cancels it, delays it, or sends it and records
 * the outcome.
 */
export async function attemptNotification(ctx: EmailContext, id: string, now = Date.now()): Promise<EmailOutcome> {
  const { db } = ctx;
  const nowIso = new Date(now).toISOString();
  const lease = new Date(now + LEASE_MS).toISOString();
  const [leased, rows, contactRows, reportRows, counts] = await db.batch([
    db
      .update(notifications)
      .set({ leaseUntil: lease })
      .where(
        and(
          eq(notifications.id, id),
          inArray(notifications.status, ["pending", "delayed"]),
          or(isNull(notifications.nextAttemptAt), lte(notifications.nextAttemptAt, new Date(now + DUE_SKEW_MS).toISOString())),
          or(isNull(notifications.leaseUntil), lte(notifications.leaseUntil, nowIso)),
        ),
      ),
    db.select().from(notifications).where(eq(notifications.id, id)),
    db
      .select({ email: contacts.email, confirmedAt: contacts.confirmedAt })
      .from(contacts)
      .where(eq(contacts.id, subquery`(SELECT contact_id FROM notifications WHERE id = ${id})`)),
    db
      .select({ id: vulns.id, shortcode: vulns.shortcode, notifyReporter: vulns.notifyReporter, contactEmail: vulns.contactEmail })
      .from(vulns)
      .where(eq(vulns.id, subquery`(SELECT vuln_id FROM notifications WHERE id = ${id})`)),
    sentInHour(db, id, new Date(now - HOUR_MS).toISOString()),
  ]);
  const row = rows[0];
  if (!row) return { ack: true };
  if (leased.meta.changes === 0 || row.leaseUntil !== lease) {
    // Held by another attempt, or not due yet (a message early for a wait): come back then. Done: nothing to do.
    const waiting = row.status === "pending" || row.status === "delayed";
    const until = [row.leaseUntil, row.nextAttemptAt]
      .filter((t): t is string => t !== null && t > nowIso)
      .sort()
      .at(-1);
    if (waiting && until) return { ack: false, delaySeconds: Math.ceil((Date.parse(until) - now) / 1000) + 1 };
    return { ack: true };
  }
  const record = (changes: Partial<NotificationRow>) =>
    db
      .update(notifications)
      .set({ ...changes, leaseUntil: null, updatedAt: nowIso })
      .where(eq(notifications.id, id));

  const report = reportRows[0] ? { ...reportRows[0], notifyReporter: Boolean(reportRows[0].notifyReporter) } : undefined;
  const reason = cancelled(row, contactRows[0], report);
  if (reason) {
    await record({ status: "cancelled", lastError: reason, sealedLink: null, nextAttemptAt: null });
    return { ack: true };
  }

  const c = counts[0]!;
  const waitUntil =
    c.organizationSent >= LIMITS.emailsPerOrganizationHour
      ? c.organizationOldest
      : c.recipientSent >= LIMITS.emailsPerRecipientHour
        ? c.recipientOldest
        : null;
  if (waitUntil) {
    const next = new Date(Date.parse(waitUntil) + HOUR_MS + 1000).toISOString();
    const which = c.organizationSent >= LIMITS.emailsPerOrganizationHour ? "organization" : "recipient";
    await record({
      status: "delayed",
      nextAttemptAt: next,
      lastError: `waiting: the ${which}'s limit of ${which === "organization" ? LIMITS.emailsPerOrganizationHour : LIMITS.emailsPerRecipientHour} e-mails an hour is reached`,
    });
    return { ack: false, delaySeconds: Math.max(1, Math.ceil((Date.parse(next) - now) / 1000)) };
  }

  let message: EmailMessageBuilder;
  try {
    message = await compose(ctx, row, report);
  } catch (err) {
    // A link that does not open (EMAIL_LINK_KEY changed without the old key): an operator's mistake,
    // said in the log; the e-mail waits, unrecorded, until the key is back.
    await db.update(notifications).set({ leaseUntil: null }).where(eq(notifications.id, id));
    throw new Error(`notification ${id} cannot be composed: ${(err as Error).message}`, { cause: err });
  }
  const attempt = row.attemptCount + 1;
  try {
    const sent = await ctx.email.send(message);
    await record({
      status: "sent",
      attemptCount: attempt,
      sentAt: nowIso,
      messageId: sent.messageId,
      sealedLink: null,
      lastError: null,
      nextAttemptAt: null,
    });
    return { ack: true };
  } catch (err) {
    const delay = nextDelaySeconds(attempt, null);
    const error = String((err as Error)?.message ?? err).slice(0, ERROR_LENGTH);
    console.error(JSON.stringify({ level: "warn", message: "e-mail not sent", notification_id: id, attempt, ...loggable(err as Error) }));
    await record({
      status: delay === null ? "failed" : "pending",
      attemptCount: attempt,
      lastError: error,
      nextAttemptAt: delay === null ? null : new Date(now + delay * 1000).toISOString(),
      ...(delay === null ? { sealedLink: null } : {}),
    });
    return delay === null ? { ack: true } : { ack: false, delaySeconds: delay };
  }
}

/** The message for the Email Service binding: the template rendered with the links it needs. */
async function compose(ctx: EmailContext, row: NotificationRow, report: Reporter | undefined): Promise<EmailMessageBuilder> {
  const params = row.params as unknown as NotificationParams;
  const links: Links = {};
  let extras: Awaited<ReturnType<typeof reporterExtras>> | undefined;
  if (row.kind === "contact_confirmation") links.confirm = `${ctx.publicOrigin}/c/${await confirmationToken(row.contactId!, row.to)}`;
  if (row.recipient === "contact" && row.vulnId) links.api = `${ctx.publicOrigin}/v1/vulns/${row.vulnId}`;
  if (row.recipient === "reporter" && report) {
    extras = await reporterExtras(ctx, report);
    Object.assign(links, extras.links);
    if (row.kind === "receipt" && row.sealedLink) links.reportPage = await openLink(row.id, row.sealedLink);
  }
  const { subject, text, html } = render(params, links);
  return {
    from: ctx.from,
    to: row.to,
    subject,
    text,
    html,
    ...(extras ? { replyTo: extras.replyTo, headers: extras.headers } : {}),
  };
}

// An e-mail this long past its time and past its lease has lost its message: the sweep sends it again.
export const NOTIFICATION_OVERDUE_MS = 60_000;
const SWEEP_PAGE = QUEUE_BATCH_LIMIT;
export const NOTIFICATION_SWEEP_MAX_PAGES = 20;

/**
 * The cron's sweep of the e-mail outbox, like the deliveries': what is due and has no message (the
 * queue refused it, or it went to the dead-letter queue) is handed to the queue again, a page at a time.
 */
export async function sweepNotifications(db: Db, queue: Queue<QueueMessage>, now = Date.now()): Promise<number> {
  const overdue = new Date(now - NOTIFICATION_OVERDUE_MS).toISOString();
  const nowIso = new Date(now).toISOString();
  const lost = and(
    inArray(notifications.status, ["pending", "delayed"]),
    lte(notifications.nextAttemptAt, overdue),
    or(isNull(notifications.leaseUntil), lte(notifications.leaseUntil, overdue)),
  );
  let sent = 0;
  for (let page = 0; page < NOTIFICATION_SWEEP_MAX_PAGES; page++) {
    const due = await db.select({ id: notifications.id }).from(notifications).where(lost).limit(SWEEP_PAGE);
    if (due.length === 0) break;
    // Due now, so the next page leaves them alone while their messages find them due.
    const taken = await db
      .update(notifications)
      .set({ nextAttemptAt: nowIso })
      .where(
        and(
          inList(
            notifications.id,
            due.map((d) => d.id),
          ),
          lost,
        ),
      )
      .returning({ id: notifications.id });
    await publishNotifications(
      queue,
      taken.map((t) => t.id),
    );
    sent += taken.length;
    if (due.length < SWEEP_PAGE) break;
  }
  return sent;
}
