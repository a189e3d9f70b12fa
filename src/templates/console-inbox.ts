import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { VulnRecord } from "../services/vulns/types";
import { consoleDocument, type Who } from "./console-layout";
import { when } from "./layout";

export interface InboxView {
  who: Who;
  rows: VulnRecord[];
  total: number;
}

/** The inbox: the organization's reports, newest first. */
export function inboxPage({ who, rows, total }: InboxView): string {
  return consoleDocument(
    who,
    "inbox",
    "Inbox",
    html`<h1>Inbox</h1>
<p class="lead">${total} report${total === 1 ? "" : "s"}.</p>
<table class="stack">
<thead><tr><th scope="col">Report</th><th scope="col">Title</th><th scope="col">Triage</th><th scope="col">Received</th></tr></thead>
<tbody>${rows.map(
      (v) => html`<tr><td data-label="Report"><a href="/console/reports/${v.shortcode}">${v.shortcode}</a></td>
<td data-label="Title">${oneLine(v.title)}</td><td data-label="Triage">${v.triageState}</td>
<td data-label="Received">${when(v.createdAt)}</td></tr>`,
    )}</tbody>
</table>`,
  );
}
