import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { AttachmentRecord } from "../services/attachments";
import type { CommentRecord } from "../services/comments";
import type { Report } from "../services/reporter";
import type { Deadline } from "../lib/deadlines";
import { document, when, type Html } from "./layout";
import { LIMITS, mib } from "../lib/limits";
import { TRIAGE_IN_WORDS } from "../lib/in-words";

export interface ReportView {
  report: Report;
  token: string;
  comments: CommentRecord[];
  commentsTotal: number;
  files: AttachmentRecord[];
  /** Whether a promise has been left unmet for 14 days past due: the coordinator package is offered. */
  packageOffered?: boolean;
  /** A reply kept after a refusal, with its message. */
  reply?: { body: string; error?: string };
  fileError?: string;
  /** The credit form kept after a refusal, with its message. */
  credit?: { name: string; error?: string };
  notice?: string;
}

const INBOX: Record<string, string> = {
  dispatching: "Sent; being delivered to the organization's inbox",
  received: "In the organization's inbox",
  stored: "In the organization's inbox, with a sealed record of what you sent",
  queued: "Kept safely, and queued: the brief's daily intake is full",
};

/** A queued report's word: kept, waiting for the day the brief's cap lets it in, its deadlines starting then. */
function queuedNotice(r: ReportView["report"]): Html | string {
  if (r.inboxState !== "queued") return "";
  const day = r.releaseExpectedOn;
  return html`<div class="notice" id="queued" role="status"><p><strong>Your report is queued${day ? html` until ${day}` : ""}.</strong>
${r.briefName ? `The brief "${r.briefName}"` : r.organizationName} takes a limited number of reports a day, and today's intake is
full. Your report is safely stored, not dropped: it is expected to be released to ${r.organizationName}'s inbox
${day ? html`on <time datetime="${day}">${day}</time> (UTC)` : "as soon as the brief has room"}, and its deadlines start then.</p></div>`;
}

/** A promise's line while the report is queued: it starts at the release. */
const startsAtRelease = (r: ReportView["report"]) =>
  html`<span class="muted">Starts when your report is released${r.releaseExpectedOn ? ` (expected ${r.releaseExpectedOn})` : ""}</span>`;

function oneLineReport(r: ReportView["report"]): ReportView["report"] {
  return {
    ...r,
    title: oneLine(r.title),
    organizationName: oneLine(r.organizationName),
    briefName: r.briefName && oneLine(r.briefName),
    creditName: r.creditName && oneLine(r.creditName),
    creditedIn: r.creditedIn.map((a) => ({ ...a, title: oneLine(a.title) })),
  };
}

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function conversation(v: ReportView): Html {
  if (v.comments.length === 0) return html`<p class="muted">No messages yet. The organization's replies appear here.</p>`;
  const firstOnly = v.commentsTotal > v.comments.length;
  return html`${firstOnly ? html`<p class="muted">The first ${v.comments.length} of ${v.commentsTotal} messages.</p>` : ""}
<ol class="conversation">${v.comments.map(
    (c) =>
      html`<li class="${c.author}"><p class="who">${c.author === "organization" ? v.report.organizationName : "You"}
<span class="muted">· ${when(c.createdAt)}</span></p><p class="body">${c.body}</p></li>`,
  )}</ol>`;
}

function files(v: ReportView): Html {
  if (v.files.length === 0) return html`<p class="muted">No files yet.</p>`;
  return html`<table>
<thead><tr><th scope="col">File</th><th scope="col" class="nowrap">Size</th><th scope="col">From</th></tr></thead><tbody>
${v.files.map(
  (f) =>
    html`<tr><td><a href="/r/${v.token}/attachments/${f.id}">${f.filename}</a></td><td class="nowrap">${sizeOf(f.byteSize)}</td><td>${
      f.uploadedBy === "reporter" ? "You" : v.report.organizationName
    }</td></tr>`,
)}
</tbody></table>`;
}

