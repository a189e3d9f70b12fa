import { html } from "hono/html";
import type { CannedResponseRow, CommentVisibility } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import { consoleDocument, csrfField, mayConfigure, type Who } from "./console-layout";
import { type Html, when } from "./layout";

// Settings > Canned responses: the organization's replies kept ready. Everyone signed in reads them;
// owners get the forms (the service refuses anyone else, whatever a page shows).

export const CANNED_PATH = "/console/settings/canned-responses";

/** What the form holds: as typed, so a refused form comes back as it was sent. */
export interface CannedForm {
  name: string;
  body: string;
  visibility: string;
}

export type CannedField = "name" | "body" | "visibility";
/** Each field's problem, in words, beside it and in the summary. */
export type FieldProblems = Partial<Record<CannedField, string>>;

const LABELS: Record<CannedField, string> = { name: "Name", body: "Text", visibility: "Who can read a comment made from it" };

const VISIBILITY_WORDS: Record<CommentVisibility, string> = {
  reporter: "The reporter and the organization",
  internal: "Only the organization (an internal note)",
};

export const EMPTY_FORM: CannedForm = { name: "", body: "", visibility: "reporter" };

const visibilityInWords = (v: string) => VISIBILITY_WORDS[v as CommentVisibility] ?? v;

/** The summary at the top of a refused form: each problem, linking to its field. */
function problemSummary(problems: FieldProblems): Html | string {
  const listed = (Object.keys(LABELS) as CannedField[]).filter((f) => problems[f]);
  if (listed.length === 0) return "";
  return html`<div class="error-summary" role="alert"
tabindex="-1"><h2>Nothing was saved: fix ${listed.length === 1 ? "this" : "these"}</h2>
<ul>${listed.map(
    (f) => html`<li><a href="#${f === "visibility" ? "visibility-reporter" : f}">${LABELS[f]}: ${problems[f]}</a></li>`,
  )}</ul></div>`;
}

const invalid = (problem: string | undefined, id: string) =>
  problem ? html` aria-invalid="true" aria-describedby="${id}-hint ${id}-error"` : html` aria-describedby="${id}-hint"`;
const message = (problem: string | undefined, id: string) =>
  problem ? html`<span class="message" id="${id}-error">${problem}</span>` : "";

/** The fields of a canned response, filled with what was typed. */
function fields(form: CannedForm, problems: FieldProblems): Html {
  return html`<div class="field">
<label for="name">${LABELS.name}</label>
<span class="hint" id="name-hint">Unique in your organization, at most ${LIMITS.nameLength} characters.</span>
${message(problems.name, "name")}
<input type="text" id="name" name="name" required maxlength="${LIMITS.nameLength}" value="${form.name}"${invalid(problems.name, "name")}>
</div>
<div class="field">
<label for="body">${LABELS.body}</label>
<span class="hint" id="body-hint">At most ${LIMITS.cannedResponseBodyLength.toLocaleString("en")} characters.
{{reporter_name}}, {{shortcode}} and
{{policy_url}} are filled with the report's when the response is used; any other {{...}} stays as typed.</span>
${message(problems.body, "body")}
<textarea id="body" name="body" required maxlength="${LIMITS.cannedResponseBodyLength}"
rows="8"${invalid(problems.body, "body")}>${form.body}</textarea>
</div>
<fieldset class="radio"${problems.visibility ? html` aria-describedby="visibility-error"` : ""}>
<legend>${LABELS.visibility}</legend>
${message(problems.visibility, "visibility")}
${(Object.keys(VISIBILITY_WORDS) as CommentVisibility[]).map(
  (v) => html`<label><input type="radio" name="visibility" id="visibility-${v}" value="${v}"${form.visibility === v ? html` checked` : ""}>
${VISIBILITY_WORDS[v]}</label>`,
)}
</fieldset>`;
}

export interface CannedListView {
  who: Who;
  rows: CannedResponseRow[];
  total: number;
  /** The add form as typed, when it was refused. */
  form?: CannedForm;
  problems?: FieldProblems;
}

/** The list, and for owners the form that adds one. */
export function cannedListPage({ who, rows, total, form = EMPTY_FORM, problems = {} }: CannedListView): string {
  const owner = mayConfigure(who);
  return consoleDocument(
    who,
    "settings",
    "Canned responses",
    html`<p><a href="/console/settings">Settings</a></p>
<h1>Canned responses</h1>
${problemSummary(problems)}
<p class="lead">Replies kept ready for your reports: ${total} canned response${total === 1 ? "" : "s"}${
      rows.length < total ? html`, the first ${rows.length} shown` : ""
    }.
${owner ? "" : html`Only owners add, change or delete them; you can read them.`}</p>
${
  rows.length
    ? html`<table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">Readable by</th><th scope="col">Text</th><th scope="col">Changed</th></tr></thead>
<tbody>${rows.map(
        (r) => html`<tr><td data-label="Name"><a href="${CANNED_PATH}/${r.id}">${oneLine(r.name)}</a></td>
<td data-label="Readable by">${visibilityInWords(r.visibility)}</td>
<td data-label="Text"><div class="body">${r.body}</div></td><td data-label="Changed">${when(r.updatedAt)}</td></tr>`,
      )}</tbody>
</table>`
    : html`<p>None yet.</p>`
}
${
  owner
    ? html`<h2 id="add">Add a canned response</h2>
<form method="post" action="${CANNED_PATH}">${csrfField(who)}
${fields(form, problems)}
<div class="actions"><button type="submit">Add the canned response</button></div>
</form>`
    : ""
}`,
  );
}

export interface CannedEditView {
  who: Who;
  row: CannedResponseRow;
  form?: CannedForm;
  problems?: FieldProblems;
}

/** One canned response: for owners the form that changes it and the one that deletes it; for others, what it says. */
export function cannedEditPage({ who, row, form, problems = {} }: CannedEditView): string {
  const title = oneLine(row.name);
  if (!mayConfigure(who))
    return consoleDocument(
      who,
      "settings",
      title,
      html`<p><a href="${CANNED_PATH}">Canned responses</a></p>
<h1>${title}</h1>
<p class="lead">Only owners change canned responses; you can read this one.</p>
<dl class="terms"><dt>Readable by</dt><dd>${visibilityInWords(row.visibility)}</dd><dt>Changed</dt><dd>${when(row.updatedAt)}</dd>
<dt>Text</dt><dd><div class="body">${row.body}</div></dd></dl>`,
    );
  const typed = form ?? { name: row.name, body: row.body, visibility: row.visibility };
  return consoleDocument(
    who,
    "settings",
    `Edit ${title}`,
    html`<p><a href="${CANNED_PATH}">Canned responses</a></p>
<h1>Edit ${title}</h1>
${problemSummary(problems)}
<p class="lead">Last changed ${when(row.updatedAt)}.</p>
<form method="post" action="${CANNED_PATH}/${row.id}">${csrfField(who)}
${fields(typed, problems)}
<div class="actions"><button type="submit">Save the changes</button></div>
</form>
<h2>Delete it</h2>
<form method="post" action="${CANNED_PATH}/${row.id}/delete">${csrfField(who)}
<p>Deleting takes it off the list for everyone in your organization; comments made from it stay as they are.</p>
<div class="actions"><button type="submit" class="secondary">Delete ${title}</button></div>
</form>`,
  );
}
