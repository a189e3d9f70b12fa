import { html } from "hono/html";
import { SEVERITIES, TRIAGE_STATES, type Severity, type TriageState } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import type { InboxView, ViewCount } from "../services/inbox";
import type { VulnRecord } from "../services/vulns/types";
import { consoleDocument, csrfField, mayWork, type Who } from "./console-layout";
import { nextDeadline, SEVERITY_LABELS, TRIAGE_LABELS } from "./console-words";
import { type Html, when } from "./layout";

// The inbox: the views as tabs with their counts, a search and filters (a GET form), the reports as a
// table that stacks on a phone, cursor pages, and the bulk change's first step (a POST that only
// shows what would change; the confirmation page applies it).

export const VIEW_LABELS: Record<InboxView, string> = {
  new: "New",
  needs_triage: "Needs triage",
  awaiting_reporter: "Awaiting reporter",
  due: "Overdue or due in 24 hours",
  mine: "Assigned to me",
  open: "All open",
  closed: "Closed",
};

export const INBOX_SORTS = {
  next_due_at: "Next due first",
  "-severity": "Most severe first",
  "-last_activity_at": "Latest activity first",
  "-created_at": "Newest first",
  created_at: "Oldest first",
} as const;
export type InboxSort = keyof typeof INBOX_SORTS;

/** What the inbox was asked for, as its links and forms keep it. */
export interface InboxQuery {
  view: InboxView;
  sort: InboxSort;
  search: string;
  briefId: string;
  severity: Severity | "";
  state: TriageState | "";
}

export interface InboxPageView {
  who: Who;
  query: InboxQuery;
  counts: Record<InboxView, ViewCount>;
  rows: VulnRecord[];
  total: number;
  /** Cursors of the neighbouring pages (null at an end). */
  next: string | null;
  prev: string | null;
  briefs: { id: string; name: string }[];
  members: { id: string; name: string }[];
  now: number;
}

/** The inbox's address for a query (defaults left out), on a cursor. */
export function inboxHref(q: Partial<InboxQuery>, cursor?: { after?: string; before?: string }): string {
  const params = new URLSearchParams();
  if (q.view && q.view !== "new") params.set("view", q.view);
  if (q.sort) params.set("sort", q.sort);
  if (q.search) params.set("q", q.search);
  if (q.briefId) params.set("brief", q.briefId);
  if (q.severity) params.set("severity", q.severity);
  if (q.state) params.set("state", q.state);
  if (cursor?.after) params.set("after", cursor.after);
  if (cursor?.before) params.set("before", cursor.before);
  const text = params.toString();
  return text ? `/console?${text}` : "/console";
}

/** What the gate says of a report, beside its code: the triager's first sort of the inbox. Never shown to the reporter. */
export function gateBadges(r: VulnRecord): Html {
  return html`${r.gate === "unverified" ? html` <span class="badge">Unverified</span>` : ""}${
    r.possibleDuplicateOfId ? html` <span class="badge">Possible duplicate</span>` : ""
  }${
    r.inboxState === "queued" ? html` <span class="badge">Queued${r.releaseExpectedOn ? ` until ${r.releaseExpectedOn}` : ""}</span>` : ""
  }`;
}

const countWords = (c: ViewCount) => `${c.count}${c.more ? "+" : ""}`;

function options<T extends string>(values: readonly T[], labels: Record<T, string>, chosen: string, none: string): Html {
  return html`<option value=""${chosen === "" ? " selected" : ""}>${none}</option>${values.map(
    (v) => html`<option value="${v}"${v === chosen ? " selected" : ""}>${labels[v]}</option>`,
  )}`;
}

