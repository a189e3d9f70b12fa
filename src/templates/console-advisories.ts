import { html } from "hono/html";
import type { AdvisoryState } from "../db/schema";
import type { AdvisoryRendering } from "../lib/advisory-renderings";
import { oneLine } from "../lib/text";
import type { AdvisoryRecord } from "../services/advisories";
import type { NamedReport } from "../services/advisory-previews";
import { type AdvisoryFormValues, advisoryForm, type FormProblems, problemSummary } from "./console-advisory-editor";
import { consoleDocument, csrfField, mayWork, type Who } from "./console-layout";
import { type Html, when } from "./layout";

// The console's advisories: the list, a draft's editor (console-advisory-editor.ts has the form), the
// confirmations of what cannot be undone (publish, withdraw), and the previews of the renderings.

const STATE_WORDS: Record<AdvisoryState, string> = { draft: "draft", published: "published", withdrawn: "withdrawn" };
const RENDERING_NAMES: Record<AdvisoryRendering, string> = { csaf: "CSAF 2.0", osv: "OSV", cve: "CVE JSON 5.1" };

export const stateBadge = (state: AdvisoryState): Html => html`<span class="state">${STATE_WORDS[state]}</span>`;

function reportLinks(ids: readonly string[], reports: ReadonlyMap<string, NamedReport>): Html[] {
  return ids.map((id, i) => {
    const r = reports.get(id);
    const link = r ? html`<a href="/console/reports/${r.shortcode}">${r.shortcode}</a>` : html`<span class="mono">${id}</span>`;
    return html`${i ? ", " : ""}${link}`;
  });
}

/** The identifiers an advisory is known by: its CVE id, and its own id. */
const identifiers = (a: AdvisoryRecord): Html =>
  html`${a.cveId ? html`<span class="mono">${a.cveId}</span><br>` : ""}<span class="mono">vdp-${a.id}</span>`;

export interface AdvisoryListView {
  who: Who;
  rows: AdvisoryRecord[];
  total: number;
  reports: ReadonlyMap<string, NamedReport>;
}

/** GET /console/advisories: the organization's advisories, last changed first. */
export function advisoryListPage({ who, rows, total, reports }: AdvisoryListView): string {
  return consoleDocument(
    who,
    "advisories",
    "Advisories",
    html`<h1>Advisories</h1>
<p class="lead">${total} advisor${total === 1 ? "y" : "ies"}${rows.length < total ? html`, the ${rows.length} changed last shown` : ""}.</p>
${mayWork(who) ? html`<p><a class="button" href="/console/advisories/new">Write a draft</a></p>` : ""}
${
  rows.length
    ? html`<table class="stack">
<thead><tr><th scope="col">State</th><th scope="col">Title</th><th scope="col">Identifiers</th><th scope="col">Reports</th>
<th scope="col">Updated</th></tr></thead>
<tbody>${rows.map(
        (a) => html`<tr><td data-label="State">${stateBadge(a.state)}${
          a.revision ? html` <span class="muted">rev. ${a.revision}</span>` : ""
        }</td>
<td data-label="Title"><a href="/console/advisories/${a.id}">${oneLine(a.title)}</a></td>
<td data-label="Identifiers">${identifiers(a)}</td>
<td data-label="Reports">${reportLinks(a.vulnIds, reports)}</td>
<td data-label="Updated">${when(a.updatedAt)}</td></tr>`,
      )}</tbody>
</table>`
    : html`<p>No advisory yet.</p>`
}`,
  );
}

export interface EditorView {
  who: Who;
  /** Absent: a new draft. */
  advisory?: AdvisoryRecord;
  reports: ReadonlyMap<string, NamedReport>;
  values: AdvisoryFormValues;
  problems: FormProblems;
}

function previewLinks(id: string): Html {
  return html`<p>Previews of what is published:
${(["csaf", "osv", "cve"] as const).map(
  (f, i) => html`${i ? ", " : ""}<a href="/console/advisories/${id}/preview/${f}">${RENDERING_NAMES[f]}</a>`,
)}.</p>`;
}

/** Facts of the advisory that no form changes. */
function facts(a: AdvisoryRecord, reports: ReadonlyMap<string, NamedReport>): Html {
  return html`<dl class="terms">
<dt>State</dt><dd>${stateBadge(a.state)}</dd>
<dt>Revision</dt><dd>${a.revision ? String(a.revision) : "none published yet"}</dd>
<dt>Identifiers</dt><dd>${identifiers(a)}</dd>
<dt>Reports</dt><dd>${reportLinks(a.vulnIds, reports)}</dd>
${a.publishedAt ? html`<dt>Published</dt><dd>${when(a.publishedAt)}</dd>` : ""}
${a.withdrawnAt ? html`<dt>Withdrawn</dt><dd>${when(a.withdrawnAt)}</dd>` : ""}
<dt>Updated</dt><dd>${when(a.updatedAt)}</dd>
</dl>`;
}

/** The advisory as text, for whoever does not change it (a viewer; anyone, once withdrawn). */
function readOnly(v: AdvisoryFormValues): Html {
  const row = (label: string, value: string) =>
    html`<dt>${label}</dt><dd>${value ? html`<p class="body">${value}</p>` : html`<span class="muted">none</span>`}</dd>`;
  return html`<h2>Contents</h2><dl class="terms">
${row("Summary", v.summary)}${row("Description", v.description)}
${v.products.map((p, i) => row(`Product ${i + 1}`, `${p.vendor} ${p.product}${p.purl ? ` (${p.purl})` : ""}\n${p.versions}`))}
${row("Remediation", v.remediation)}${row("References", v.references)}${row("CVE id", v.cve_id)}
${row("CVSS vector", v.cvss_vector)}${row("CWE ids", v.cwe_ids)}${row("Credits", v.credits)}
</dl>`;
}

