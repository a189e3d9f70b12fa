import { html } from "hono/html";
import { SEVERITIES, TRIAGE_STATES } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import type { ReportPageData } from "../services/report-page";
import { consoleDocument, mayWork, csrfField, type Who } from "./console-layout";
import { gatePart } from "./console-report-gate";
import { advisoriesPart, conversationPart, craPart, cweWords, deadlinesPart, filesPart, historyPart } from "./console-report-parts";
import { nextDeadline, SEVERITY_LABELS, TRIAGE_LABELS } from "./console-words";
import { type Html, when } from "./layout";

// A report's console page: the record as received (and its hash, and the policy version in force)
// beside the triage form, then the deadlines, the conversation, files, filings, advisories, history.

/** The triage form's fields as typed (a refused form shows them again), or as the report holds them. */
export interface TriageForm {
  triage_state: string;
  duplicate_of: string;
  reason: string;
  severity: string;
  cvss_vector: string;
  cwe_ids: string;
  actively_exploited: boolean;
  exploitation_known_at: string;
  assignee: string;
}

export interface ReportPageView {
  who: Who;
  data: ReportPageData;
  now: number;
  triage?: { form: TriageForm; problems: { field: string; detail: string }[] };
  reply?: { body: string; visibility: string; error?: string };
  /** A change just made, said at the top. */
  done?: string;
}

export function triageFormOf(d: ReportPageData): TriageForm {
  const v = d.vuln;
  return {
    triage_state: v.triageState,
    duplicate_of: d.duplicateOf ?? "",
    reason: "",
    severity: v.severity ?? "",
    cvss_vector: v.cvssVector ?? "",
    cwe_ids: v.cweIds.join(", "),
    actively_exploited: v.activelyExploited,
    exploitation_known_at: v.exploitationKnownAt ? v.exploitationKnownAt.slice(0, 16) : "",
    assignee: v.assigneeId ?? "",
  };
}

const FIELD_LABELS: Record<keyof TriageForm, string> = {
  triage_state: "State",
  duplicate_of: "Duplicate of",
  reason: "Reason",
  severity: "Severity",
  cvss_vector: "CVSS vector",
  cwe_ids: "CWE ids",
  actively_exploited: "Actively exploited",
  exploitation_known_at: "Exploited since",
  assignee: "Assignee",
};

function triagePart(v: ReportPageView): Html {
  const d = v.data;
  const f = v.triage?.form ?? triageFormOf(d);
  const problems = v.triage?.problems ?? [];
  const problem = (field: keyof TriageForm) => problems.find((p) => p.field === field);
  const message = (field: keyof TriageForm) => {
    const p = problem(field);
    return p ? html`<span class="message" id="${field}-message">${p.detail}</span>` : "";
  };
  const invalid = (field: keyof TriageForm) => (problem(field) ? html` aria-invalid="true" aria-describedby="${field}-message"` : "");
  const score =
    d.vuln.cvssScore !== null
      ? html`<p class="hint" id="cvss-score">Computed here: CVSS ${d.vuln.cvssVersion} base score
<strong>${d.vuln.cvssScore.toFixed(1)}</strong>.</p>`
      : "";
  const cwes = cweWords(d.vuln.cweIds);
  if (!mayWork(v.who))
    return html`<h2>Triage</h2><dl class="terms">
<dt>State</dt><dd>${TRIAGE_LABELS[d.vuln.triageState]}${d.duplicateOf ? html` of ${d.duplicateOf}` : ""}</dd>
<dt>Severity</dt><dd>${d.vuln.severity ? SEVERITY_LABELS[d.vuln.severity] : "Not rated"}</dd>
<dt>CVSS</dt><dd>${d.vuln.cvssVector ? html`<code>${d.vuln.cvssVector}</code> (${d.vuln.cvssScore?.toFixed(1)})` : "None"}</dd>
<dt>CWE</dt><dd>${cwes.length ? cwes.join("; ") : "None"}</dd>
<dt>Actively exploited</dt><dd>${d.vuln.activelyExploited ? "Yes" : "No"}</dd>
</dl>`;
  return html`<form method="post" action="/console/reports/${d.vuln.shortcode}/triage" id="triage">
<h2>Triage</h2>
${csrfField(v.who)}
${
  problems.length
    ? html`<div class="error-summary" role="alert" tabindex="-1"><p>Nothing was changed:</p><ul>${problems.map(
        (p) => html`<li><a href="#${p.field}">${FIELD_LABELS[p.field as keyof TriageForm] ?? p.field}</a>: ${p.detail}</li>`,
      )}</ul></div>`
    : ""
}
<div class="field"><label for="triage_state">State</label>${message("triage_state")}
<select id="triage_state" name="triage_state"${invalid("triage_state")}>${TRIAGE_STATES.map(
    (s) => html`<option value="${s}"${s === f.triage_state ? " selected" : ""}>${TRIAGE_LABELS[s]}</option>`,
  )}</select></div>
<div class="field"><label for="duplicate_of">Duplicate of</label>
<span class="hint" id="duplicate_of-hint">For the Duplicate state: the original report's code, as
XXXX-XXXX-XXXX.</span>${message("duplicate_of")}
<input type="text" id="duplicate_of" name="duplicate_of" value="${f.duplicate_of}" maxlength="20" spellcheck="false"
autocapitalize="characters"${problem("duplicate_of") ? invalid("duplicate_of") : html` aria-describedby="duplicate_of-hint"`}></div>
<div class="field"><label for="reason">Reason for a change of state</label>
<span class="hint" id="reason-hint">Kept as an internal note on the report.</span>
<input type="text" id="reason" name="reason" value="${f.reason}" maxlength="${LIMITS.commentLength}" aria-describedby="reason-hint"></div>
<div class="field"><label for="severity">Severity</label>${message("severity")}
<select id="severity" name="severity"${invalid("severity")}><option value="">Not rated</option>${SEVERITIES.map(
    (s) => html`<option value="${s}"${s === f.severity ? " selected" : ""}>${SEVERITY_LABELS[s]}</option>`,
  )}</select></div>
<div class="field"><label for="cvss_vector">CVSS vector</label>
<span class="hint" id="cvss_vector-hint">CVSS 3.0, 3.1 or 4.0, e.g. CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N.
The score is computed here.</span>
${message("cvss_vector")}<input type="text" id="cvss_vector" name="cvss_vector" value="${f.cvss_vector}" spellcheck="false"
${problem("cvss_vector") ? invalid("cvss_vector") : html`aria-describedby="cvss_vector-hint"`}>${score}</div>
<div class="field"><label for="cwe_ids">CWE ids</label>
<span class="hint" id="cwe_ids-hint">Separated by commas, e.g. CWE-79, CWE-89.</span>${message("cwe_ids")}
<input type="text" id="cwe_ids" name="cwe_ids" value="${f.cwe_ids}" spellcheck="false"
${problem("cwe_ids") ? invalid("cwe_ids") : html`aria-describedby="cwe_ids-hint"`}>
${cwes.length ? html`<ul class="hint">${cwes.map((c) => html`<li>${c}</li>`)}</ul>` : ""}</div>
<div class="field check"><label><input type="checkbox" name="actively_exploited" value="true"${f.actively_exploited ? " checked" : ""}>
Actively exploited (starts the EU Cyber Resilience Act's clock)</label></div>
<div class="field"><label for="exploitation_known_at">Known to be exploited since (UTC)</label>
<span class="hint" id="exploitation_known_at-hint">Left empty: from now.</span>${message("exploitation_known_at")}
<input type="datetime-local" id="exploitation_known_at" name="exploitation_known_at" value="${f.exploitation_known_at}"
${problem("exploitation_known_at") ? invalid("exploitation_known_at") : html`aria-describedby="exploitation_known_at-hint"`}></div>
<div class="field"><label for="assignee">Assignee</label>${message("assignee")}
<select id="assignee" name="assignee"${invalid("assignee")}><option value="">Nobody</option>${d.members.map(
    (m) => html`<option value="${m.id}"${m.id === f.assignee ? " selected" : ""}>${oneLine(m.name ?? m.email)}</option>`,
  )}</select></div>
<button type="submit">Save the triage</button>
</form>`;
}

