import { html } from "hono/html";
import type { AuditEventRow } from "../db/schema";
import { oneLine } from "../lib/text";
import type { Who } from "./console-layout";
import { errorSummary, type FieldErrors, settingsDocument, textField } from "./console-settings";
import { when } from "./layout";

export interface AuditFilters {
  actor: string;
  action: string;
  target: string;
  from: string;
  to: string;
}

export const AUDIT_LABELS: Record<keyof AuditFilters, string> = {
  actor: "Who",
  action: "Action",
  target: "Target id",
  from: "From",
  to: "To",
};

export interface AuditView {
  who: Who;
  filters: AuditFilters;
  errors: FieldErrors;
  actors: { id: string; label: string }[];
  events: AuditEventRow[];
  total: number;
  links: { prev: string | null; next: string | null };
  csv: string;
}

const ACTOR_WORDS: Record<AuditEventRow["actorType"], string> = {
  api_key: "API key",
  member: "member",
  operator: "operator",
  reporter: "reporter",
  system: "the platform",
};

const filtered = (name: string, value: string) => `/console/settings/audit?${new URLSearchParams({ [name]: value }).toString()}`;

function actorCell(e: AuditEventRow) {
  const words = ACTOR_WORDS[e.actorType] ?? e.actorType;
  const name = e.actorName ? oneLine(e.actorName) : words;
  return e.actorId
    ? html`<a href="${filtered("actor", e.actorId)}">${name}</a>${e.actorName ? html` <span class="muted">(${words})</span>` : ""}`
    : html`${name}`;
}

/** The audit log: filters in a GET form, a page of events newest first, the pages around it, the page as CSV. */
export function auditPage({ who, filters, errors, actors, events, total, links, csv }: AuditView): string {
  const form = { values: { ...filters }, errors };
  const known = actors.some((a) => a.id === filters.actor);
  return settingsDocument(
    who,
    "audit",
    "Audit log",
    html`${errorSummary(form)}<h1>Audit log</h1>
<p class="lead">Every change to the organization's records: who made it, when and from where. Kept 400 days, never changed.</p>
<form method="get" action="/console/settings/audit" class="toolbar" aria-label="Filter the audit log">
<div class="field"><label for="actor">${AUDIT_LABELS.actor}</label>${
      errors.actor ? html`<span class="message" id="actor-error">${errors.actor.join(" ")}</span>` : ""
    }<select id="actor" name="actor"${errors.actor ? html` aria-invalid="true" aria-describedby="actor-error"` : ""}>
<option value="">Anyone</option>${
      known || !filters.actor ? "" : html`<option value="${filters.actor}" selected>${filters.actor}</option>`
    }${actors.map(
      (a) => html`<option value="${a.id}"${a.id === filters.actor ? " selected" : ""}>${oneLine(a.label)}</option>`,
    )}</select></div>
${textField(form, { name: "action", label: AUDIT_LABELS.action, hint: "e.g. member.update", maxlength: 64 })}
${textField(form, { name: "target", label: AUDIT_LABELS.target, hint: "The changed record's id", maxlength: 36 })}
${textField(form, { name: "from", label: `${AUDIT_LABELS.from} (UTC)`, type: "datetime-local" })}
${textField(form, { name: "to", label: `${AUDIT_LABELS.to} (UTC)`, type: "datetime-local" })}
<button type="submit">Show</button> <a href="/console/settings/audit">Clear the filters</a>
</form>
<p>${total} event${total === 1 ? "" : "s"}${Object.values(filters).some(Boolean) ? " match" : ""}, newest first.
<a href="${csv}" download>This page as CSV</a></p>
${
  events.length
    ? html`<table class="stack">
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th>
<th scope="col">Changed</th><th scope="col">From</th></tr></thead>
<tbody>${events.map(
        (e) => html`<tr><td data-label="When">${when(e.at)}</td><td data-label="Who">${actorCell(e)}</td>
<td data-label="Action"><a href="${filtered("action", e.action)}"><code>${e.action}</code></a></td>
<td data-label="Target">${e.targetType}${
          e.targetId ? html` <a href="${filtered("target", e.targetId)}"><code>${e.targetId}</code></a>` : ""
        }</td>
<td data-label="Changed">${e.changed?.length ? e.changed.join(", ") : html`<span class="muted">-</span>`}</td>
<td data-label="From">${e.ip ? html`<code>${e.ip}</code>` : html`<span class="muted">-</span>`}${
          e.userAgent ? html`<br><span class="muted">${oneLine(e.userAgent)}</span>` : ""
        }</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No events${Object.values(filters).some(Boolean) ? " match these filters" : ""}.</p>`
}
<nav class="actions" aria-label="Pages of the audit log">${links.prev ? html`<a href="${links.prev}">Newer events</a>` : ""}${
      links.next ? html`<a href="${links.next}">Older events</a>` : ""
    }</nav>`,
  );
}
