import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { PublishedBrief } from "../services/briefs";
import { maturityRating } from "../lib/maturity";
import { document, type Html } from "./layout";
import { policyTerms, scopeList } from "./terms";
import { EMPTY_FORM, FORM_FIELDS, type FormState, reportForm } from "./brief-form";
import { GATE_JS_PATH } from "./gate-script";
import { POW_WORKER_JS_PATH } from "./pow-worker-script";

export { EMPTY_FORM, FIELD_NAMES, FORM_FIELDS, type FormField, type FormState } from "./brief-form";

/** While its organization pauses the brief: until when, in words a reporter reads, and their message. */
function pauseNotice(brief: PublishedBrief["brief"], now: string): Html {
  if (!brief.intakePausedUntil || brief.intakePausedUntil <= now) return html``;
  return html`<div class="warning" id="paused" role="status"><p><strong>Not taking reports until
${brief.intakePausedUntil.slice(0, 16).replace("T", " ")} UTC.</strong>${
    brief.intakePausedMessage ? html` ${brief.intakePausedMessage}` : ""
  }</p>
<p>A report sent before then is not stored: keep it, and send it again once the program reopens.</p></div>`;
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
${pauseNotice(found.brief, now)}
${reportForm(
  {
    shortcode: brief.shortcode,
    organizationId: organization.id,
    organizationName: name,
    requirements: brief.submissionRequirements,
    proofOfWork: brief.proofOfWork,
  },
  state,
  { gate: GATE_JS_PATH, worker: POW_WORKER_JS_PATH },
)}`,
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
