import { html } from "hono/html";
import { CREDIT_TYPES } from "../lib/advisory";
import { LIMITS } from "../lib/limits";
import { csrfField, type Who } from "./console-layout";
import type { Html } from "./layout";

// An advisory's form, as the console edits it: every member of the API's advisory, the affected
// products as rows (a row's versions one a line), the reports it names by shortcode. Rows are added
// and removed by submit buttons that send the form back as typed, so no script is needed.

/** One affected product's row, as typed. */
export interface ProductRow {
  vendor: string;
  product: string;
  purl: string;
  /** One version or range a line: "affected 1.4.1", "affected from 1.0.0 to 1.4.2", "fixed 1.4.2". */
  versions: string;
}

/** The form's values, as typed. */
export interface AdvisoryFormValues {
  title: string;
  summary: string;
  description: string;
  remediation: string;
  /** One https URL a line. */
  references: string;
  cve_id: string;
  cvss_vector: string;
  /** CWE ids, separated by spaces or commas. */
  cwe_ids: string;
  /** One a line: "finder: Jane Doe", or "reporter: reporter of 7KQ2-M9XD-4TRA". */
  credits: string;
  /** The reports' shortcodes, separated by spaces, commas or lines. */
  vulns: string;
  products: ProductRow[];
  revision_note: string;
}

/** What went wrong, by field name (a product row's fields end in its index: vendor_0). */
export type FormProblems = Record<string, string[]>;

export const EMPTY_PRODUCT: ProductRow = { vendor: "", product: "", purl: "", versions: "" };

export const FIELD_LABELS: Record<string, string> = {
  title: "Title",
  summary: "Summary",
  description: "Description",
  remediation: "Remediation",
  references: "References",
  cve_id: "CVE id",
  cvss_vector: "CVSS vector",
  cwe_ids: "CWE ids",
  credits: "Credits",
  vulns: "Reports",
  affected: "Affected products",
  revision_note: "Why it changed",
  form: "The advisory",
};

/** A field's label, a product row's with its number. */
export function fieldLabel(name: string): string {
  const row = /^(vendor|product|purl|versions)_(\d+)$/.exec(name);
  if (!row) return FIELD_LABELS[name] ?? name;
  const words = { vendor: "vendor", product: "product", purl: "package URL", versions: "versions" }[row[1] as "vendor"];
  return `Product ${Number(row[2]) + 1}, ${words}`;
}

const HINTS: Record<string, string> = {
  summary: `What it is and who is affected, in a few sentences (at most ${LIMITS.advisorySummaryLength} characters). Publishing needs one.`,
  description: "The details. Plain text.",
  remediation: "What to do: the fixed version, a workaround.",
  references: "One https address a line.",
  cve_id: "Such as CVE-2026-12345; empty if none.",
  cvss_vector: "Its base vector, such as CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H. Empty on a new draft: the reports' highest.",
  cwe_ids: "Such as CWE-79 CWE-601, separated by spaces or commas. Empty on a new draft: the reports' own.",
  credits:
    `One a line, its type first: "finder: Jane Doe". A report's reporter who agreed to be credited: "finder: reporter of ` +
    `7KQ2-M9XD-4TRA". Types: ${CREDIT_TYPES.join(", ")}.`,
  vulns: `The reports it is about, by shortcode (1 to ${LIMITS.vulnsPerAdvisory}), separated by spaces.`,
  revision_note: "Published: every change is a new revision, and readers see why. One line.",
};

const VERSIONS_HINT =
  'One a line, its status first (affected, fixed or unaffected): "affected 1.4.1", a range "affected from 1.0.0 to 1.4.2" ' +
  '(1.4.2 not affected), or "affected from 2.0" (no fix yet).';

function control(name: string, problems: FormProblems, hint: string | undefined, input: (attrs: Html) => Html): Html {
  const errors = problems[name] ?? [];
  const ids = [errors.length ? `${name}-error` : null, hint ? `${name}-hint` : null].filter(Boolean).join(" ");
  const attrs = html`id="${name}" name="${name}"${ids ? html` aria-describedby="${ids}"` : ""}${
    errors.length ? html` aria-invalid="true"` : ""
  }`;
  return html`<div class="field">
<label for="${name}">${fieldLabel(name)}</label>
${hint ? html`<span class="hint" id="${name}-hint">${hint}</span>` : ""}
${errors.length ? html`<span class="message" id="${name}-error">${errors.join(" ")}</span>` : ""}
${input(attrs)}
</div>`;
}

