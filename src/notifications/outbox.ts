import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db, Statement } from "../db";
import {
  briefs,
  contacts,
  events,
  notifications,
  organizations,
  vulns,
  type ContactRole,
  type NotificationKind,
  type NotificationRow,
} from "../db/schema";
import { sealLink } from "./links";
import { uuidv7 } from "../lib/ids";
import { inList, subquery } from "../db/queries";
import { CRA_KINDS, type DeadlineKind } from "../lib/deadlines";
import { subjectOf, type NotificationParams, type ReportParams } from "./templates";

// Who is told what, by e-mail, when an outbox event is processed. The e-mails an event makes are
// written in the batch that processes it (the consumer's, src/events/process-batch.ts), one row per
// address, each guarded by a unique index on (event, address, kind): an event processed twice e-mails
// nobody twice. The receipt is the exception: it holds the reporter's link, which only the submission
// knows, so the submission writes it (held) and the batch that stores the report releases it.

/** A confirmed contact, as the fan-out reads it. */
export interface Recipient {
  id: string;
  email: string;
  role: ContactRole;
}

/** The report an event is about, with what e-mails say of it and whether its reporter hears of it. */
export interface ReportFacts extends ReportParams {
  organizationId: string;
  contactEmail: string | null;
  notifyReporter: boolean;
}

export interface Audience {
  /** Confirmed contacts by organization. */
  contacts: Map<string, Recipient[]>;
  reports: Map<string, ReportFacts>;
}

/** What one event e-mails: to a contact, or to the report's reporter. */
export interface PlannedEmail {
  kind: NotificationKind;
  recipient: "contact" | "reporter";
  to: string;
  contactId: string | null;
  params: NotificationParams;
}

const ofEvents = (eventIds: readonly string[]) => subquery`(SELECT organization_id FROM events WHERE ${inList(events.id, eventIds)})`;

/** The reads the fan-out needs, for the first batch of the events `eventIds`: confirmed contacts and the reports. */
export function audienceQueries(db: Db, eventIds: readonly string[]) {
  return [
    db
      .select({ id: contacts.id, organizationId: contacts.organizationId, email: contacts.email, role: contacts.role })
      .from(contacts)
      .where(and(isNotNull(contacts.confirmedAt), sql`${contacts.organizationId} IN ${ofEvents(eventIds)}`)),
    db
      .select({
        id: vulns.id,
        organizationId: vulns.organizationId,
        shortcode: vulns.shortcode,
        title: vulns.title,
        contactEmail: vulns.contactEmail,
        notifyReporter: vulns.notifyReporter,
        // (The outer row's columns qualified, so they can never name the subquery's own.)
        brief: subquery<string | null>`(SELECT b.name FROM ${briefs} b WHERE b.id = ${vulns.briefId})`.as("brief_name"),
        organization: subquery<string>`(SELECT o.name FROM ${organizations} o WHERE o.id = ${vulns.organizationId})`.as(
          "organization_name",
        ),
      })
      .from(vulns)
      .where(subquery`${vulns.id} IN (SELECT vuln_id FROM events WHERE ${inList(events.id, eventIds)})`),
  ] as const;
}

export function audienceOf(contactRows: (Recipient & { organizationId: string })[], reportRows: ReportFacts[]): Audience {
  const byOrg = new Map<string, Recipient[]>();
  for (const { organizationId, ...c } of contactRows) byOrg.set(organizationId, [...(byOrg.get(organizationId) ?? []), c]);
  return { contacts: byOrg, reports: new Map(reportRows.map((r) => [r.id, { ...r, notifyReporter: Boolean(r.notifyReporter) }])) };
}

/**
 * The contacts who hear of something: responders, or escalation for a breached deadline. With none of
 * the role asked for confirmed, the other role hears it: a report nobody is told about is the failure
 * this exists to prevent.
 */
export function contactsFor(role: ContactRole, confirmed: readonly Recipient[]): Recipient[] {
  const wanted = confirmed.filter((c) => c.role === role);
  const chosen = wanted.length > 0 ? wanted : confirmed;
  const seen = new Set<string>();
  return chosen.filter((c) => !seen.has(c.email.toLowerCase()) && seen.add(c.email.toLowerCase()));
}

// A breach escalates for the promises that say someone is reading (acknowledge, triage) and the law's (CRA).
const ESCALATED: readonly DeadlineKind[] = ["acknowledge", "triage", ...CRA_KINDS];

