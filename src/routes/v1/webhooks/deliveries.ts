import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireOrganizationKey } from "../../../http/auth";
import { collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import type { WebhookDeliveryRow } from "../../../db/schema";
import type { StoredResponse } from "../../../lib/domain-errors";
import { getDelivery, listDeliveries, ping, redeliver } from "../../../services/webhooks";
import { serviceContext, storedResponse } from "../handler-helpers";
import {
  DeliveryParams,
  ListDeliveriesQuery,
  serializeDelivery,
  serializeDeliveryDetail,
  WebhookDelivery,
  WebhookDeliveryDetail,
} from "./schema";

const tags = ["Webhook deliveries"];
// Redelivering and pinging send to the organization's URL: like every webhook write, its key's alone.
const organizationOnly = [requireOrganizationKey("webhook deliveries")];
const writeErrors = errorResponses("write", { access: "organization", scope: "settings" });

/** 202 Accepted: the delivery is queued; Location is where its attempts will show. */
function accepted<T extends { data: { links: { self: string } } }>(c: Context, document: T) {
  c.header("Location", document.data.links.self);
  return respond(c, document, 202);
}

function storedAccepted(c: Context, document: { data: { links: { self: string } } }): StoredResponse {
  return storedResponse(c, document, 202, document.data.links.self);
}

/** How a queued delivery's 202 is kept with an Idempotency-Key. */
const storedDelivery = (c: Context) => (r: WebhookDeliveryRow) => storedAccepted(c, single(serializeDelivery(r)));

export const deliveriesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/deliveries",
      operationId: "listWebhookDeliveries",
      tags,
      summary: "The webhook's delivery log, newest first (kept 30 days)",
      request: { params: IdParam, query: ListDeliveriesQuery },
      responses: {
        200: { description: "Deliveries", content: jsonApiContent(collectionDocument(WebhookDelivery)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listDeliveries(serviceContext(c), c.req.valid("param").id, {
        page,
        sort: query.sort,
        status: query["q[status_eq]"],
      });
      return respond(c, collection(c, rows.map(serializeDelivery), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/deliveries/{delivery_id}",
      operationId: "showWebhookDelivery",
      tags,
      summary: "One delivery with the body sent and every attempt (the receiver's body is never stored)",
      request: { params: DeliveryParams },
      responses: {
        200: { description: "The delivery", content: jsonApiContent(singleDocument(WebhookDeliveryDetail)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const { id, delivery_id } = c.req.valid("param");
      const { delivery, attempts } = await getDelivery(serviceContext(c), id, delivery_id);
      return respond(c, single(serializeDeliveryDetail(delivery, attempts)));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/deliveries/{delivery_id}/redeliver",
      operationId: "redeliverWebhookDelivery",
      tags,
      summary: "Deliver the same event again (same webhook-id and body), as a new delivery (organization key only)",
      middleware: organizationOnly,
      request: { params: DeliveryParams },
      responses: { 202: { description: "Queued", content: jsonApiContent(singleDocument(WebhookDelivery)) }, ...writeErrors },
    }),
    async (c) => {
      const { id, delivery_id } = c.req.valid("param");
      const copy = await redeliver(serviceContext(c, storedDelivery(c)), id, delivery_id);
      return accepted(c, single(serializeDelivery(copy)));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/ping",
      operationId: "pingWebhook",
      tags,
      summary: "Send a Webhook::Ping, even to a disabled webhook (organization key only)",
      description:
        'Sends a Webhook::Ping to the webhook, even a disabled one: a delivery whose body is `{"ping": {"webhook_id": "...", "sent_at": "..."}}`, signed like every other. Needs the organization\'s API key (an operator key gets 403).',
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: { 202: { description: "Queued", content: jsonApiContent(singleDocument(WebhookDelivery)) }, ...writeErrors },
    }),
    async (c) => {
      const delivery = await ping(serviceContext(c, storedDelivery(c)), c.req.valid("param").id);
      return accepted(c, single(serializeDelivery(delivery)));
    },
  );
