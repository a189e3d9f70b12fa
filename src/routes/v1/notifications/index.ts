import { createRoute, z } from "@hono/zod-openapi";
import { NOTIFICATION_KINDS, NOTIFICATION_RECIPIENTS, NOTIFICATION_STATUSES, type NotificationRow } from "../../../db/schema";
import { collection, pageOf, resource, single, toOne } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, resourceSchema, singleDocument, Timestamp, toOneSchema } from "../../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam, listQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { getNotification, listNotifications } from "../../../services/notifications";
import { serviceContext } from "../handler-helpers";
import { MAX_ATTEMPTS } from "../../../lib/retry-schedule";
import { SUBJECT_LENGTH } from "../../../notifications/templates";
import { ERROR_LENGTH } from "../../../notifications/send";
import { GATHER_BOUND_MS, GATHER_MS } from "../../../notifications/outbox";
import { LIMITS } from "../../../lib/limits";

// The e-mail log: every e-mail to the organization's contacts, members and reporters, with when, to whom and
// how it went. Never the body: the log is read by whoever holds a key, the body was for its recipient.

const Status = z.enum(NOTIFICATION_STATUSES).openapi({
  description:
    `held: a receipt waiting for its report to be stored; pending: to be sent at next_attempt_at (a notice about a report waits until ` +
    `no other to the same address about it came in the last ${GATHER_MS / 1000} seconds, ${GATHER_BOUND_MS / 60_000} minutes at most ` +
    `after the first, and they go as one e-mail; after a failure, the retry's time); delayed: waiting for an hourly limit ` +
    `(${LIMITS.emailsPerOrganizationHour} e-mails per organization, ${LIMITS.emailsPerRecipientHour} per address) until ` +
    `next_attempt_at, never dropped; sent (the notices that went in one e-mail have the same sent_at); failed: every attempt failed ` +
    `(last_error says why); cancelled: not sent, because its contact or member went or changed (or the member joined before an invitation went), its reporter unsubscribed, or the sign-in link it carried expired first (last_error says which).`,
});

const ListNotificationsQuery = listQuery({
  "q[status_eq]": Status.optional().openapi({ param: { name: "q[status_eq]", in: "query" } }),
});

const Notification = resourceSchema(
  "Notification",
  "notification",
  z.object({
    kind: z.enum(NOTIFICATION_KINDS),
    recipient: z.enum(NOTIFICATION_RECIPIENTS).openapi({
      description:
        "contact: one of the organization's contacts; reporter: a report's reporter; member: one of its members (an invitation, a sign-in link).",
    }),
    to: z.string().max(LIMITS.emailLength).openapi({ format: "email" }),
    subject: z.string().max(SUBJECT_LENGTH),
    status: z.enum(NOTIFICATION_STATUSES),
    attempt_count: z.int().min(0).max(MAX_ATTEMPTS),
    last_error: z.string().max(ERROR_LENGTH).nullable(),
    next_attempt_at: Timestamp.nullable(),
    sent_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({
    organization: toOneSchema("organization"),
    vuln: toOneSchema("vuln"),
    contact: toOneSchema("contact"),
    member: toOneSchema("member"),
  }),
);

function serializeNotification(row: NotificationRow) {
  return resource(
    "notification",
    row.id,
    {
      kind: row.kind,
      recipient: row.recipient,
      to: row.to,
      subject: row.subject,
      status: row.status,
      attempt_count: row.attemptCount,
      last_error: row.lastError,
      next_attempt_at: row.nextAttemptAt,
      sent_at: row.sentAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/notifications/${row.id}`,
    {
      organization: toOne("organization", row.organizationId),
      vuln: toOne("vuln", row.vulnId),
      contact: toOne("contact", row.contactId),
      member: toOne("member", row.memberId),
    },
  );
}

export const notificationsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listNotifications",
      tags: ["Contacts"],
      summary: "The e-mail log: what was sent to the organization's contacts and reporters, when, to whom and how it went (never the body)",
      request: { query: ListNotificationsQuery },
      responses: {
        200: { description: "E-mails, newest first", content: jsonApiContent(collectionDocument(Notification)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listNotifications(serviceContext(c), { page, sort: query.sort, status: query["q[status_eq]"] });
      return respond(c, collection(c, rows.map(serializeNotification), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showNotification",
      tags: ["Contacts"],
      summary: "Show one e-mail of the log (never its body)",
      request: { params: IdParam },
      responses: {
        200: { description: "The e-mail", content: jsonApiContent(singleDocument(Notification)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeNotification(await getNotification(serviceContext(c), c.req.valid("param").id)))),
  );
