import { and, eq } from "drizzle-orm";
import type { Db, Statement } from "../db";
import { notifications, type NotificationRow } from "../db/schema";
import { uuidv7 } from "../lib/ids";
import { sealLink } from "./links";
import { subjectOf, type NotificationParams, type ReportParams } from "./templates";

// The outbox rows a service writes itself, in the batch of its change: a contact's confirmation, a
// member's invitation, and a report's receipt, which holds the reporter's link that only the submission knows: the submission
// writes it held, with the link sealed, and the batch that stores the report releases it.

/** The receipt a submission wrote, held, made ready to send: for the batch that stores its report. */
export function releaseReceipt(db: Db, vulnId: string, nowIso: string): Statement {
  return db
    .update(notifications)
    .set({ status: "pending", nextAttemptAt: nowIso, updatedAt: nowIso })
    .where(and(eq(notifications.vulnId, vulnId), eq(notifications.kind, "receipt"), eq(notifications.status, "held")))
    .returning({ id: notifications.id, kind: notifications.kind });
}

/**
 * The receipt of a report submitted with `contact_email` and `notify_me`: written held in the
 * submission's batch, with the report page's link sealed (the token is stored nowhere else), and
 * released by the batch that stores the report. A report the brief's daily cap queued is not stored
 * for days: its receipt is written ready to send, saying when the report should be released.
 */
export async function receiptRow(args: {
  report: ReportParams & { organizationId: string };
  to: string;
  link: string;
  receivedAt: string;
  acknowledgeDueAt: string | null;
  triageDueAt: string | null;
  /** Queued by the brief's daily cap: the day it is expected out. Such a receipt goes at once (its report waits for days). */
  releaseExpectedOn?: string | null;
}): Promise<NotificationRow> {
  const id = uuidv7();
  const { organizationId, ...report } = args.report;
  const params: NotificationParams = {
    kind: "receipt",
    report,
    received_at: args.receivedAt,
    acknowledge_due_at: args.acknowledgeDueAt,
    triage_due_at: args.triageDueAt,
    ...(args.releaseExpectedOn && { release_expected_on: args.releaseExpectedOn }),
  };
  const queued = Boolean(args.releaseExpectedOn);
  return {
    ...newNotification(
      { organizationId, vulnId: report.id, contactId: null, eventId: null, recipient: "reporter", to: args.to, params },
      args.receivedAt,
    ),
    id,
    status: queued ? "pending" : "held",
    nextAttemptAt: queued ? args.receivedAt : null,
    sealedLink: await sealLink(id, args.link),
  };
}

/** A row of the outbox, ready to send now (a contact's confirmation, a member's invitation, a receipt). */
export function newNotification(
  e: Pick<NotificationRow, "organizationId" | "vulnId" | "contactId" | "eventId" | "recipient" | "to"> &
    Partial<Pick<NotificationRow, "memberId">> & { params: NotificationParams },
  nowIso: string,
): NotificationRow {
  return {
    id: uuidv7(),
    organizationId: e.organizationId,
    vulnId: e.vulnId,
    contactId: e.contactId,
    memberId: e.memberId ?? null,
    eventId: e.eventId,
    kind: e.params.kind,
    recipient: e.recipient,
    to: e.to,
    subject: subjectOf(e.params),
    params: e.params,
    sealedLink: null,
    status: "pending",
    attemptCount: 0,
    lastError: null,
    nextAttemptAt: nowIso,
    leaseUntil: null,
    sentAt: null,
    reservedAt: null,
    messageId: null,
    createdAt: nowIso,
    updatedAt: nowIso,
  };
}
