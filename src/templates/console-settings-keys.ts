import { html } from "hono/html";
import type { ApiKeyRow } from "../db/schema";
import { ALL_SCOPES, type Scope } from "../lib/caller";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import { csrfField, mayConfigure, type Who } from "./console-layout";
import { doneNotice, errorSummary, fieldProblem, type FormState, settingsDocument, textField } from "./console-settings";
import { when } from "./layout";

export const KEY_LABELS = { name: "Name", scopes: "Scopes", expires_at: "Expires" };

export const SCOPE_WORDS: Record<Scope, string> = {
  read: "read: reads everything of the organization",
  vulns: "vulns: changes reports, comments, files and regulatory reports",
  advisories: "advisories: drafts and publishes advisories",
  settings: "settings: changes policies, briefs, assets, contacts, webhooks and canned responses",
  members: "members: changes members and API keys",
};

const keyState = (k: ApiKeyRow, now: string) =>
  k.revokedAt
    ? html`<span class="state overdue">Revoked</span> ${when(k.revokedAt)}`
    : k.expiresAt && k.expiresAt <= now
      ? html`<span class="state overdue">Expired</span> ${when(k.expiresAt)}`
      : k.expiresAt
        ? html`<span class="state met">Works</span> until ${when(k.expiresAt)}`
        : html`<span class="state met">Works</span> never expires`;

export interface KeysView {
  who: Who;
  keys: ApiKeyRow[];
  total: number;
  now: string;
  form: FormState;
  done?: string;
}

/** The organization's keys: name, prefix, scopes, expiry, where last used from; an owner makes and revokes them. */
export function keysPage({ who, keys, total, now, form, done }: KeysView): string {
  const owner = mayConfigure(who);
  const ticked = new Set((form.values.scopes ?? "").split(" "));
  const scopes = fieldProblem(form, "scopes");
  return settingsDocument(
    who,
    "api-keys",
    "API keys",
    html`${errorSummary(form)}<h1>API keys</h1>
<p class="lead">Keys for the organization's scripts and tools to call the API. A key is shown once, when it is made; only its first
characters are kept to tell it apart.</p>
${doneNotice(done, { revoked: "Key revoked: it stopped working at once." })}
${
  keys.length
    ? html`<table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">Scopes</th><th scope="col">State</th>
<th scope="col">Last used from</th>${owner ? html`<th scope="col"><span class="muted">Revoke</span></th>` : ""}</tr></thead>
<tbody>${keys.map(
        (k) => html`<tr><td data-label="Name">${k.name ? oneLine(k.name) : html`<span class="muted">no name</span>`}<br>
<span class="muted">made ${when(k.createdAt)}</span></td><td data-label="Starts with"><code>${k.keyPrefix}</code></td>
<td data-label="Scopes">${(k.scopes ?? ALL_SCOPES).join(", ")}</td><td data-label="State">${keyState(k, now)}</td>
<td data-label="Last used from">${k.lastUsedIp ? html`<code>${k.lastUsedIp}</code>` : "not used yet"}</td>${
          owner
            ? html`<td data-label="Revoke">${
                k.revokedAt
                  ? ""
                  : html`<form method="post" action="/console/settings/api-keys/${k.id}/revoke">${csrfField(who)}<button type="submit"
class="secondary" aria-label="Revoke the key ${k.name ? oneLine(k.name) : k.keyPrefix}">Revoke</button></form>`
              }</td>`
            : ""
        }</tr>`,
      )}</tbody></table>
${total > keys.length ? html`<p class="muted">The ${keys.length} newest of ${total} keys.</p>` : ""}`
    : html`<p class="muted">No API keys yet.</p>`
}
<p class="muted">The platform notes the address a key was last used from (and the audit log each new one), not each use.</p>
${
  owner
    ? html`<h2>Make a key</h2>
<form method="post" action="/console/settings/api-keys">${csrfField(who)}
${textField(form, {
  name: "name",
  label: `${KEY_LABELS.name} (optional)`,
  hint: 'What the key is for, e.g. "Ticket sync".',
  maxlength: LIMITS.nameLength,
})}
<fieldset class="check" id="scopes"><legend>${KEY_LABELS.scopes}: what the key may do</legend>${scopes.message}
${ALL_SCOPES.map(
  (s) => html`<label><input type="checkbox" name="scopes" value="${s}"${ticked.has(s) ? " checked" : ""}>${SCOPE_WORDS[s]}</label>`,
)}</fieldset>
${textField(form, {
  name: "expires_at",
  label: `${KEY_LABELS.expires_at} (optional, UTC)`,
  type: "datetime-local",
  hint: "When the key stops working. Left empty, it works until revoked.",
})}
<button type="submit">Make the key</button>
</form>`
    : ""
}`,
  );
}

/** The answer to a new key: the key itself, on this page only. */
export function keyMadePage({ who, record, key }: { who: Who; record: ApiKeyRow; key: string }): string {
  return settingsDocument(
    who,
    "api-keys",
    "Key made",
    html`<h1>Key made</h1>
<p class="lead">${record.name ? oneLine(record.name) : "The new key"}, with the scopes ${(record.scopes ?? ALL_SCOPES).join(", ")}${
      record.expiresAt ? html`, works until ${when(record.expiresAt)}` : ", works until revoked"
    }.</p>
<div class="warning"><h2>The key, shown this once</h2>
<p>Copy it now to where it will be used: it is not kept here and is never shown again. Lost, it is revoked and a new one made.</p>
<p><code id="new-key">${key}</code></p></div>
<p><a href="/console/settings/api-keys">All API keys</a></p>`,
  );
}
