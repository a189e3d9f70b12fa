import { createRoute, z } from "@hono/zod-openapi";
import { AUDIT_ACTOR_TYPES, type AuditEventRow } from "../../../db/schema";
import { collection, pageOf, resource, single, toOne } from "../../../http/jsonapi";
import { JSONAPI_MEDIA_TYPE, preferredMediaType, respond } from "../../../http/media-type";
import { collectionDocument, resourceSchema, singleDocument, Timestamp, toOneSchema } from "../../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam, pageQuery, uuidQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { CSV_MEDIA_TYPE, csvDocument } from "../../../lib/csv";
import { LIMITS } from "../../../lib/limits";
import { AUDIT_ACTION_PATTERN, AUDIT_IP_PATTERN, AUDIT_TEXT_LENGTH } from "../../../services/audit";
import { getAuditEvent, listAuditEvents } from "../../../services/audit-events";
import { DateTimeInput } from "../fields";
import { serviceContext } from "../handler-helpers";

// The audit log: every change by anyone (a key, a member, an operator, a reporter, the platform), written
// in the change's own batch, kept 400 days, never changed. Names what changed, never its values.

const Action = z.string().max(64).regex(AUDIT_ACTION_PATTERN);
const Text = z.string().max(AUDIT_TEXT_LENGTH);
/** A record's id: every id of the API is a UUID. */
const Id = z.string().max(36).openapi({ format: "uuid" });
/** A member's or a record type's name, as the API spells them. */
const Name = z
  .string()
  .max(64)
  .regex(/^[a-z_]+$/);

/** The log's filters and pages: the API's query and the console's filter form are checked by this one schema. */
export const ListAuditEventsQuery = z.strictObject({
  ...pageQuery,
  sort: z
    .enum(["-at", "at"])
    .optional()
    .openapi({ param: { name: "sort", in: "query", description: "Newest first (-at, the default) or oldest first." }, example: "-at" }),
  "q[organization_id_eq]": uuidQuery("q[organization_id_eq]").openapi({
    param: {
      name: "q[organization_id_eq]",
      in: "query",
      description: "Operator keys: one organization's log (without it, every organization's and the platform's own).",
    },
  }),
  "q[actor_id_eq]": uuidQuery("q[actor_id_eq]"),
  "q[action_eq]": Action.optional().openapi({ param: { name: "q[action_eq]", in: "query" }, example: "vuln.update" }),
  "q[target_id_eq]": uuidQuery("q[target_id_eq]"),
  "q[at_gteq]": DateTimeInput.optional().openapi({ param: { name: "q[at_gteq]", in: "query" } }),
  "q[at_lteq]": DateTimeInput.optional().openapi({ param: { name: "q[at_lteq]", in: "query" } }),
});

const AuditEvent = resourceSchema(
  "AuditEvent",
  "audit_events",
  z.object({
    at: Timestamp,
    actor: z
      .object({
        type: z.enum(AUDIT_ACTOR_TYPES),
        id: Id.nullable(),
        name: Text.nullable(),
      })
      .openapi({
        description:
          "Who did it: an API key (its id and name), a signed-in member, an operator's key, a reporter (id: their report), or the " +
          "platform itself (system: the cron, the queue, e-mail).",
      }),
    action: Action.openapi({ description: "What was done: `<target type>.<verb>`, e.g. vuln.update, api_key.revoke." }),
    target: z.object({ type: Name, id: Id.nullable() }),
    changed: z
      .array(Name)
      .max(100)
      .nullable()
      .openapi({ description: "The members the change named (names only: never a value, a secret or a body)." }),
    request_id: Id.nullable().openapi({ description: "The request's X-Request-Id; null for the platform's own work." }),
    ip: z
      .string()
      .max(45)
      .regex(AUDIT_IP_PATTERN)
      .nullable()
      .openapi({ description: "The client's address (IPv4 or IPv6), as Cloudflare saw it." }),
    user_agent: Text.nullable(),
  }),
  z.object({ organization: toOneSchema("organization") }),
);

