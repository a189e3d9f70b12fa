import { html } from "hono/html";
import { REGULATORY_REPORT_KINDS, type RegulatoryReportKind } from "../db/schema";
import { CWE_NAMES } from "../lib/cwe-names";
import { LIMITS } from "../lib/limits";
import { regulatoryDraft } from "../lib/regulatory-draft";
import { oneLine } from "../lib/text";
import type { ReportPageData } from "../services/report-page";
import { csrfField, mayWork, type Who } from "./console-layout";
import { DEADLINE_LABELS, deadlinesOf, span } from "./console-words";
import { type Html, when } from "./layout";

// The parts of a report's console page below its triage: deadlines, conversation, files, CRA
// filings, advisories and history. Every state in words; every text a person typed escaped.

const DEADLINE_STATE_WORDS = { pending: "Running", met: "Met", breached: "Missed", paused: "Paused", none: "None" } as const;

export function deadlinesPart(d: ReportPageData, now: number): Html {
  const rows = deadlinesOf(d.vuln, now).filter(([, x]) => x.due_at || x.met_at);
  if (!rows.length) return html`<h2 id="deadlines">Deadlines</h2><p class="muted">No deadline runs for this report.</p>`;
  return html`<h2 id="deadlines">Deadlines</h2>
<table class="stack"><thead><tr><th scope="col">Deadline</th><th scope="col">Due</th><th scope="col">State</th></tr></thead>
<tbody>${rows.map(([kind, x]) => {
    const left = x.due_at ? Date.parse(x.due_at) - now : 0;
    const urgency =
      x.state === "breached" ? "overdue" : x.state === "met" ? "met" : x.state === "pending" && left < 86_400_000 ? "soon" : "";
    const words =
      x.state === "pending"
        ? `Running: due in ${span(left)}`
        : x.state === "breached"
          ? `Missed: overdue by ${span(left)}`
          : x.state === "met"
            ? `Met ${when(x.met_at!)}${x.due_at && x.met_at! > x.due_at ? ", late" : ""}`
            : DEADLINE_STATE_WORDS[x.state];
    return html`<tr><td data-label="Deadline">${DEADLINE_LABELS[kind]}</td><td data-label="Due">${x.due_at ? when(x.due_at) : "None"}</td>
<td data-label="State"><span class="state ${urgency}">${words}</span></td></tr>`;
  })}</tbody></table>`;
}

export function conversationPart(who: Who, d: ReportPageData, reply: { body: string; visibility: string; error?: string }): Html {
  const hasReporter = d.vuln.followUpTokenHash !== null;
  const action = `/console/reports/${d.vuln.shortcode}/comments`;
  return html`<h2 id="conversation">Conversation</h2>
${
  d.comments.length
    ? html`<ol class="conversation">${d.comments.map(
        (c) => html`<li class="${c.visibility === "internal" ? "internal" : c.author}">
<p class="who">${c.author === "reporter" ? "The reporter" : "Your organization"}, ${when(c.createdAt)}:
${c.visibility === "internal" ? "internal note, not shown to the reporter" : "seen by the reporter"}</p>
<p class="body">${c.body}</p></li>`,
      )}</ol>`
    : html`<p class="muted">No messages yet.</p>`
}
${
  mayWork(who) && d.canned.length
    ? html`<form method="get" action="/console/reports/${d.vuln.shortcode}#reply-body" class="toolbar">
<div class="field"><label for="canned">Start from a canned response</label><select id="canned" name="canned">${d.canned.map(
        (r) => html`<option value="${r.id}">${oneLine(r.name)}</option>`,
      )}</select></div><button type="submit" class="secondary">Use it</button></form>`
    : ""
}
${
  mayWork(who)
    ? html`<form method="post" action="${action}" id="reply">
${csrfField(who)}
${reply.error ? html`<div class="error-summary" role="alert"><p>${reply.error}</p></div>` : ""}
<div class="field"><label for="reply-body">Your message</label>
<textarea id="reply-body" name="body" required maxlength="${LIMITS.commentLength}">${reply.body}</textarea></div>
<fieldset class="radio"><legend>Who sees it</legend>
${
  hasReporter
    ? html`<label><input type="radio" name="visibility" value="reporter" required${
        reply.visibility === "reporter" ? " checked" : ""
      }> The reporter too: it is sent to them</label>`
    : html`<p class="hint">This report has no reporter to answer (the organization entered it itself).</p>`
}
<label><input type="radio" name="visibility" value="internal" required${
        reply.visibility === "internal" ? " checked" : ""
      }> Your organization only: an internal note</label>
</fieldset>
<div class="actions"><button type="submit" name="send" value="reply">Send</button>${
        hasReporter && d.vuln.processingState === "open"
          ? html`<button type="submit" name="send" value="ask" class="secondary">Send to the reporter and ask for more information</button>`
          : ""
      }</div>
</form>`
    : ""
}`;
}

