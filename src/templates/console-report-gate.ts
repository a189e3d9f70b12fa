import { html } from "hono/html";
import { type AiUse, EVIDENCE_FIELDS, type EvidenceField, type Gate } from "../db/schema";
import { evidenceLabel, listedEvidence } from "../lib/submission-requirements";
import { oneLine } from "../lib/text";
import type { ReportPageData } from "../services/report-page";
import { EARLIER_REPORTS } from "../services/reporter-keys";
import { TRIAGE_LABELS } from "./console-words";
import { type Html, when } from "./layout";

// The report's "Gate" panel: how it passed its brief's gate, the evidence it brought (the fields the
// brief lists but it left empty marked), its AI-use disclosure, the record of the key it was signed
// with and that key's other reports, and the reports it resembles. A suggestion only: nothing here
// changes the report, and the reporter never sees any of it.

export const GATE_WORDS: Record<Gate, string> = {
  verified: "Verified",
  unverified: "Unverified",
  not_required: "Not required",
};

const GATE_HINTS: Record<Gate, string> = {
  verified: "It came with a valid proof of work, or signed with a key in the brief's verified lane.",
  unverified: "The brief asked for proof of work and none valid came (sent without JavaScript, or its solution failed).",
  not_required: "The brief asked for no proof of work when it came, or the organization entered it itself.",
};

const AI_LEVEL_WORDS: Record<AiUse["level"], string> = {
  none: "None",
  writing: "Helped write the report",
  discovery: "Helped find the issue",
  generated: "Wrote the finding",
};

/** "0.62" as people read a score: a percentage. */
const percent = (score: number) => `${Math.round(score * 100)}%`;

function evidencePart(d: ReportPageData): Html {
  const v = d.vuln;
  const listed = d.requirements ? listedEvidence(d.requirements) : [];
  // The fields the brief lists now, then any other the report brought (the brief may have changed since).
  const fields: EvidenceField[] = [...listed, ...EVIDENCE_FIELDS.filter((f) => !listed.includes(f) && v.evidence[f] !== undefined)];
  if (!fields.length) return html`<p class="muted">The brief asks for no evidence fields, and none came.</p>`;
  return html`<p>${
    v.evidenceComplete
      ? "Every evidence field the brief listed was filled."
      : html`<span class="state soon">Incomplete</span> Some fields the brief listed were left empty.`
  }</p>
<dl class="terms">${fields.map((f) => {
    const value = v.evidence[f];
    const level = d.requirements?.evidence[f];
    return html`<dt>${evidenceLabel(f)}${level ? html` <span class="muted">(${level})</span>` : ""}</dt>
<dd>${value === undefined ? html`<span class="state overdue">Missing</span>` : html`<pre class="received">${value}</pre>`}</dd>`;
  })}</dl>`;
}

function aiUsePart(d: ReportPageData): Html {
  const a = d.vuln.aiUse;
  if (!a) return html`<p>${d.requirements?.ai_disclosure === "off" || !d.requirements ? "Not asked." : "Not declared."}</p>`;
  return html`<dl class="terms"><dt>Level</dt><dd>${AI_LEVEL_WORDS[a.level]}</dd>
<dt>Tools</dt><dd>${a.tools ? oneLine(a.tools) : html`<span class="muted">None named</span>`}</dd>
<dt>Reproduced by the reporter</dt><dd>${a.verified_by_reporter ? "Yes" : "No"}</dd></dl>`;
}

function keyPart(d: ReportPageData): Html {
  const v = d.vuln;
  if (!v.reporterKey) return html`<p class="muted">Not signed.</p>`;
  const r = v.keyRecord ?? { reports: 0, valid: 0, spam: 0, not_applicable: 0, duplicate: 0 };
  return html`<p>Signed with key <code class="mono">${v.reporterKey}</code>: a pseudonym, the same each time this reporter signs for
your organization, never who they are.</p>
<dl class="terms" id="key-record">
<dt>Reports to your organization</dt><dd>${r.reports}</dd>
<dt>Valid (triaged, resolved or risk accepted)</dt><dd>${r.valid}</dd>
<dt>Spam</dt><dd>${r.spam}</dd>
<dt>Not applicable</dt><dd>${r.not_applicable}</dd>
<dt>Duplicate</dt><dd>${r.duplicate}</dd>
</dl>
${
  d.keyReports.length
    ? html`<h4>Its other reports${d.keyReports.length === EARLIER_REPORTS ? ` (the latest ${EARLIER_REPORTS})` : ""}</h4>
<ul id="key-reports">${d.keyReports.map(
        (e) => html`<li><a href="/console/reports/${e.shortcode}">${e.shortcode}</a> ${oneLine(e.title)}
<span class="muted">(${TRIAGE_LABELS[e.triageState]}, ${when(e.createdAt)})</span></li>`,
      )}</ul>`
    : html`<p class="muted">No other report signed with this key.</p>`
}`;
}

function similarPart(d: ReportPageData): Html {
  const v = d.vuln;
  const suggested =
    d.possibleDuplicate && v.possibleDuplicateScore !== null
      ? html`<p id="possible-duplicate"><span class="badge">Possible duplicate</span> of
<a href="/console/reports/${d.possibleDuplicate.shortcode}">${d.possibleDuplicate.shortcode}</a> ${oneLine(d.possibleDuplicate.title)}
(similarity ${percent(v.possibleDuplicateScore)}). A suggestion only: mark it Duplicate in the triage if it is one.</p>`
      : "";
  if (!d.similar.length) return html`${suggested}<p class="muted">No similar report found.</p>`;
  return html`${suggested}
<table class="stack" id="similar"><caption class="muted">The most similar reports of your organization, best first.</caption>
<thead><tr><th scope="col">Report</th><th scope="col">Title</th><th scope="col">Similarity</th><th scope="col">Why</th></tr></thead>
<tbody>${d.similar.map(
    (s) => html`<tr><td data-label="Report"><a href="/console/reports/${s.shortcode}">${s.shortcode}</a></td>
<td data-label="Title">${oneLine(s.title)}</td><td data-label="Similarity">${percent(s.score)}</td>
<td data-label="Why">${s.reasons.join("; ")}</td></tr>`,
  )}</tbody></table>`;
}

export function gatePart(d: ReportPageData): Html {
  const v = d.vuln;
  return html`<section aria-labelledby="gate-heading" id="gate">
<h2 id="gate-heading">Gate</h2>
<dl class="terms">
<dt>Gate</dt><dd><span class="badge">${GATE_WORDS[v.gate]}</span> <span class="muted">${GATE_HINTS[v.gate]}</span></dd>
${
  v.inboxState === "queued"
    ? html`<dt>Queued</dt><dd><span class="state soon">Queued until ${v.releaseExpectedOn ?? "the brief's cap allows"}</span>
The brief's daily cap was reached: no deadline runs and nobody is notified before it is released.</dd>`
    : ""
}
</dl>
<h3>Evidence</h3>
${evidencePart(d)}
<h3>AI use</h3>
${aiUsePart(d)}
<h3>Reporter key</h3>
${keyPart(d)}
<h3>Similar reports</h3>
${similarPart(d)}
</section>`;
}
