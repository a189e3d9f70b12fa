import { and, eq, inArray, isNull, lte, ne, or, sql } from "drizzle-orm";
import type { Db } from "../db";
import { changedRows, inList, subquery } from "../db/queries";
import { publishNotifications, QUEUE_BATCH_LIMIT, type QueueMessage } from "../lib/queue";
import { contacts, members, notifications, vulns, type NotificationRow } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { loggable } from "../lib/log";
import { nextDelaySeconds } from "../lib/retry-schedule";
import { addressToken, openLink, replyAddress, unsubscribeToken } from "./links";
import { GATHER_BOUND_MS, GATHER_MS, SENT_ALONE } from "./outbox";
import { gathered, HOUR_MS, sameEmailAs, underLimits, unleased, whyNot } from "./places";
import { renderDigest, type Links, type NotificationParams } from "./templates";

// Sending the outbox's e-mails, from the queue, like webhook deliveries: leased first, so a duplicate
// message cannot send one twice; the outcome recorded before the message is acknowledged; a failed
// send retried on the webhooks' schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and then recorded
// as failed. Notices to one address about one report wait for each other a little and go as one
// e-mail. Past an hourly limit an e-mail waits (delayed) until the hour frees a place.

const LEASE_MS = 60_000;
const DUE_SKEW_MS = 2_000;
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

/** Who an e-mail is for, as they are now: the contact, the member or the report it names. */
interface Addressee {
  contact: { email: string; confirmedAt: string | null } | undefined;
  member: { email: string; joinedAt: string | null } | undefined;
  report: Reporter | undefined;
}

/**
 * Why an e-mail is not sent at all: its contact or member went or changed, its member joined already,
 * its reporter unsubscribed, or the sign-in links it carries expired while it waited.
 */