export function filesPart(d: ReportPageData): Html {
  return html`<h2 id="files">Files</h2>${
    d.files.length
      ? html`<ul>${d.files.map(
          (f) => html`<li><a href="/v1/vulns/${d.vuln.id}/attachments/${f.id}/content" download>${oneLine(f.filename)}</a>
<span class="muted">(${f.contentType}, ${f.byteSize} bytes, from ${f.uploadedBy === "reporter" ? "the reporter" : "your organization"},
${when(f.createdAt)})</span></li>`,
        )}</ul><p class="hint">Files download as attachments, never open in this site's pages.</p>`
      : html`<p class="muted">No files.</p>`
  }`;
}

const FILING_WORDS: Record<RegulatoryReportKind, string> = {
  early_warning: "Early warning (24 hours)",
  notification: "Notification (72 hours)",
  final_report: "Final report",
};

export function craPart(who: Who, d: ReportPageData): Html {
  if (!d.vuln.activelyExploited && !d.filings.length) return html``;
  const v = d.vuln;
  const filed = html`${
    d.filings.length
      ? html`<ul>${d.filings.map(
          (f) =>
            html`<li>${FILING_WORDS[f.kind]}: filed ${when(f.submittedAt)}${
              f.reference ? html`, reference ${oneLine(f.reference)}` : ""
            }</li>`,
        )}</ul>`
      : html`<p>Nothing filed yet.</p>`
  }`;
  const drafts = REGULATORY_REPORT_KINDS.map((kind) => {
    const draft = regulatoryDraft(kind, {
      manufacturer: who.organization,
      shortcode: v.shortcode,
      title: v.title,
      severity: v.severity,
      cvssVector: v.cvssVector,
      cvssScore: v.cvssScore,
      cweIds: v.cweIds,
      triageState: v.triageState,
      createdAt: v.createdAt,
      closedAt: v.closedAt,
      exploitationKnownAt: v.exploitationKnownAt,
      dueAt: null,
      affected: null,
    });
    return html`<details><summary>${FILING_WORDS[kind]}: draft and filing form</summary>
${draft.missing.length ? html`<p class="warning">Still to complete: ${draft.missing.join(", ")}.</p>` : ""}
${
  mayWork(who)
    ? html`<form method="post" action="/console/reports/${v.shortcode}/filings">
${csrfField(who)}<input type="hidden" name="kind" value="${kind}">
<div class="field"><label for="filing-${kind}-body">What was filed</label>
<textarea id="filing-${kind}-body" name="body" required maxlength="${LIMITS.regulatoryReportLength}">${draft.body}</textarea></div>
<div class="field"><label for="filing-${kind}-at">Filed at (UTC)</label>
<input type="datetime-local" id="filing-${kind}-at" name="submitted_at" required></div>
<div class="field"><label for="filing-${kind}-ref">The authority's reference</label>
<input type="text" id="filing-${kind}-ref" name="reference" maxlength="${LIMITS.regulatoryReferenceLength}"></div>
<button type="submit">Record this filing</button></form>`
    : html`<pre class="received">${draft.body}</pre>`
}</details>`;
  });
  return html`<h2 id="cra">EU Cyber Resilience Act filings</h2>
<p>This report is actively exploited${v.exploitationKnownAt ? html` (known since ${when(v.exploitationKnownAt)})` : ""}: the law's three
filings are due to the CSIRT and ENISA.</p>
${filed}${drafts}`;
}

export function advisoriesPart(who: Who, d: ReportPageData): Html {
  const state = (a: ReportPageData["advisories"][number]) =>
    a.withdrawnAt ? "withdrawn" : a.publishedAt ? `published ${when(a.publishedAt)}` : "draft";
  return html`<h2 id="advisories">Advisories</h2>
${
  d.advisories.length
    ? html`<ul>${d.advisories.map(
        (a) => html`<li><a href="/console/advisories/${a.id}">${oneLine(a.title ?? "Untitled advisory")}</a> (${state(a)})</li>`,
      )}</ul>`
    : html`<p class="muted">No advisory names this report yet.</p>`
}
${
  mayWork(who)
    ? html`<p><a class="button" href="/console/advisories/new?vuln=${d.vuln.shortcode}">Draft an advisory from this report</a></p>`
    : ""
}`;
}

export function historyPart(d: ReportPageData): Html {
  return html`<h2 id="history">History</h2>
${
  d.history.length
    ? html`<ol class="timeline">${d.history.map(
        (a) =>
          html`<li>${when(a.at)}: ${oneLine(a.actorName ?? a.actorType)} (${a.actorType.replace("_", " ")}), ${a.action}${
            a.changed?.length ? html`: ${a.changed.join(", ")}` : ""
          }</li>`,
      )}</ol>`
    : html`<p class="muted">Nothing recorded yet.</p>`
}`;
}

/** The CWE ids with their names, as the triage form shows them. */
export const cweWords = (ids: string[]) =>
  ids.map((id) => {
    const name = CWE_NAMES[Number(id.replace(/^CWE-/, ""))];
    return name ? `${id}: ${name}` : `${id}`;
  });
