import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { PublishedBrief } from "../services/briefs";
import { maturityRating } from "../lib/maturity";
import { document, type Html } from "./layout";
import { policyTerms, scopeList } from "./terms";
import { LIMITS, mib } from "../lib/limits";

export const FORM_FIELDS = ["title", "description", "contact_email", "domains", "files"] as const;
export type FormField = (typeof FORM_FIELDS)[number];

/** What the researcher typed, kept as typed, and what is wrong with it, field by field. */
export interface FormState {
  /** The fields, and notify_me: "on" when its box is ticked. */
  values: Record<Exclude<FormField, "files"> | "notify_me", string>;
  errors: Partial<Record<FormField, string[]>>;
}

export const EMPTY_FORM: FormState = {
  values: { title: "", description: "", contact_email: "", domains: "", notify_me: "on" },
  errors: {},
};

const LABELS: Record<FormField, string> = {
  title: "Title",
  description: "Description",
  contact_email: "Your e-mail address (optional)",
  domains: "Affected domains (optional)",
  files: `Files (optional, up to ${LIMITS.formFiles})`,
};

export const FIELD_NAMES: Record<FormField, string> = {
  title: "Title",
  description: "Description",
  contact_email: "E-mail address",
  domains: "Domains",
  files: "Files",
};

const HINTS: Record<FormField, string> = {
  title: `One line, at most ${LIMITS.titleLength} characters.`,
  description: "What you found, where, and the steps to see it again. Plain text.",
  contact_email:
    "Only the organization sees it. Leave it empty to stay anonymous: the page you land on after sending is your way back. With an " +
    "address, the box below gets you that page's link by e-mail.",
  domains: `One per line, or separated by commas, such as app.example.com. At most ${LIMITS.domainsPerVuln}.`,
  files:
    `Screenshots, logs or a proof of concept: at most ${mib(LIMITS.fileBytes)} each. If the form comes back with a message, choose the ` +
    `files again: browsers never keep a chosen file.`,
};

function field(state: FormState, name: FormField, control: (attrs: Html) => Html): Html {
  const errors = state.errors[name] ?? [];
  const hintId = `${name}-hint`;
  const errorId = `${name}-error`;
  const describedBy = errors.length ? `${errorId} ${hintId}` : hintId;
  const attrs = html`id="${name}" name="${name}" aria-describedby="${describedBy}"${errors.length ? html` aria-invalid="true"` : ""}`;
  return html`<div class="field">
<label for="${name}">${LABELS[name]}</label>
<span class="hint" id="${hintId}">${HINTS[name]}</span>
${errors.length ? html`<span class="message" id="${errorId}">${errors.join(" ")}</span>` : ""}
${control(attrs)}
</div>`;
}

function reportForm(shortcode: string, state: FormState): Html {
  const v = state.values;
  const problems = FORM_FIELDS.filter((f) => state.errors[f]?.length);
  const these = problems.length === 1 ? "this field" : "these fields";
  return html`<h2 id="report">Send a report</h2>
${
  problems.length
    ? html`<div class="error-summary" id="errors" role="alert" tabindex="-1" autofocus><p><strong>The report was not sent.</strong>
Correct ${these}: everything you typed is still here.</p>
<ul>${problems.map((f) => html`<li><a href="#${f}">${FIELD_NAMES[f]}</a>: ${state.errors[f]!.join(" ")}</li>`)}</ul></div>`
    : ""
}
<form method="post" action="/b/${shortcode}#errors" enctype="multipart/form-data">
${field(
  state,
  "title",
  (a) => html`<input type="text" ${a} value="${v.title}" required maxlength="${String(LIMITS.titleLength)}" autocomplete="off">`,
)}
${field(state, "description", (a) => html`<textarea ${a} required rows="10">${v.description}</textarea>`)}
${field(
  state,
  "contact_email",
  (a) => html`<input type="email" ${a} value="${v.contact_email}" autocomplete="email" maxlength="${LIMITS.emailLength}">`,
)}
<div class="field check"><label><input type="checkbox" name="notify_me" id="notify_me"${v.notify_me === "on" ? " checked" : ""}>
E-mail me a receipt with my report's link, and a note when the organization answers or my report changes state
(each e-mail has a link to stop them)</label></div>
${field(state, "domains", (a) => html`<textarea ${a} rows="3" autocapitalize="none" spellcheck="false">${v.domains}</textarea>`)}
${field(state, "files", (a) => html`<input type="file" ${a} multiple>`)}
<p class="muted">Sending creates one report. Sending the same report again within 10 minutes does not create a second one.</p>
<button type="submit">Send the report</button>
</form>`;
}