/** A promise of the organization's policy as the reporter reads it: by when, and whether it was kept. */
function expectation(d: Deadline, done: string): Html | string {
  if (!d.due_at) return html`<span class="muted">No time promised</span>`;
  const by = `promised by ${when(d.due_at)}`;
  if (d.state === "met") return `${done[0]!.toUpperCase()}${done.slice(1)} ${when(d.met_at!)} (${by})`;
  if (d.state === "paused") return `Paused while the organization waits for your answer (${by} so far)`;
  if (d.state === "breached") return `Not yet: it was ${by}`;
  return `Expected ${by.slice("promised ".length)}`;
}

/** What the reporter sent, exactly as received: the thread's first item, folding away once read. */
function sentReport(r: ReportView["report"]): Html {
  const s = r.submission;
  return html`<details class="submission" open><summary>What you sent <span class="muted">· ${when(s.received_at)}</span></summary>
<dl class="terms">
<dt>Title</dt><dd>${oneLine(s.title)}</dd>
<dt>Description</dt><dd><p class="body">${s.description}</p></dd>
<dt>Your e-mail</dt><dd>${s.contact_email ?? html`<span class="muted">Not given</span>`}</dd>
<dt>Domains</dt><dd>${
    s.domains.length
      ? html`<ul class="scope">${s.domains.map((d) => html`<li><code>${d}</code></li>`)}</ul>`
      : html`<span class="muted">None named</span>`
  }</dd>
</dl>
</details>`;
}

/** The policy's terms the report was sent under, as recorded with it, and where to read them. */
function termsRecorded(r: ReportView["report"]): Html {
  const version = r.policyVersion;
  if (!version) return html`<span class="muted">No policy terms were recorded with this report.</span>`;
  const of = version.created_at ? `, of ${when(version.created_at)}` : "";
  const read = version.policy_shortcode
    ? html` (<a href="/v1/p/policies/${version.policy_shortcode}/versions/${String(version.number)}">read them</a>)`
    : "";
  return html`Version ${String(version.number)} of the policy${of}: the terms in force when you reported, which cannot change behind
your report${read}. <span class="muted mono">SHA-256 ${version.sha256}</span>`;
}

/** How the reporter is credited in the organization's advisories: their name, their consent, and where they are. */
function creditSection(v: ReportView) {
  const r = v.report;
  const error = v.credit?.error;
  return html`<h2 id="credit">Credit</h2>
<p>If ${r.organizationName} publishes an advisory about this report, it may credit you, only if you agree here and only by the name
you give. Withdraw your consent before an advisory is published and it will not name you; an advisory already published keeps
what it said.</p>
${
  r.creditedIn.length
    ? html`<p>Advisories that credit you:</p><ul class="scope">${r.creditedIn.map(
        (a) => html`<li><a href="/a/${a.id}">${a.title}</a></li>`,
      )}</ul>`
    : ""
}
<form method="post" action="/r/${v.token}/credit">
<div class="field">
<label for="credit_name">Credit me as</label>
<span class="hint" id="credit-hint">Your name, handle or team, as you want it published; at most 200 characters.</span>
${error ? html`<span class="message" id="credit-error">${error}</span>` : ""}
<input type="text" id="credit_name" name="credit_name" maxlength="200" value="${v.credit?.name ?? r.creditName ?? ""}"
  aria-describedby="${error ? "credit-error credit-hint" : "credit-hint"}"${error ? html` aria-invalid="true"` : ""}>
</div>
<div class="field check"><label><input type="checkbox" id="credit_consent" name="credit_consent" value="yes"${
    r.creditConsent ? " checked" : ""
  }>
${r.organizationName} may credit me by this name in its advisories about this report</label></div>
<button type="submit">Save</button>
</form>`;
}

