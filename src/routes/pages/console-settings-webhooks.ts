import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import {
  createWebhook,
  deleteWebhook,
  eventTypesFromIds,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
} from "../../services/webhooks";
import { emptyForm, type FormState } from "../../templates/console-settings";
import { deliveriesPage, WEBHOOK_LABELS, webhookCreatedPage, webhooksPage } from "../../templates/console-settings-webhooks";
import { serviceContext } from "../v1/handler-helpers";
import { webhookUrlCheck } from "../v1/webhooks";
import { WebhookAttributesInput } from "../v1/webhooks/schema";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";
import { checkedBy, cursorLinks, cursorPage, refusedFields } from "./console-settings-form";
import { formOf } from "./console-shell";

/**
 * /console/settings/webhooks: the webhooks API's list, create (the secret shown on the answer page, as
 * the API shows it once), turn off and on, delete; a webhook's delivery log with redeliver.
 */
export const consoleWebhooksRouter = new Hono<AppEnv>();

const PATH = "/console/settings/webhooks";
const DELIVERIES_PER_PAGE = 25;

async function render(c: Context<AppEnv>, form: FormState, status: 200 | 422 = 200) {
  const { rows } = await listWebhooks(serviceContext(c), { page: { number: 1, size: 100 }, sort: "created_at" });
  return page(c, webhooksPage({ who: await whoOf(c), webhooks: rows, form, done: c.req.query("done") }), status);
}

consoleWebhooksRouter.get(PATH, signedIn("page"), (c) => render(c, emptyForm()));

consoleWebhooksRouter.post(PATH, signedIn("page"), async (c) => {
  const fields = await formOf(c);
  const values = { name: fields.field("name"), url: fields.field("url").trim() };
  const chosen = fields.all("trigger_event_types");
  const form = (errors: FormState["errors"], summary?: string[]): FormState => ({
    values: { ...values, trigger_event_types: chosen.join(" ") },
    errors,
    summary,
  });
  const checked = checkedBy(WebhookAttributesInput, values, WEBHOOK_LABELS);
  const url = webhookUrlCheck(c, values.url);
  if (!checked.ok || !url.ok) {
    const errors = checked.ok ? {} : checked.errors;
    if (!url.ok && !errors.url) errors.url = [`${WEBHOOK_LABELS.url} ${url.reason}.`];
    return render(c, form(errors), 422);
  }
  let created: Awaited<ReturnType<typeof createWebhook>>;
  try {
    const eventTypes = eventTypesFromIds(chosen);
    created = await createWebhook(serviceContext(c), { ...checked.value, url: url.url }, { eventTypes });
  } catch (err) {
    const refused = refusedFields(err, WEBHOOK_LABELS);
    return render(c, form(refused.errors, refused.summary), 422);
  }
  // The secret is in this answer only (the console's pages are never stored: no-store).
  return page(c, webhookCreatedPage({ who: await whoOf(c), webhook: created, secret: created.secret }), 201);
});

for (const [verb, enabled] of [
  ["disable", false],
  ["enable", true],
] as const) {
  consoleWebhooksRouter.post(`${PATH}/:id/${verb}`, signedIn("page"), async (c) => {
    await updateWebhook(serviceContext(c), c.req.param("id"), { input: { enabled }, eventTypes: undefined });
    return c.redirect(`${PATH}?done=${verb}d`, 303);
  });
}

consoleWebhooksRouter.post(`${PATH}/:id/delete`, signedIn("page"), async (c) => {
  await deleteWebhook(serviceContext(c), c.req.param("id"));
  return c.redirect(`${PATH}?done=deleted`, 303);
});

consoleWebhooksRouter.get(`${PATH}/:id`, signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const id = c.req.param("id");
  const webhook = await getWebhook(ctx, id);
  const list = cursorPage(c, DELIVERIES_PER_PAGE);
  const { rows, total } = await listDeliveries(ctx, id, { page: list });
  return page(
    c,
    deliveriesPage({ who: await whoOf(c), webhook, deliveries: rows, total, links: cursorLinks(c, list), done: c.req.query("done") }),
  );
});

consoleWebhooksRouter.post(`${PATH}/:id/deliveries/:delivery/redeliver`, signedIn("page"), async (c) => {
  const id = c.req.param("id");
  await redeliver(serviceContext(c), id, c.req.param("delivery"));
  return c.redirect(`${PATH}/${id}?done=redelivered`, 303);
});
