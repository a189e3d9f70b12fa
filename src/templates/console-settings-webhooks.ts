import { html } from "hono/html";
import type { WebhookDeliveryRow } from "../db/schema";
import { EVENT_TYPES } from "../events/types";
import { LIMITS } from "../lib/limits";
import { MAX_ATTEMPTS } from "../lib/retry-schedule";
import { oneLine } from "../lib/text";
import type { WebhookRecord } from "../services/webhooks";
import { csrfField, mayConfigure, type Who } from "./console-layout";
import { doneNotice, errorSummary, fieldProblem, type FormState, settingsDocument, textField } from "./console-settings";
import { when } from "./layout";

export const WEBHOOK_LABELS = { name: "Name", url: "URL", trigger_event_types: "Events" };

const state = (w: WebhookRecord) =>
  w.enabled
    ? html`<span class="state met">On</span>`
    : html`<span class="state overdue">Off</span> ${
        w.disabledReason === "gone"
          ? "the receiver answered 410 Gone"
          : w.disabledReason === "failing"
            ? "5 deliveries in a row failed every attempt"
            : "turned off by an owner"
      }`;

const events = (w: WebhookRecord) => (w.eventTypes.length ? w.eventTypes.join(", ") : html`<span class="muted">none</span>`);

export interface WebhooksView {
  who: Who;
  webhooks: WebhookRecord[];
  form: FormState;
  done?: string;
}

const DONE = {
  disabled: "Webhook turned off: nothing is delivered to it until it is turned on.",
  enabled: "Webhook turned on.",
  deleted: "Webhook deleted, with its delivery log.",
};

function webhookActions(who: Who, w: WebhookRecord) {
  const base = `/console/settings/webhooks/${w.id}`;
  const name = oneLine(w.name);
  return html`<div class="actions">
<form method="post" action="${base}/${w.enabled ? "disable" : "enable"}">${csrfField(who)}<button type="submit" class="secondary"
aria-label="${w.enabled ? "Turn off" : "Turn on"} the webhook ${name}">${w.enabled ? "Turn off" : "Turn on"}</button></form>
<form method="post" action="${base}/delete">${csrfField(who)}<button type="submit" class="secondary"
aria-label="Delete the webhook ${name}">Delete</button></form></div>`;
}