const COLUMNS = [
  "id",
  "at",
  "organization_id",
  "actor_type",
  "actor_id",
  "actor_name",
  "action",
  "target_type",
  "target_id",
  "changed",
  "request_id",
  "ip",
  "user_agent",
] as const;

function serializeAuditEvent(row: AuditEventRow) {
  return resource(
    "audit_events",
    row.id,
    {
      at: row.at,
      actor: { type: row.actorType, id: row.actorId, name: row.actorName },
      action: row.action,
      target: { type: row.targetType, id: row.targetId },
      changed: row.changed,
      request_id: row.requestId,
      ip: row.ip,
      user_agent: row.userAgent,
    },
    `/v1/audit_events/${row.id}`,
    { organization: toOne("organization", row.organizationId) },
  );
}

/** The page as CSV: one record per event; `changed` as its names separated by spaces. The console's download is this too. */
export function csvOf(rows: AuditEventRow[]): string {
  return csvDocument(
    COLUMNS,
    rows.map((r) => [
      r.id,
      r.at,
      r.organizationId,
      r.actorType,
      r.actorId,
      r.actorName,
      r.action,
      r.targetType,
      r.targetId,
      r.changed?.join(" "),
      r.requestId,
      r.ip,
      r.userAgent,
    ]),
  );
}

// A record's longest: its texts at their bounds, each quote doubled, the separators.
const CSV_RECORD_LENGTH = COLUMNS.length * (2 * AUDIT_TEXT_LENGTH + 3);

export const auditEventsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listAuditEvents",
      tags: ["Audit log"],
      summary: "The audit log: every change, who made it, when and from where (JSON:API, or CSV with Accept: text/csv)",
      description:
        "Newest first, by cursor (`page[after]`) or by number. With `Accept: text/csv`, the same page as CSV (RFC 4180, a header " +
        "record; a cell that would start a spreadsheet formula begins with an apostrophe) and the next page's address in `Link`.",
      request: { query: ListAuditEventsQuery },
      responses: {
        200: {
          description: "Audit events",
          headers: {
            Link: {
              description: 'The CSV answer only: the next page, `<...>; rel="next"` (RFC 8288), when there is one.',
              schema: { type: "string", maxLength: 3 * 16_384 + 16, pattern: '^<[^>]+>; rel="next"$' },
            },
          },
          content: {
            ...jsonApiContent(collectionDocument(AuditEvent)),
            [CSV_MEDIA_TYPE]: {
              schema: z
                .string()
                .max((LIMITS.pageSize + 1) * CSV_RECORD_LENGTH)
                .regex(new RegExp(`^${COLUMNS.join(",")}\\r\\n`))
                .openapi({ description: `A header record (${COLUMNS.join(", ")}), then one record per event.` }),
            },
          },
        },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listAuditEvents(serviceContext(c), {
        page,
        sort: query.sort,
        organizationId: query["q[organization_id_eq]"],
        actorId: query["q[actor_id_eq]"],
        action: query["q[action_eq]"],
        targetId: query["q[target_id_eq]"],
        from: query["q[at_gteq]"],
        to: query["q[at_lteq]"],
      });
      const document = collection(c, rows.map(serializeAuditEvent), page, total);
      c.header("Vary", "Accept");
      if (preferredMediaType(c.req.header("accept"), [JSONAPI_MEDIA_TYPE, CSV_MEDIA_TYPE]) === CSV_MEDIA_TYPE) {
        const next = document.links.next;
        return c.body(csvOf(rows), 200, {
          "Content-Type": `${CSV_MEDIA_TYPE}; charset=utf-8; header=present`,
          ...(next && { Link: `<${next}>; rel="next"` }),
        });
      }
      return respond(c, document);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showAuditEvent",
      tags: ["Audit log"],
      summary: "Show one event of the audit log",
      request: { params: IdParam },
      responses: {
        200: { description: "The event", content: jsonApiContent(singleDocument(AuditEvent)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeAuditEvent(await getAuditEvent(serviceContext(c), c.req.valid("param").id)))),
  );