/** GET /r/{token}: the reporter's page. Never cached: the address is the key to the report. */
export function reportPage(view: ReportView): string {
  // The report's single-line members as one line (a row kept from before that rule may hold breaks or
  // bidi controls); the description and the comments keep theirs.
  const v = { ...view, report: oneLineReport(view.report) };
  const r = v.report;
  const replyError = v.reply?.error;
  const queued = r.inboxState === "queued";
  return document(
    `Your report: ${r.title}`,
    html`${v.notice ? html`<div class="notice" role="status"><p>${v.notice}</p></div>` : ""}
<div class="warning"><p><strong>Keep this page's address.</strong> It is the only way back to your report: bookmark it or save it
somewhere private. Anyone with the link can read and answer this report, so do not share it.</p></div>
<p class="muted">${r.organizationName}${r.briefName ? ` · ${r.briefName}` : ""}</p>
<h1>${r.title}</h1>
${queuedNotice(r)}
<h2>Status</h2>
<dl class="terms">
<dt>Reference</dt><dd><span class="mono">${r.shortcode}</span></dd>
<dt>Delivery</dt><dd>${INBOX[r.inboxState] ?? r.inboxState}${
      r.inboxState === "queued" && r.releaseExpectedOn ? `, expected to be released on ${r.releaseExpectedOn} (UTC)` : ""
    }</dd>
<dt>State</dt><dd>${TRIAGE_IN_WORDS[r.triageState]}${r.processingState === "closed" ? " (you can still write)" : ""}</dd>
<dt>Severity</dt><dd>${r.severity ? r.severity[0]!.toUpperCase() + r.severity.slice(1) : "Not assessed yet"}</dd>
<dt>Acknowledgement</dt><dd>${queued ? startsAtRelease(r) : expectation(r.expectations.acknowledge, "acknowledged")}</dd>
<dt>Triage</dt><dd>${queued ? startsAtRelease(r) : expectation(r.expectations.triage, "triaged")}</dd>
<dt>Sent</dt><dd>${when(r.createdAt)}</dd>
<dt>Terms</dt><dd>${termsRecorded(r)}</dd>
<dt>Receipt</dt><dd>${
      r.inboxState === "stored"
        ? html`<a href="/r/${v.token}/receipt" download>Download your signed receipt</a> <span class="muted">Proof of what you sent,
to whom and when, and what was promised: anyone can check its signature against this site's published keys.</span>`
        : html`<span class="muted">Ready once your report is delivered.</span>`
    }</dd>
</dl>
${
  v.packageOffered
    ? html`<div class="warning" id="coordinator"><p><strong>No answer for more than 14 days past the promise.</strong>
The organization has not acknowledged or triaged your report in the time it promised. You can ask a coordinator for help:
your national CSIRT, CERT/CC, or the CVE Numbering Authority for the product.
<a href="/r/${v.token}/package" download>Download the coordinator package</a>: your signed receipt and timeline and your report
as received, in one file, with how to check them.</p></div>`
    : ""
}
<h2 id="conversation">Conversation</h2>
${sentReport(r)}
${conversation(v)}
<form method="post" action="/r/${v.token}/comments">
<div class="field">
<label for="body">Your reply</label>
<span class="hint" id="body-hint">Plain text, at most 20,000 characters. The organization is told at once.</span>
${replyError ? html`<span class="message" id="body-error">${replyError}</span>` : ""}
<textarea id="body" name="body" rows="5" required aria-describedby="${replyError ? "body-error body-hint" : "body-hint"}"${
      replyError ? html` aria-invalid="true"` : ""
    }>${v.reply?.body ?? ""}</textarea>
</div>
<button type="submit">Send the reply</button>
</form>
<h2 id="files">Files</h2>
${files(v)}
<form method="post" action="/r/${v.token}/attachments" enctype="multipart/form-data">
<div class="field">
<label for="file">Add a file</label>
<span class="hint" id="file-hint">At most ${mib(LIMITS.fileBytes)}; a report holds at most ${LIMITS.filesPerVuln} files
and ${mib(LIMITS.bytesPerVuln)}.</span>
${v.fileError ? html`<span class="message" id="file-error">${v.fileError}</span>` : ""}
<input type="file" id="file" name="file" required aria-describedby="${v.fileError ? "file-error file-hint" : "file-hint"}"${
      v.fileError ? html` aria-invalid="true"` : ""
    }>
</div>
<button type="submit">Upload the file</button>
</form>
${creditSection(v)}`,
    { heading: `${r.organizationName} · Your report` },
  );
}