function cancelled(row: NotificationRow, { contact, member, report }: Addressee, nowIso: string) {
  if (row.kind === "sign_in_link") {
    const expires = (row.params as NotificationParams & { expires_at?: string }).expires_at;
    return expires !== undefined && expires <= nowIso ? "the sign-in link expired before it could be sent" : null;
  }
  if (row.recipient === "member") {
    if (!member || member.email.toLowerCase() !== row.to.toLowerCase()) return "the member was removed or its address changed";
    if (row.kind === "member_invitation") return member.joinedAt !== null ? "the member joined already" : null;
    if (row.vulnId && !report) return "the report was deleted";
    return null;
  }
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
 * One attempt at one e-mail. One round trip takes the lease, if the row is due, waited long enough for
 * the notices that go with it and has a place under the hourly limits (one conditional write, so
 * concurrent attempts cannot take the same place), with every notice waiting to go in the same e-mail,
 * and reads the rows, the contact or the report as they are now, and, for a row it could not lease, why.
 * Then it cancels them, makes the row wait, or sends one e-mail saying them all and records the outcome.
 */
export async function attemptNotification(ctx: EmailContext, id: string, now = Date.now()): Promise<EmailOutcome> {
  const { db } = ctx;
  const nowIso = new Date(now).toISOString();
  const lease = new Date(now + LEASE_MS).toISOString();
  const [leadLeased, together, rows, contactRows, memberRows, reportRows, why] = await db.batch([
    db
      .update(notifications)
      .set({ leaseUntil: lease, reservedAt: nowIso })
      .where(
        and(
          eq(notifications.id, id),
          inArray(notifications.status, ["pending", "delayed"]),
          or(isNull(notifications.nextAttemptAt), lte(notifications.nextAttemptAt, new Date(now + DUE_SKEW_MS).toISOString())),
          unleased(nowIso),
          gathered(now),
          underLimits(now),
        ),
      ),
    db
      .update(notifications)
      .set({ leaseUntil: lease })
      // Chained on the lease just before it (SQLite's changes()): only the attempt that leased the row takes them.
      .where(
        and(
          sql`changes() > 0`,
          ne(notifications.id, id),
          inArray(notifications.status, ["pending", "delayed"]),
          unleased(nowIso),
          sameEmailAs(id, lease),
        ),
      )
      .returning(),
    db.select().from(notifications).where(eq(notifications.id, id)),
    db
      .select({ email: contacts.email, confirmedAt: contacts.confirmedAt })
      .from(contacts)
      .where(eq(contacts.id, subquery`(SELECT contact_id FROM notifications WHERE id = ${id})`)),
    db
      .select({ email: members.email, joinedAt: members.joinedAt })
      .from(members)
      .where(eq(members.id, subquery`(SELECT member_id FROM notifications WHERE id = ${id})`)),
    db
      .select({ id: vulns.id, shortcode: vulns.shortcode, notifyReporter: vulns.notifyReporter, contactEmail: vulns.contactEmail })
      .from(vulns)
      .where(eq(vulns.id, subquery`(SELECT vuln_id FROM notifications WHERE id = ${id})`)),
    whyNot(db, id, now),
  ]);
  const row = rows[0];
  if (!row) return { ack: true };
  // (Two attempts in the same millisecond write the same lease: only the write that changed the row tells.)
  if (changedRows(leadLeased) === 0) return notLeased(ctx, row, why[0]!, now);

  // The row first, then the notices going with it, oldest first.
  const leased = [row, ...together.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))];
  const record = (changes: Partial<NotificationRow>, attempted = false) =>
    db
      .update(notifications)
      .set({
        ...changes,
        ...(attempted ? { attemptCount: sql`${notifications.attemptCount} + 1` } : {}),
        leaseUntil: null,
        reservedAt: null,
        updatedAt: nowIso,
      })
      .where(
        inList(
          notifications.id,
          leased.map((n) => n.id),
        ),
      );

  const report = reportRows[0] ? { ...reportRows[0], notifyReporter: Boolean(reportRows[0].notifyReporter) } : undefined;
  const reason = cancelled(row, { contact: contactRows[0], member: memberRows[0], report }, nowIso);
  if (reason) {
    await record({ status: "cancelled", lastError: reason, sealedLink: null, nextAttemptAt: null });
    return { ack: true };
  }

  let message: EmailMessageBuilder;
  try {
    message = await compose(ctx, leased, report);
  } catch (err) {
    // A link that does not open (EMAIL_LINK_KEY changed without the old key): an operator's mistake,
    // said in the log; the e-mail waits, unrecorded, until the key is back.
    await record({});
    throw new Error(`notification ${id} cannot be composed: ${(err as Error).message}`, { cause: err });
  }
  const attempt = row.attemptCount + 1;
  try {
    const sent = await ctx.email.send(message);
    await record(
      { status: "sent", sentAt: nowIso, messageId: sent.messageId, sealedLink: null, lastError: null, nextAttemptAt: null },
      true,
    );
    return { ack: true };
  } catch (err) {
    const delay = nextDelaySeconds(attempt, null);
    const error = String((err as Error)?.message ?? err).slice(0, ERROR_LENGTH);
    console.error(JSON.stringify({ level: "warn", message: "e-mail not sent", notification_id: id, attempt, ...loggable(err as Error) }));
    // The notices that were to go with it share its fate: they go with its retry.
    await record(
      {
        status: delay === null ? "failed" : "pending",
        lastError: error,
        nextAttemptAt: delay === null ? null : new Date(now + delay * 1000).toISOString(),
        ...(delay === null ? { sealedLink: null } : {}),
      },
      true,
    );
    return delay === null ? { ack: true } : { ack: false, delaySeconds: delay };
  }
}

type WhyNot = Awaited<ReturnType<typeof whyNot>>[number];

/**
 * A row the attempt could not lease: done already (nothing to do), held by another attempt or not due
 * (come back then), waiting for the notices that go with it (until the last came GATHER_MS ago, at
 * most GATHER_BOUND_MS after the first), or past an hourly limit (delayed until a place frees, and the
 * log says so). The last two are written on the row, so the log and the sweep know when it goes.
 */
