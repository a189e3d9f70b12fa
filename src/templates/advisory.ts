import { html } from "hono/html";
import { oneLine } from "../lib/text";
import { type AdvisoryDocument, type AffectedVersion, cweName } from "../lib/advisory";
import { document, when } from "./layout";

const versionText = (v: AffectedVersion) =>
  oneLine("version" in v ? v.version : `from ${v.range.introduced}${v.range.fixed ? ` up to (not including) ${v.range.fixed}` : " on"}`);
const STATUS = { affected: "affected", fixed: "fixed", unaffected: "not affected" } as const;

/** The severity row of the advisory's facts: the CVSS rating in words, its score and vector. */
function severity(doc: AdvisoryDocument) {
  if (!doc.cvss) return "";
  const { severity: rating, version, score, vector } = doc.cvss;
  const inWords = `${rating[0]!.toUpperCase()}${rating.slice(1)}`;
  return html`<dt>Severity</dt><dd>${inWords} (CVSS ${version} ${score.toFixed(1)}) <span class="mono">${vector}</span></dd>`;
}

/** GET /a/{id}: a published advisory for people, from its latest revision, with its renderings and history. */
export function advisoryPage(doc: AdvisoryDocument): string {
  // Every single-line member as one line (a revision frozen before the rule may hold line breaks or bidi controls).
  const publisher = oneLine(doc.publisher.name);
  const title = oneLine(doc.title);
  const withdrawn = doc.state === "withdrawn";
  const base = `/v1/p/advisories/${doc.id}`;
  return document(
    `${title} · ${publisher}`,
    html`<p class="muted">${publisher} · Security advisory${doc.cve_id ? html` · <span class="mono">${doc.cve_id}</span>` : ""}</p>
<h1>${title}</h1>
${
  withdrawn
    ? html`<p class="notice" role="status"><strong>Withdrawn</strong> ${when(doc.withdrawn_at!)}: ${oneLine(doc.history.at(-1)!.note)}</p>`
    : ""
}
<p>${doc.summary}</p>
<dl class="terms">
  <dt>Published</dt><dd>${when(doc.published_at)}${
    doc.revision > 1 ? html`, revision ${String(doc.revision)} ${when(doc.updated_at)}` : ""
  }</dd>
  ${severity(doc)}
  ${
    doc.cwe_ids.length
      ? html`<dt>Weakness</dt><dd>${doc.cwe_ids.map(
          (id, i) => html`${i ? "; " : ""}<span class="mono">${id}</span> ${cweName(id) ?? ""}`,
        )}</dd>`
      : ""
  }
</dl>
${doc.description ? html`<h2>Description</h2><p class="body">${doc.description}</p>` : ""}
<h2>Affected products</h2>
<ul class="scope">${doc.affected.map(
      (p) =>
        html`<li><strong>${oneLine(`${p.vendor} ${p.product}`)}</strong>${
          p.purl ? html` <span class="muted mono">${oneLine(p.purl)}</span>` : ""
        }<ul>${p.versions.map((v) => html`<li>${versionText(v)}: ${STATUS[v.status]}</li>`)}</ul></li>`,
    )}</ul>
${doc.remediation ? html`<h2>Remediation</h2><p class="body">${doc.remediation}</p>` : ""}
${
  doc.credits.length
    ? html`<h2>Credits</h2><ul class="scope">${doc.credits.map(
        (c) => html`<li>${oneLine(c.name)} <span class="muted">(${c.type.replace(/_/g, " ")})</span></li>`,
      )}</ul>`
    : ""
}
${
  doc.references.length
    ? html`<h2>References</h2><ul class="scope">${doc.references.map(
        (r) => html`<li><a href="${r}" rel="nofollow noopener">${oneLine(r)}</a></li>`,
      )}</ul>`
    : ""
}
<h2>For tools</h2>
<p>This advisory as <a href="${base}/csaf">CSAF 2.0</a>, <a href="${base}/osv">OSV</a>, <a href="${base}/cve">CVE JSON 5.1</a>
and <a href="${base}">JSON:API</a>.</p>
<h2>Revision history</h2>
<ul class="scope">${doc.history.map((r) => html`<li>Revision ${String(r.number)}, ${when(r.date)}: ${oneLine(r.note)}</li>`)}</ul>`,
    {
      heading: `${publisher} · Security advisory`,
      description: `${publisher}'s security advisory: ${title}.`,
    },
  );
}