/** The e-mails an event makes, given who is there to tell. Pure: the tests read it as a table. */
export function emailsFor(event: { type: string; payload: string; vulnId: string | null }, audience: Audience): PlannedEmail[] {
  const report = event.vulnId ? audience.reports.get(event.vulnId) : undefined;
  if (!report) return [];
  const { organizationId, contactEmail, notifyReporter, ...named } = report;
  const confirmed = audience.contacts.get(organizationId) ?? [];
  const toContacts = (role: ContactRole, params: NotificationParams): PlannedEmail[] =>
    contactsFor(role, confirmed).map((c) => ({ kind: params.kind, recipient: "contact", to: c.email, contactId: c.id, params }));
  const toReporter = (params: NotificationParams): PlannedEmail[] =>
    notifyReporter && contactEmail ? [{ kind: params.kind, recipient: "reporter", to: contactEmail, contactId: null, params }] : [];
  const payload = JSON.parse(event.payload) as Record<string, Record<string, unknown>>;
  switch (event.type) {
    case "Vuln::Inbox::Stored":
      return toContacts("responder", { kind: "report_received", report: named });
    case "Vuln::Comment::Created": {
      const { author, visibility } = payload.comment as { author: string; visibility: string };
      if (author === "reporter") return toContacts("responder", { kind: "reporter_commented", report: named });
      if (visibility === "reporter") return toReporter({ kind: "organization_commented", report: named });
      return [];
    }
    case "Vuln::Triage::Changed": {
      const { triage_state, previous_triage_state } = payload.vuln as { triage_state: string; previous_triage_state: string };
      // A duplicate given another original moves nowhere the reporter can see.
      if (triage_state === previous_triage_state) return [];
      return toReporter({ kind: "triage_changed", report: named, triage_state, previous_triage_state } as NotificationParams);
    }
    case "Vuln::Deadline::Approaching":
    case "Vuln::Deadline::Breached": {
      const { kind, due_at } = payload.deadline as { kind: DeadlineKind; due_at: string };
      if (event.type === "Vuln::Deadline::Approaching")
        return toContacts("responder", { kind: "deadline_approaching", report: named, deadline: kind, due_at });
      if (!ESCALATED.includes(kind)) return [];
      return toContacts("escalation", { kind: "deadline_breached", report: named, deadline: kind, due_at });
    }
    default:
      return [];
  }
}

/**
 * The INSERT of one e-mail an event makes, for the batch that processes the event: copied from the
 * event's row, so nothing is written if the event is not there (one written earlier in the same batch
 * counts), and refused quietly if the event made this e-mail already. Returns the id if written.
 */
export function notificationFromEvent(db: Db, eventId: string, email: PlannedEmail, nowIso: string): Statement {
  return db
    .insert(notifications)
    .select(
      db
        .select({
          id: sql<string>`${uuidv7()}`.as("id"),
          organizationId: events.organizationId,
          vulnId: events.vulnId,
          contactId: sql<string | null>`${email.contactId}`.as("contact_id"),
          eventId: events.id,
          kind: sql<string>`${email.kind}`.as("kind"),
          recipient: sql<string>`${email.recipient}`.as("recipient"),
          to: sql<string>`${email.to}`.as("to"),
          subject: sql<string>`${subjectOf(email.params)}`.as("subject"),
          params: sql<string>`${JSON.stringify(email.params)}`.as("params"),
          sealedLink: sql<null>`null`.as("sealed_link"),
          status: sql<string>`'pending'`.as("status"),
          attemptCount: sql<number>`0`.as("attempt_count"),
          lastError: sql<null>`null`.as("last_error"),
          nextAttemptAt: sql<string>`${nowIso}`.as("next_attempt_at"),
          leaseUntil: sql<null>`null`.as("lease_until"),
          sentAt: sql<null>`null`.as("sent_at"),
          messageId: sql<null>`null`.as("message_id"),
          createdAt: sql<string>`${nowIso}`.as("created_at"),
          updatedAt: sql<string>`${nowIso}`.as("updated_at"),
        })
        .from(events)
        .where(eq(events.id, eventId)),
    )
    .onConflictDoNothing()
    .returning({ id: notifications.id });
}

/** The receipt a submission wrote, held, made ready to send: for the batch that stores its report. */
export function releaseReceipt(db: Db, vulnId: string, nowIso: string): Statement {
  return db
    .update(notifications)
    .set({ status: "pending", nextAttemptAt: nowIso, updatedAt: nowIso })
    .where(and(eq(notifications.vulnId, vulnId), eq(notifications.kind, "receipt"), eq(notifications.status, "held")))
    .returning({ id: notifications.id });
}

/**
 * The receipt of a report submitted with `contact_email` and `notify_me`: written held in the
 * submission's batch, with the report page's link sealed (the token is stored nowhere else), and
 * released by the batch that stores the report.
 */
export async function receiptRow(args: {
  report: ReportParams & { organizationId: string };
  to: string;
  link: string;
  receivedAt: string;
  acknowledgeDueAt: string | null;
  triageDueAt: string | null;
}): Promise<NotificationRow> {
  const id = uuidv7();
  const { organizationId, ...report } = args.report;
  const params: NotificationParams = {
    kind: "receipt",
    report,
    received_at: args.receivedAt,
    acknowledge_due_at: args.acknowledgeDueAt,
    triage_due_at: args.triageDueAt,
  };
  return {
    ...newNotification(
      { organizationId, vulnId: report.id, contactId: null, eventId: null, recipient: "reporter", to: args.to, params },
      args.receivedAt,
    ),
    id,
    status: "held",
    nextAttemptAt: null,
    sealedLink: await sealLink(id, args.link),
  };
}

/** A row of the outbox, ready to send now. */
export function newNotification(
  e: Pick<NotificationRow, "organizationId" | "vulnId" | "contactId" | "eventId" | "recipient" | "to"> & { params: NotificationParams },
  nowIso: string,
): NotificationRow {
  return {
    id: uuidv7(),
    organizationId: e.organizationId,
    vulnId: e.vulnId,
    contactId: e.contactId,
    eventId: e.eventId,
    kind: e.params.kind,
    recipient: e.recipient,
    to: e.to,
    subject: subjectOf(e.params),
    params: e.params as unknown as Record<string, unknown>,
    sealedLink: null,
    status: "pending",
    attemptCount: 0,
    lastError: null,
    nextAttemptAt: nowIso,
    leaseUntil: null,
    sentAt: null,
    messageId: null,
    createdAt: nowIso,
    updatedAt: nowIso,
  };
}
