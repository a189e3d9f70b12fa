import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../http/app-env";
import { requireOrganizationKey } from "../../../http/auth";
import { invalid } from "../../../http/errors";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import {
  createWebhook,
  deleteWebhook,
  eventTypesFromIds,
  getWebhook,
  listWebhooks,
  rotateSecret,
  updateWebhook,
  type WebhookRecord,
} from "../../../services/webhooks";
import { checkWebhookUrl } from "../../../webhooks/url";
import { created, noContent, serviceContext, storedCreated, storedResponse } from "../handler-helpers";
import { deliveriesRouter } from "./deliveries";
import {
  CreateWebhookInput,
  ListWebhooksQuery,
  serializeWebhook,
  UpdateWebhookInput,
  Webhook,
  WebhookWithSecret,
  withSecret,
} from "./schema";

const tags = ["Webhooks"];
// A webhook sends report text to its URL and signs with its secret: operators read them, never change them.
const organizationOnly = [requireOrganizationKey("webhooks")];
const writeErrors = errorResponses("write", { access: "organization", scope: "settings" });

/** The rules for webhook URLs; loopback only where the dev configuration allows it. The console's form is checked by this too. */
export const webhookUrlCheck = (c: Pick<Context<AppEnv>, "env">, url: string) =>
  checkWebhookUrl(url, { allowLoopback: c.env.DEV_ALLOW_LOOPBACK_WEBHOOKS === "true" });

function checkedUrl(c: Context<AppEnv>, url: string): string {
  const check = webhookUrlCheck(c, url);
  if (!check.ok) throw invalid("/data/attributes/url", `url ${check.reason}.`);
  return check.url;
}

export const webhooksRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listWebhooks",
      tags,
      summary: "List webhooks",
      request: { query: ListWebhooksQuery },
      responses: {
        200: { description: "Webhooks", content: jsonApiContent(collectionDocument(Webhook)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listWebhooks(serviceContext(c), { page, sort: query.sort, enabled: query["q[enabled_eq]"] });
      return respond(c, collection(c, rows.map(serializeWebhook), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showWebhook",
      tags,
      summary: "Show a webhook (never its secret)",
      request: { params: IdParam },
      responses: {
        200: { description: "The webhook", content: jsonApiContent(singleDocument(Webhook)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeWebhook(await getWebhook(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createWebhook",
      tags,
      summary: "Create a webhook; the response shows its signing secret, once (organization key only)",
      middleware: organizationOnly,
      request: { body: jsonApiBody(CreateWebhookInput) },
      responses: {
        201: { description: "Created, with the secret", content: jsonApiContent(singleDocument(WebhookWithSecret)) },
        ...writeErrors,
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "webhook");
      const url = checkedUrl(c, data.attributes.url);
      const eventTypes = eventTypesFromIds(data.relationships.trigger_event_types.data.map((t) => t.id));
      // A replay cannot show the secret again; the stored response says secret: null.
      const stored = (r: WebhookRecord) => storedCreated(c, single(withSecret(r, null)));
      const record = await createWebhook(
        serviceContext(c, stored),
        { ...data.attributes, url },
        { organizationId: data.relationships.organization?.data.id, eventTypes },
      );
      return created(c, single(withSecret(record, record.secret)));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateWebhook",
      tags,
      summary: "Update a webhook; enabled: true turns a disabled one back on (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam, body: jsonApiBody(UpdateWebhookInput) },
      responses: { 200: { description: "Updated", content: jsonApiContent(singleDocument(Webhook)) }, ...writeErrors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "webhook", id);
      const url = data.attributes.url === undefined ? undefined : checkedUrl(c, data.attributes.url);
      const eventTypes = data.relationships?.trigger_event_types
        ? eventTypesFromIds(data.relationships.trigger_event_types.data.map((t) => t.id))
        : undefined;
      const record = await updateWebhook(serviceContext(c), id, { input: { ...data.attributes, url }, eventTypes });
      return respond(c, single(serializeWebhook(record)));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteWebhook",
      tags,
      summary: "Delete a webhook and its delivery log (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses("read", { access: "organization", scope: "settings" }) },
    }),
    async (c) => {
      await deleteWebhook(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/rotate_secret",
      operationId: "rotateWebhookSecret",
      tags,
      summary: "Make a new signing secret; the old one keeps signing beside it for 24 hours (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: {
        200: { description: "The webhook with its new secret", content: jsonApiContent(singleDocument(WebhookWithSecret)) },
        ...writeErrors,
      },
    }),
    async (c) => {
      const stored = (r: WebhookRecord) => storedResponse(c, single(withSecret(r, null)), 200);
      const record = await rotateSecret(serviceContext(c, stored), c.req.valid("param").id);
      return respond(c, single(withSecret(record, record.secret)));
    },
  );

webhooksRouter.route("/", deliveriesRouter);