async function notLeased(ctx: EmailContext, row: NotificationRow, why: WhyNot, now: number): Promise<EmailOutcome> {
  const nowIso = new Date(now).toISOString();
  if (row.status !== "pending" && row.status !== "delayed") return { ack: true };
  const comeBack = (until: string) => ({ ack: false as const, delaySeconds: Math.max(1, Math.ceil((Date.parse(until) - now) / 1000) + 1) });
  const later = [row.leaseUntil, row.nextAttemptAt]
    .filter((t): t is string => t !== null && t > new Date(now + DUE_SKEW_MS).toISOString())
    .sort()
    .at(-1);
  if (later) return comeBack(later);
  const wait = (changes: Partial<NotificationRow>) =>
    ctx.db
      .update(notifications)
      .set({ ...changes, updatedAt: nowIso })
      .where(and(eq(notifications.id, row.id), inArray(notifications.status, ["pending", "delayed"]), unleased(nowIso)));

  if (!SENT_ALONE.includes(row.kind) && why.newestWaiting && why.oldestWaiting) {
    const until = Math.min(Date.parse(why.newestWaiting) + GATHER_MS, Date.parse(why.oldestWaiting) + GATHER_BOUND_MS);
    if (until > now) {
      const at = new Date(until).toISOString();
      await wait({ nextAttemptAt: at });
      return comeBack(at);
    }
  }
  const full = (["organization", "recipient"] as const).find((which) =>
    which === "organization"
      ? why.organizationCounted >= LIMITS.emailsPerOrganizationHour
      : why.recipientCounted >= LIMITS.emailsPerRecipientHour,
  );
  if (!full) return comeBack(new Date(now + DUE_SKEW_MS).toISOString());
  const frees = full === "organization" ? why.organizationFrees : why.recipientFrees;
  const next = new Date(Date.parse(frees ?? nowIso) + HOUR_MS + 1000).toISOString();
  const limit = full === "organization" ? LIMITS.emailsPerOrganizationHour : LIMITS.emailsPerRecipientHour;
  await wait({ status: "delayed", nextAttemptAt: next, lastError: `waiting: the ${full}'s limit of ${limit} e-mails an hour is reached` });
  return comeBack(next);
}

/**
 * The message for the Email Service binding: the notices rendered (one alone, several as one e-mail
 * saying each) with the links they need.
 */
async function compose(ctx: EmailContext, leased: NotificationRow[], report: Reporter | undefined): Promise<EmailMessageBuilder> {
  const row = leased[0]!;
  const links: Links = { advisoryPages: `${ctx.publicOrigin}/a/`, consoleReports: `${ctx.publicOrigin}/console/reports/` };
  let extras: Awaited<ReturnType<typeof reporterExtras>> | undefined;
  if (row.kind === "contact_confirmation") links.confirm = `${ctx.publicOrigin}/c/${await addressToken("confirm", row.contactId!, row.to)}`;
  if (row.kind === "member_invitation") {
    links.invitation = `${ctx.publicOrigin}/i/${await addressToken("invite", row.memberId!, row.to)}`;
    links.signInPage = `${ctx.publicOrigin}/console/sign-in`;
  }
  if (row.recipient === "contact" && row.vulnId) links.api = `${ctx.publicOrigin}/v1/vulns/${row.vulnId}`;
  if (row.recipient === "reporter" && report) {
    extras = await reporterExtras(ctx, report);
    Object.assign(links, extras.links);
    if (row.kind === "receipt" && row.sealedLink) links.reportPage = await openLink(row.id, row.sealedLink);
  }
  if (row.kind === "sign_in_link" && row.sealedLink)
    links.signIn = (JSON.parse(await openLink(row.id, row.sealedLink)) as string[]).map(
      (token) => `${ctx.publicOrigin}/console/sign-in/${token}`,
    );
  const { subject, text, html } = renderDigest(
    leased.map((n) => n.params as NotificationParams),
    links,
    row.recipient,
  );
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