/** GET /console/advisories/{id} and /new: the editor (a draft's, or a published one's next revision), or the advisory read-only. */
export function advisoryEditorPage({ who, advisory: a, reports, values, problems }: EditorView): string {
  const failed = Object.keys(problems).length > 0;
  const title = a ? oneLine(a.title) : "A new advisory";
  const editable = mayWork(who) && a?.state !== "withdrawn";
  const revising = a?.state === "published";
  const main = html`<p><a href="/console/advisories">Advisories</a></p>
<h1>${title}</h1>
${a ? facts(a, reports) : html`<p class="lead">A draft is the organization's alone until it is published.</p>`}
${a ? previewLinks(a.id) : ""}
${
  a && editable
    ? html`<div class="actions">
${a.state === "draft" ? html`<a class="button" href="/console/advisories/${a.id}/publish">Publish…</a>` : ""}
${a.state === "published" ? html`<a class="button" href="/console/advisories/${a.id}/withdraw">Withdraw…</a>` : ""}
</div>`
    : ""
}
${problemSummary(problems, a ? "The advisory was not changed." : "The draft was not saved.")}
${
  editable
    ? html`<h2>${revising ? "Revise" : a ? "Edit the draft" : "The draft"}</h2>
${revising ? html`<p>It is published: saving freezes revision ${String(a!.revision + 1)}, which readers see with your note.</p>` : ""}
${advisoryForm(who, values, problems, {
  action: a ? `/console/advisories/${a.id}#errors` : "/console/advisories#errors",
  submit: revising ? `Publish revision ${a!.revision + 1}` : a ? "Save the draft" : "Save as a draft",
  revising,
})}`
    : readOnly(values)
}`;
  return consoleDocument(who, "advisories", `${failed ? "Error: " : ""}${title}`, main);
}

/** GET /console/advisories/{id}/publish and /withdraw: what it does, and the one button that does it. */
export function confirmPage(who: Who, a: AdvisoryRecord, action: "publish" | "withdraw", problems: FormProblems = {}, note = ""): string {
  const title = oneLine(a.title);
  const body =
    action === "publish"
      ? html`<p class="warning">Publishing cannot be undone: the advisory becomes public as revision 1 (its page, CSAF, OSV and CVE
JSON), its reports' disclosure deadline is met, and reporters who agreed to be credited are told. Later changes are new revisions;
it can be withdrawn, never deleted.</p>
${problemSummary(problems, "The advisory was not published.", `/console/advisories/${a.id}`)}
<form method="post" action="/console/advisories/${a.id}/publish#errors">${csrfField(who)}
<div class="actions"><button type="submit">Publish it now</button><a href="/console/advisories/${a.id}">Cancel</a></div></form>`
      : html`<p class="warning">Withdrawing cannot be undone: the advisory stays readable, marked withdrawn, as revision
${String(a.revision + 1)} with your note, and never changes again.</p>
${problemSummary(problems, "The advisory was not withdrawn.")}
<form method="post" action="/console/advisories/${a.id}/withdraw#errors">${csrfField(who)}
<div class="field"><label for="revision_note">Why it is withdrawn</label>
${problems.revision_note ? html`<span class="message" id="revision_note-error">${problems.revision_note.join(" ")}</span>` : ""}
<input type="text" id="revision_note" name="revision_note" value="${note}" required maxlength="1000" autocomplete="off"${
          problems.revision_note ? html` aria-invalid="true" aria-describedby="revision_note-error"` : ""
        }></div>
<div class="actions"><button type="submit">Withdraw it now</button><a href="/console/advisories/${a.id}">Cancel</a></div></form>`;
  return consoleDocument(
    who,
    "advisories",
    `${Object.keys(problems).length ? "Error: " : ""}${action === "publish" ? "Publish" : "Withdraw"} ${title}`,
    html`<p><a href="/console/advisories/${a.id}">${title}</a></p>
<h1>${action === "publish" ? "Publish" : "Withdraw"} this advisory?</h1>
${body}`,
  );
}

/** GET /console/advisories/{id}/preview/{format}: the rendering, as the public read will serve it, as text. */
export function previewPage(who: Who, a: AdvisoryRecord, format: AdvisoryRendering, json: string): string {
  const title = oneLine(a.title);
  return consoleDocument(
    who,
    "advisories",
    `${RENDERING_NAMES[format]} of ${title}`,
    html`<p><a href="/console/advisories/${a.id}">${title}</a></p>
<h1>${RENDERING_NAMES[format]} preview</h1>
<ul class="tabs">${(["csaf", "osv", "cve"] as const).map(
      (f) =>
        html`<li><a href="/console/advisories/${a.id}/preview/${f}"${
          f === format ? html` aria-current="page"` : ""
        }>${RENDERING_NAMES[f]}</a></li>`,
    )}</ul>
<p>${
      a.state === "draft"
        ? "What publishing the draft now would serve (revision 1, dated now, credits as reporters consent now)."
        : `What is served now: revision ${a.revision}.`
    }</p>
<pre class="received json">${json}</pre>`,
  );
}