/** The webhooks: where they point, what they receive, on or off and why; an owner adds, turns off, deletes. */
export function webhooksPage({ who, webhooks, form, done }: WebhooksView): string {
  const owner = mayConfigure(who);
  const chosen = new Set((form.values.trigger_event_types ?? "").split(" "));
  const eventsProblem = fieldProblem(form, "trigger_event_types");
  return settingsDocument(
    who,
    "webhooks",
    "Webhooks",
    html`${errorSummary(form)}<h1>Webhooks</h1>
<p class="lead">Addresses the platform sends the organization's events to, signed with each webhook's secret.</p>
${doneNotice(done, DONE)}
${
  webhooks.length
    ? html`<table class="stack">
<thead><tr><th scope="col">Webhook</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th>${
        owner ? html`<th scope="col"><span class="muted">Change</span></th>` : ""
      }</tr></thead>
<tbody>${webhooks.map(
        (w) => html`<tr><td data-label="Webhook"><a href="/console/settings/webhooks/${w.id}">${oneLine(w.name)}</a><br>
<span class="muted">delivery log</span></td><td data-label="URL"><code>${w.url}</code></td><td data-label="Events">${events(w)}</td>
<td data-label="State">${state(w)}</td>${owner ? html`<td data-label="Change">${webhookActions(who, w)}</td>` : ""}</tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No webhooks yet.</p>`
}
${
  owner
    ? html`<h2>Add a webhook</h2>
<form method="post" action="/console/settings/webhooks">${csrfField(who)}
${textField(form, { name: "name", label: WEBHOOK_LABELS.name, maxlength: 100, required: true })}
${textField(form, {
  name: "url",
  label: WEBHOOK_LABELS.url,
  type: "url",
  hint: "An https address on a public host (port 443 or 8443).",
  maxlength: LIMITS.urlLength,
  required: true,
})}
<fieldset class="check" id="trigger_event_types"><legend>${WEBHOOK_LABELS.trigger_event_types}: what the webhook receives</legend>
${eventsProblem.message}${EVENT_TYPES.map(
  (t) => html`<label><input type="checkbox" name="trigger_event_types" value="${t.id}"${chosen.has(t.id) ? " checked" : ""}>
${t.short_name}</label>`,
)}</fieldset>
<button type="submit">Add the webhook</button>
</form>
<p class="muted">At most ${LIMITS.webhooksPerOrganization} webhooks. The new webhook's signing secret is shown once, on the next page.</p>`
    : ""
}`,
  );
}

/** The answer to a new webhook: its signing secret, shown on this page only. */
export function webhookCreatedPage({ who, webhook, secret }: { who: Who; webhook: WebhookRecord; secret: string }): string {
  return settingsDocument(
    who,
    "webhooks",
    "Webhook added",
    html`<h1>Webhook added</h1>
<p class="lead">${oneLine(webhook.name)} sends ${webhook.eventTypes.length ? webhook.eventTypes.join(", ") : "no events yet"} to
<code>${webhook.url}</code>.</p>
<div class="warning"><h2>Its signing secret, shown this once</h2>
<p>Copy it now into the receiver, which checks each delivery's signature with it. It is not shown again: if it is lost, rotate the
secret through the API.</p>
<p><code id="secret">${secret}</code></p></div>
<p><a href="/console/settings/webhooks/${webhook.id}">The webhook's delivery log</a> ·
<a href="/console/settings/webhooks">All webhooks</a></p>`,
  );
}

const deliveryState = (d: WebhookDeliveryRow) =>
  d.status === "succeeded"
    ? html`<span class="state met">Delivered</span>`
    : d.status === "failed"
      ? html`<span class="state overdue">Failed</span> every attempt was refused or went unanswered`
      : html`<span class="state soon">Pending</span>${d.nextAttemptAt ? html` next attempt ${when(d.nextAttemptAt)}` : " being sent"}`;

export interface DeliveriesView {
  who: Who;
  webhook: WebhookRecord;
  deliveries: WebhookDeliveryRow[];
  total: number;
  links: { prev: string | null; next: string | null };
  done?: string;
}

/** A webhook's delivery log, newest first: each delivery's event, state in words, attempts; redeliver for owners. */
export function deliveriesPage({ who, webhook, deliveries, total, links, done }: DeliveriesView): string {
  const owner = mayConfigure(who);
  return settingsDocument(
    who,
    "webhooks",
    `Webhook ${oneLine(webhook.name)}`,
    html`<h1>Webhook ${oneLine(webhook.name)}</h1>
<dl class="terms"><dt>URL</dt><dd><code>${webhook.url}</code></dd><dt>Events</dt><dd>${events(webhook)}</dd>
<dt>State</dt><dd>${state(webhook)}</dd><dt>Added</dt><dd>${when(webhook.createdAt)}</dd></dl>
${doneNotice(done, { redelivered: "Queued to be delivered again, as a new delivery of the same event." })}
<h2>Deliveries</h2>
<p>${total} deliver${total === 1 ? "y" : "ies"} in the last 30 days, newest first.</p>
${
  deliveries.length
    ? html`<table class="stack">
<thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last answer</th>
<th scope="col">Created</th>${owner ? html`<th scope="col"><span class="muted">Again</span></th>` : ""}</tr></thead>
<tbody>${deliveries.map(
        (d) => html`<tr><td data-label="Event">${d.eventType}${d.redeliveryOf ? html` <span class="muted">(redelivery)</span>` : ""}</td>
<td data-label="State">${deliveryState(d)}</td><td data-label="Attempts">${d.attemptCount} of ${MAX_ATTEMPTS}</td>
<td data-label="Last answer">${d.lastStatusCode === null ? "none yet" : `HTTP ${d.lastStatusCode}`}</td>
<td data-label="Created">${when(d.createdAt)}</td>${
          owner
            ? html`<td data-label="Again"><form method="post"
action="/console/settings/webhooks/${webhook.id}/deliveries/${d.id}/redeliver">${csrfField(
                who,
              )}<button type="submit" class="secondary" aria-label="Redeliver the ${d.eventType} of ${when(d.createdAt)}">Redeliver</button>
</form></td>`
            : ""
        }</tr>`,
      )}</tbody></table>`
    : html`<p class="muted">Nothing delivered in the last 30 days.</p>`
}
<nav class="actions" aria-label="Pages of deliveries">${links.prev ? html`<a href="${links.prev}">Newer deliveries</a>` : ""}${
      links.next ? html`<a href="${links.next}">Older deliveries</a>` : ""
    }</nav>`,
  );
}