export function inboxPage(v: InboxPageView): string {
  const q = v.query;
  const names = new Map(v.members.map((m) => [m.id, m.name]));
  const tabs = html`<nav aria-label="Views"><ul class="tabs">${(Object.keys(VIEW_LABELS) as InboxView[]).map(
    (view) => html`<li><a href="${inboxHref({ view })}"${view === q.view ? html` aria-current="page"` : ""}>${VIEW_LABELS[view]}
<span class="count">(${countWords(v.counts[view])})</span></a></li>`,
  )}</ul></nav>`;
  const filters = html`<form method="get" action="/console" class="toolbar" role="search" aria-label="Search and filter">
<input type="hidden" name="view" value="${q.view}">
<div class="field"><label for="q">Search</label>
<input type="search" id="q" name="q" value="${q.search}" maxlength="${LIMITS.searchLength}" spellcheck="false"></div>
<div class="field"><label for="brief">Brief</label><select id="brief" name="brief"><option value="">Any brief</option>${v.briefs.map(
    (b) => html`<option value="${b.id}"${b.id === q.briefId ? " selected" : ""}>${oneLine(b.name)}</option>`,
  )}</select></div>
<div class="field"><label for="severity">Severity</label><select id="severity" name="severity">${options(
    SEVERITIES,
    SEVERITY_LABELS,
    q.severity,
    "Any severity",
  )}</select></div>
<div class="field"><label for="state">State</label><select id="state" name="state">${options(
    TRIAGE_STATES,
    TRIAGE_LABELS,
    q.state,
    "Any state",
  )}</select></div>
<div class="field"><label for="sort">Order</label><select id="sort" name="sort">${(Object.keys(INBOX_SORTS) as InboxSort[]).map(
    (s) => html`<option value="${s}"${s === q.sort ? " selected" : ""}>${INBOX_SORTS[s]}</option>`,
  )}</select></div>
<button type="submit" class="secondary">Show</button>
</form>`;
  const selectable = mayWork(v.who);
  const table = html`<table class="stack inbox">
<caption class="muted">${v.total} report${v.total === 1 ? "" : "s"} in ${VIEW_LABELS[q.view]}${
    q.search || q.briefId || q.severity || q.state ? ", filtered" : ""
  }.</caption>
<thead><tr>${selectable ? html`<th scope="col"><span class="visually-hidden">Select</span></th>` : ""}<th scope="col">Report</th>
<th scope="col">Title</th><th scope="col">Severity</th><th scope="col">State</th><th scope="col">Next deadline</th>
<th scope="col">Last activity</th><th scope="col">Assignee</th></tr></thead>
<tbody>${v.rows.map((r) => {
    const due = nextDeadline(r, v.now);
    return html`<tr${r.readAt ? "" : html` class="unread"`}>${
      selectable
        ? html`<td><input type="checkbox" name="id" value="${r.id}" form="bulk" id="select-${r.id}"
aria-label="Select ${r.shortcode}"></td>`
        : ""
    }
<td data-label="Report"><a href="/console/reports/${r.shortcode}">${r.shortcode}</a>${
      r.readAt ? "" : html` <span class="badge">Unread</span>`
    }${gateBadges(r)}</td>
<td data-label="Title">${oneLine(r.title)}</td>
<td data-label="Severity">${r.severity ? SEVERITY_LABELS[r.severity] : html`<span class="muted">Not rated</span>`}</td>
<td data-label="State">${TRIAGE_LABELS[r.triageState]}</td>
<td data-label="Next deadline">${
      due ? html`<span class="state ${due.urgency}">${due.words}</span>` : html`<span class="muted">None running</span>`
    }</td>
<td data-label="Last activity">${r.lastActivityBy === "reporter" ? "Reporter" : "Organization"}, ${when(r.lastActivityAt)}</td>
<td data-label="Assignee">${
      r.assigneeId ? oneLine(names.get(r.assigneeId) ?? "A former member") : html`<span class="muted">Nobody</span>`
    }</td></tr>`;
  })}</tbody>
</table>`;
  const pages = html`<nav class="actions" aria-label="Pages">${
    v.prev ? html`<a href="${inboxHref(q, { before: v.prev })}">Previous page</a>` : ""
  }${v.next ? html`<a href="${inboxHref(q, { after: v.next })}">Next page</a>` : ""}</nav>`;
  const bulk = selectable
    ? html`<form method="post" action="/console/bulk" id="bulk" class="card">
${csrfField(v.who)}
<h2>Change the selected reports</h2>
<p class="hint">Tick reports in the table, choose one change, then review it: nothing changes before you confirm.</p>
<div class="toolbar">
<div class="field"><label for="bulk-change">Change</label><select id="bulk-change" name="change">
<option value="read">Mark them read</option>
<optgroup label="Move them to">${TRIAGE_STATES.map((s) => html`<option value="state:${s}">${TRIAGE_LABELS[s]}</option>`)}</optgroup>
<optgroup label="Assign them to"><option value="assign:">Nobody</option>${v.members.map(
        (m) => html`<option value="assign:${m.id}">${oneLine(m.name)}</option>`,
      )}</optgroup>
</select></div>
<div class="field"><label for="bulk-reason">Reason (for a move)</label>
<span class="hint" id="bulk-reason-hint">Kept as an internal note on each report.</span>
<input type="text" id="bulk-reason" name="reason" maxlength="${LIMITS.commentLength}" aria-describedby="bulk-reason-hint"></div>
<button type="submit">Review the change</button>
</div>
</form>`
    : "";
  return consoleDocument(
    v.who,
    "inbox",
    VIEW_LABELS[q.view],
    html`<h1>Inbox</h1>
${tabs}
${filters}
${v.rows.length ? table : html`<p class="notice">No reports here.</p>`}
${pages}
${v.rows.length ? bulk : ""}`,
  );
}