/** GET /b/{shortcode}: terms first, then the form. */
export function briefPage(found: PublishedBrief, now: string, state: FormState = EMPTY_FORM): string {
  const { policy, responsiveness } = found;
  // Names and descriptions as one line (a row kept from before that rule may hold breaks or bidi controls).
  const brief = {
    ...found.brief,
    name: oneLine(found.brief.name),
    shortDescription: found.brief.shortDescription && oneLine(found.brief.shortDescription),
  };
  const organization = { ...found.organization, websiteUrl: found.organization.websiteUrl && oneLine(found.organization.websiteUrl) };
  const name = oneLine(organization.name);
  // The tab's title says each thing once: the brief's own name may already say either.
  const title = [brief.name, /vulnerabilit/i.test(brief.name) ? null : "Report a vulnerability", brief.name.includes(name) ? null : name];
  // One scope: the brief's own where it has one, else its policy's (shown here, not again below).
  const inScope = brief.inScopeAssets.length || !policy ? brief.inScopeAssets : policy.inScopeAssets;
  const outOfScope = brief.outOfScopeAssets.length || !policy ? brief.outOfScopeAssets : policy.outOfScopeAssets;
  // A form that came back says so first in the tab, and its action's #errors lands the page on the
  // summary, which takes focus (autofocus): no script needed.
  const failed = FORM_FIELDS.some((f) => state.errors[f]?.length);
  return document(
    `${failed ? "Error: " : ""}${title.filter((t) => t !== null).join(" · ")}`,
    html`<p class="muted">${name}${
      organization.websiteUrl && /^https?:\/\//i.test(organization.websiteUrl)
        ? html` · <a href="${organization.websiteUrl}" rel="nofollow noopener">${organization.websiteUrl}</a>`
        : ""
    }</p>
<h1>${brief.name}</h1>
${brief.shortDescription ? html`<p class="lead">${brief.shortDescription}</p>` : ""}
<p>Found a security problem in ${name}'s systems? Read the terms below, then <a href="#report">send a report</a>. You need no account.</p>
<h2>What this program covers</h2>
<dl class="terms">
<dt>In scope</dt><dd>${scopeList(inScope, "None listed.")}</dd>
<dt>Out of scope</dt><dd>${scopeList(outOfScope, "None listed.")}</dd>
</dl>
${
  policy
    ? policyTerms(policy, maturityRating(policy, now), 2, { scope: false, responsiveness })
    : html`<div class="warning"><p>${name} has no published disclosure policy for this program: no safe harbor or disclosure terms
are stated. Report with care.</p></div>`
}
${reportForm(brief.shortcode, state)}`,
    {
      heading: `${name} · Vulnerability disclosure`,
      description: `Report a security vulnerability to ${name} through ${brief.name}: the terms, the scope and a form, no account needed.`,
    },
  );
}

/** A repeat of a report already received from this address in the last 10 minutes. */
export function alreadyReceivedPage(found: PublishedBrief, shortcode: string | null): string {
  return document(
    "Report already received",
    html`<h1>This report was already received</h1>
<p class="lead">The same report was sent from this address a few minutes ago${
      shortcode ? html`, as <strong class="mono">${shortcode}</strong>` : ""
    }. No second report was made.</p>
<p>Its report page, the link to follow it, was opened by the first send and is shown only that once. If you have that page open in another
tab or in your history, keep using it. If you lost it, send the report again after 10 minutes and mention the earlier one.</p>
<p><a href="/b/${found.brief.shortcode}">Back to ${oneLine(found.brief.name)}</a></p>`,
    { heading: `${found.organization.name} · Vulnerability disclosure` },
  );
}
