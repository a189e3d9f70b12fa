import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { VulnRecord } from "../services/vulns/types";
import { consoleDocument, csrfField, type Who } from "./console-layout";
import { TRIAGE_LABELS } from "./console-words";

// The bulk change's confirmation page (what would change, on which reports; nothing has yet), and
// what it did once confirmed.

export interface BulkView {
  who: Who;
  ids: string[];
  change: string;
  /** The change in words, e.g. "Move them to Spam". */
  words: string;
  reason: string;
  rows: VulnRecord[];
  error?: string;
}

const list = (rows: VulnRecord[]) =>
  html`<ul>${rows.map(
    (r) => html`<li><a href="/console/reports/${r.shortcode}">${r.shortcode}</a>: ${oneLine(r.title)}
(${TRIAGE_LABELS[r.triageState]})</li>`,
  )}</ul>`;

export function bulkConfirmPage(v: BulkView): string {
  return consoleDocument(
    v.who,
    "inbox",
    "Confirm the change",
    html`<h1>Confirm the change</h1>
${v.error ? html`<div class="error-summary" role="alert"><p>${v.error}</p></div>` : ""}
<p class="lead">${v.words}: ${v.rows.length} report${v.rows.length === 1 ? "" : "s"}. Nothing has changed yet.</p>
${list(v.rows)}
${v.reason ? html`<p>Reason, kept as an internal note on each report: <q>${v.reason}</q></p>` : ""}
<form method="post" action="/console/bulk/apply">
${csrfField(v.who)}
${v.rows.map((r) => html`<input type="hidden" name="id" value="${r.id}">`)}
<input type="hidden" name="change" value="${v.change}">
<input type="hidden" name="reason" value="${v.reason}">
<div class="actions"><button type="submit">${v.words}</button> <a href="/console">Back to the inbox, changing nothing</a></div>
</form>`,
  );
}

export function bulkDonePage(who: Who, words: string, rows: VulnRecord[], changed: number): string {
  return consoleDocument(
    who,
    "inbox",
    "Changed",
    html`<h1>Done</h1>
<p class="lead" role="status">${words}: ${changed} of ${rows.length} report${rows.length === 1 ? "" : "s"} changed${
      changed < rows.length ? " (the others already were so)" : ""
    }.</p>
${list(rows)}
<p><a href="/console">Back to the inbox</a></p>`,
  );
}

/** The bulk form's choice, in words. */
export function bulkWords(change: string, members: ReadonlyMap<string, string>): string | null {
  if (change === "read") return "Mark them read";
  const [kind, value = ""] = [change.slice(0, change.indexOf(":")), change.slice(change.indexOf(":") + 1)];
  if (kind === "state" && value in TRIAGE_LABELS) return `Move them to ${TRIAGE_LABELS[value as keyof typeof TRIAGE_LABELS]}`;
  if (kind === "assign" && value === "") return "Assign them to nobody";
  if (kind === "assign" && members.has(value)) return `Assign them to ${members.get(value)}`;
  return null;
}
