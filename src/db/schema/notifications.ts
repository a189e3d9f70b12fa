import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";

/**
 * What an e-mail is about. Each kind has one template (src/notifications/templates.ts), rendered when
 * it is sent from the row's `params`, which never hold a report's description, comment texts or files.
 */
export const NOTIFICATION_KINDS = [
  "contact_confirmation",
  "report_received",
  "reporter_commented",
  "deadline_approaching",
  "deadline_breached",
  "receipt",
  "organization_commented",
  "triage_changed",
  "advisory_published",
  "member_invitation",
  "sign_in_link",
  "vuln_assigned",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * held: a receipt written with its report, sent once the report is stored; pending: to send at
 * next_attempt_at (a notice about a report waits a little for others to go with it; after a failed
 * attempt, the retry's time); delayed: waiting for an hourly limit, until next_attempt_at; sent (alone,
 * or in one e-mail with the other notices to the same address about the same report: the same
 * message_id); failed: every attempt failed; cancelled: its reporter unsubscribed, or its contact or member went (or joined, for an invitation), first.
 */
export const NOTIFICATION_STATUSES = ["held", "pending", "delayed", "sent", "failed", "cancelled"] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export const NOTIFICATION_RECIPIENTS = ["contact", "reporter", "member"] as const;
export type NotificationRecipient = (typeof NOTIFICATION_RECIPIENTS)[number];

/**
 * The e-mail outbox: one row per notice to one address, written in the same D1 batch as the change that
 * causes it (src/notifications/outbox.ts), sent from the queue with retries, and kept as the
 * organization's notification log. Never the body.
 */
export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    vulnId: text("vuln_id"),
    contactId: text("contact_id"),
    // The member a member's e-mail (an invitation) is for; not a foreign key, like contact_id: the log outlives the member.
    memberId: text("member_id"),
    // The outbox event it came from: an event makes one e-mail per address and kind, however often it is processed.
    eventId: text("event_id"),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    recipient: text("recipient", { enum: NOTIFICATION_RECIPIENTS }).notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    // What the template needs (names, states, due times), as JSON.
    params: text("params", { mode: "json" }).$type<{ kind: string }>().notNull(),
    // The receipt's link to the report page, or a sign-in e-mail's links, sealed (src/notifications/links.ts), until it is sent.
    sealedLink: text("sealed_link"),
    status: text("status", { enum: NOTIFICATION_STATUSES }).notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: text("next_attempt_at"),
    leaseUntil: text("lease_until"),
    sentAt: text("sent_at"),
    // While an attempt sends it: the place it holds in the hourly limits (taken and counted in one
    // conditional write), given back with the outcome, when sent_at counts it instead.
    reservedAt: text("reserved_at"),
    messageId: text("message_id"),
    ...timestamps,
  },
  (t) => [
    index("notifications_organization_created_at_idx").on(t.organizationId, t.createdAt, t.id),
    index("notifications_organization_status_idx").on(t.organizationId, t.status, t.createdAt, t.id),
    index("notifications_status_next_idx").on(t.status, t.nextAttemptAt),
    // The hourly limits count what went out in the last hour, and what is going out, per organization and per address.
    index("notifications_organization_sent_idx").on(t.organizationId, t.sentAt),
    index("notifications_to_sent_idx").on(t.to, t.sentAt),
    index("notifications_organization_reserved_idx").on(t.organizationId, t.reservedAt),
    index("notifications_to_reserved_idx").on(t.to, t.reservedAt),
    index("notifications_vuln_idx").on(t.vulnId, t.kind),
    uniqueIndex("notifications_event_to_idx").on(t.eventId, t.to, t.kind),
  ],
);

/**
 * Replies that came in by e-mail, by their Message-ID: a message delivered twice adds its comment once.
 * Written in the batch of the comment it made.
 */
export const inboundEmails = sqliteTable("inbound_emails", {
  messageId: text("message_id").primaryKey(),
  vulnId: text("vuln_id").notNull(),
  commentId: text("comment_id").notNull(),
  receivedAt: text("received_at").notNull(),
});

export type NotificationRow = typeof notifications.$inferSelect;