export function reportPage(v: ReportPageView): string {
  const d = v.data;
  const r = d.record;
  const due = nextDeadline(d.vuln, v.now);
  const assignee = d.members.find((m) => m.id === d.vuln.assigneeId);
  return consoleDocument(
    v.who,
    "inbox",
    `${d.vuln.shortcode}: ${d.vuln.title}`,
    html`<p><a href="/console">Back to the inbox</a></p>
<h1><span class="mono">${d.vuln.shortcode}</span> ${oneLine(d.vuln.title)}</h1>
${v.done ? html`<p class="notice" role="status">${v.done}</p>` : ""}
<dl class="terms">
<dt>State</dt><dd>${TRIAGE_LABELS[d.vuln.triageState]}${
      d.duplicateOf ? html` of <a href="/console/reports/${d.duplicateOf}">${d.duplicateOf}</a>` : ""
    }</dd>
<dt>Severity</dt><dd>${d.vuln.severity ? SEVERITY_LABELS[d.vuln.severity] : "Not rated"}</dd>
<dt>Next deadline</dt><dd>${due ? html`<span class="state ${due.urgency}">${due.words}</span>` : "None running"}</dd>
<dt>Assignee</dt><dd>${assignee ? oneLine(assignee.name ?? assignee.email) : "Nobody"}</dd>
<dt>Received</dt><dd>${when(d.vuln.createdAt)}</dd>
</dl>
<div class="columns">
<section aria-labelledby="received-heading">
<h2 id="received-heading">As received</h2>
${
  r
    ? html`<dl class="terms">
<dt>Received</dt><dd>${when(r.receivedAt)}</dd>
<dt>SHA-256</dt><dd><code>${r.sha256}</code></dd>
<dt>Policy in force</dt><dd>${
        r.policyVersionNumber !== null ? html`version ${r.policyVersionNumber} (<code>${r.policyVersionSha256}</code>)` : "none recorded"
      }</dd>
${r.domains.length ? html`<dt>Domains</dt><dd>${r.domains.join(", ")}</dd>` : ""}
</dl>
<h3>${oneLine(r.title)}</h3>
<pre class="received">${r.description}</pre>`
    : html`<p class="muted">Being stored: the record as received appears here within moments.</p>
<pre class="received">${d.vuln.description}</pre>`
}
</section>
<section aria-label="Triage">${triagePart(v)}</section>
</div>
${gatePart(d)}
${deadlinesPart(d, v.now)}
${conversationPart(v.who, d, v.reply ?? { body: "", visibility: "" })}
${filesPart(d)}
${craPart(v.who, d)}
${advisoriesPart(v.who, d)}
${historyPart(d)}`,
  );
}
