import { createRoute, z } from "@hono/zod-openapi";
import { EVENT_TYPES, eventName } from "../../../events/types";
import { ApiError } from "../../../http/errors";
import { collection, pageOf, resource, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, resourceSchema, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam, pageQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { pageInMemory } from "../../../services/list-pages";

const TriggerEventType = resourceSchema(
  "TriggerEventType",
  "trigger_event_type",
  z.object({
    name: z.enum(EVENT_TYPES.map((e) => eventName(e.short_name))).openapi({ example: "Events::Vuln::Created" }),
    short_name: z.enum(EVENT_TYPES.map((e) => e.short_name)).openapi({ example: "Vuln::Created" }),
  }),
  z.object({}),
);

function serializeEventType(t: (typeof EVENT_TYPES)[number]) {
  return resource(
    "trigger_event_type",
    t.id,
    { name: eventName(t.short_name), short_name: t.short_name },
    `/v1/webhook_event_types/${t.id}`,
  );
}

export const webhookEventTypesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listWebhookEventTypes",
      tags: ["Webhooks"],
      summary: "The event types a webhook can subscribe to; their ids never change",
      request: { query: z.strictObject({ ...pageQuery }) },
      responses: {
        200: { description: "Event types, in a fixed order", content: jsonApiContent(collectionDocument(TriggerEventType)) },
        ...errorResponses("read"),
      },
    }),
    async (c) => {
      const page = pageOf(c.req.valid("query"));
      const { rows, total } = pageInMemory(EVENT_TYPES, page);
      return respond(c, collection(c, rows.map(serializeEventType), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showWebhookEventType",
      tags: ["Webhooks"],
      summary: "One event type",
      request: { params: IdParam },
      responses: {
        200: { description: "The event type", content: jsonApiContent(singleDocument(TriggerEventType)) },
        ...errorResponses("read"),
      },
    }),
    async (c) => {
      const type = EVENT_TYPES.find((t) => t.id === c.req.valid("param").id);
      if (!type) throw new ApiError("not_found", { detail: "No event type has that id." });
      return respond(c, single(serializeEventType(type)));
    },
  );