const line = (name: string, value: string, problems: FormProblems, max: number, opts: { required?: boolean; hint?: string } = {}) =>
  control(
    name,
    problems,
    opts.hint ?? HINTS[name],
    (a) => html`<input type="text" ${a} value="${value}" maxlength="${String(max)}"${opts.required ? " required" : ""} autocomplete="off">`,
  );
const text = (name: string, value: string, problems: FormProblems, rows = 4) =>
  control(name, problems, HINTS[name], (a) => html`<textarea ${a} rows="${String(rows)}">${value}</textarea>`);

/** The summary of a form that came back, first in the page, with a link to each field. */
export function problemSummary(problems: FormProblems, what: string, fieldsAt = ""): Html | "" {
  const names = Object.keys(problems);
  if (!names.length) return "";
  return html`<div class="error-summary" id="errors" role="alert" tabindex="-1"><p><strong>${what}</strong>
${
  fieldsAt
    ? "Correct the advisory first:"
    : `Correct ${names.length === 1 ? "this field" : "these fields"}: everything you typed is still here.`
}</p>
<ul>${names.map(
    (n) => html`<li>${n === "form" ? "" : html`<a href="${fieldsAt}#${n}">${fieldLabel(n)}</a>: `}${problems[n]!.join(" ")}</li>`,
  )}</ul></div>`;
}

function productRow(p: ProductRow, i: number, problems: FormProblems, removable: boolean): Html {
  return html`<fieldset class="product"><legend>Product ${i + 1}</legend>
${line(`vendor_${i}`, p.vendor, problems, LIMITS.nameLength, { hint: "" })}
${line(`product_${i}`, p.product, problems, LIMITS.nameLength, { hint: "" })}
${line(`purl_${i}`, p.purl, problems, LIMITS.purlLength, { hint: "Optional, such as pkg:npm/%40acme/widget." })}
${control(`versions_${i}`, problems, VERSIONS_HINT, (a) => html`<textarea ${a} rows="3" spellcheck="false">${p.versions}</textarea>`)}
${
  removable
    ? html`<button type="submit" name="remove_product" value="${String(i)}" class="secondary"
formnovalidate>Remove product ${i + 1}</button>`
    : ""
}
</fieldset>`;
}

/** The form's fields and its buttons; `action` is where it is sent, `submit` its main button's words. */
export function advisoryForm(
  who: Who,
  v: AdvisoryFormValues,
  problems: FormProblems,
  opts: { action: string; submit: string; revising: boolean },
): Html {
  const products = v.products.length ? v.products : [EMPTY_PRODUCT];
  return html`<form method="post" action="${opts.action}" class="advisory">${csrfField(who)}
${line("title", v.title, problems, LIMITS.titleLength, { required: true })}
${line("vulns", v.vulns, problems, 400)}
${text("summary", v.summary, problems, 3)}
${text("description", v.description, problems, 8)}
<fieldset id="affected"><legend>Affected products</legend>
${problems.affected ? html`<span class="message">${problems.affected.join(" ")}</span>` : ""}
${products.map((p, i) => productRow(p, i, problems, products.length > 1))}
${
  products.length < LIMITS.productsPerAdvisory
    ? html`<button type="submit" name="add_product" value="1" class="secondary" formnovalidate>Add a product</button>`
    : ""
}
</fieldset>
${text("remediation", v.remediation, problems)}
${text("references", v.references, problems, 3)}
${line("cve_id", v.cve_id, problems, 30)}
${line("cvss_vector", v.cvss_vector, problems, LIMITS.cvssVectorLength)}
${line("cwe_ids", v.cwe_ids, problems, 200)}
${text("credits", v.credits, problems, 3)}
${opts.revising ? line("revision_note", v.revision_note, problems, LIMITS.revisionNoteLength, { required: true }) : ""}
<div class="actions"><button type="submit" name="save" value="1">${opts.submit}</button></div>
</form>`;
}
