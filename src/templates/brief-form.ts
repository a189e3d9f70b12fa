import { html } from "hono/html";
import { AI_USE_LEVELS, EVIDENCE_FIELDS, type EvidenceField, type SubmissionRequirements } from "../db/schema";
import { LIMITS, mib } from "../lib/limits";
import { evidenceLabel, listedEvidence } from "../lib/submission-requirements";
import type { Html } from "./layout";

// The report form of a brief's page. It works without JavaScript; the gate's script (when the brief
// asks for proof of work, or to sign) only fills the hidden fields below before it is sent.

export const EVIDENCE_FORM_FIELDS = EVIDENCE_FIELDS.map((f) => `evidence_${f}` as const);
/** The form's fields in page order; `send` stands for the form as a whole (the gate's refusals). */
export const FORM_FIELDS = [
  "title",
  "description",
  ...EVIDENCE_FORM_FIELDS,
  "ai_use",
  "contact_email",
  "domains",
  "files",
  "send",
] as const;
export type FormField = (typeof FORM_FIELDS)[number];
/** The form's text values: its fields, the AI-use answers, and the boxes ("on" when ticked). */
export type FormValues = Record<Exclude<FormField, "files" | "ai_use" | "send">, string> & {
  notify_me: string;
  ai_use_level: string;
  ai_use_tools: string;
  ai_use_verified: string;
  sign: string;
};

/** What the researcher typed, kept as typed, and what is wrong with it, field by field. */
export interface FormState {
  values: FormValues;
  errors: Partial<Record<FormField, string[]>>;
}

export const EMPTY_FORM: FormState = {
  values: {
    title: "",
    description: "",
    ...(Object.fromEntries(EVIDENCE_FORM_FIELDS.map((f) => [f, ""])) as Record<(typeof EVIDENCE_FORM_FIELDS)[number], string>),
    contact_email: "",
    domains: "",
    notify_me: "on",
    ai_use_level: "",
    ai_use_tools: "",
    ai_use_verified: "",
    sign: "on",
  },
  errors: {},
};

export const FIELD_NAMES: Record<FormField, string> = {
  title: "Title",
  description: "Description",
  ...(Object.fromEntries(EVIDENCE_FIELDS.map((f) => [`evidence_${f}`, evidenceLabel(f)])) as Record<
    (typeof EVIDENCE_FORM_FIELDS)[number],
    string
  >),
  ai_use: "AI use",
  contact_email: "E-mail address",
  domains: "Domains",
  files: "Files",
  send: "Sending",
};

const EVIDENCE_HINTS: Record<EvidenceField, string> = {
  steps_to_reproduce: "Numbered steps someone else can follow to see it again.",
  proof_of_concept:
    `A request, a script or a payload that shows it (up to ${LIMITS.proofOfConceptLength.toLocaleString("en")} characters), ` +
    "or attach it as a file just below.",
  affected_version: "The version, build or date of what you tested.",
  expected_result: "What should have happened.",
  actual_result: "What happened instead.",
  impact: "What an attacker gains, and who is harmed.",
};

const BASE_LABELS = {
  title: "Title",
  description: "Description",
  contact_email: "Your e-mail address (optional)",
  domains: "Affected domains (optional)",
  files: `Files (optional, up to ${LIMITS.formFiles})`,
};

const BASE_HINTS = {
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

/** A field with its label, hint and messages (the messages read first by a screen reader, then the hint). */
function field(state: FormState, name: FormField, { label, hint }: { label: string; hint: string }, control: (attrs: Html) => Html): Html {
  const errors = state.errors[name] ?? [];
  const hintId = `${name}-hint`;
  const errorId = `${name}-error`;
  const describedBy = errors.length ? `${errorId} ${hintId}` : hintId;
  const attrs = html`id="${name}" name="${name}" aria-describedby="${describedBy}"${errors.length ? html` aria-invalid="true"` : ""}`;
  return html`<div class="field">
<label for="${name}">${label}</label>
<span class="hint" id="${hintId}">${hint}</span>
${errors.length ? html`<span class="message" id="${errorId}">${errors.join(" ")}</span>` : ""}
${control(attrs)}
</div>`;
}

const base = (name: keyof typeof BASE_LABELS) => ({ label: BASE_LABELS[name], hint: BASE_HINTS[name] });

/** The evidence fields the brief lists, each saying whether it is required. */
function evidenceFields(req: SubmissionRequirements, state: FormState): Html[] {
  return listedEvidence(req).map((f) => {
    const name = `evidence_${f}` as const;
    const required = req.evidence[f] === "required";
    const label = `${evidenceLabel(f)} (${required ? "required" : "optional"})`;
    const max = f === "proof_of_concept" ? LIMITS.proofOfConceptLength : LIMITS.evidenceFieldLength;
    const rows = f === "proof_of_concept" || f === "steps_to_reproduce" ? 6 : 3;
    const area = field(
      state,
      name,
      { label, hint: EVIDENCE_HINTS[f] },
      (a) =>
        html`<textarea ${a} rows="${rows}" maxlength="${max}"${
          required && f !== "proof_of_concept" ? " required" : ""
        }>${state.values[name]}</textarea>`,
    );
    if (f !== "proof_of_concept") return area;
    return html`${area}<div class="field"><label for="proof_of_concept_file">Proof of concept as a file (optional)</label>
<input type="file" id="proof_of_concept_file" name="proof_of_concept_file"></div>`;
  });
}

const AI_LEVEL_WORDS: Record<(typeof AI_USE_LEVELS)[number], string> = {
  none: "No AI was used",
  writing: "AI helped write the report",
  discovery: "AI helped find the problem",
  generated: "AI produced the finding",
};

/** The AI-use disclosure, when the brief asks for it. */
function aiUseFields(req: SubmissionRequirements, state: FormState): Html {
  if (req.ai_disclosure === "off") return html``;
  const v = state.values;
  const errors = state.errors.ai_use ?? [];
  const required = req.ai_disclosure === "required";
  return html`<fieldset id="ai_use"${errors.length ? html` aria-describedby="ai_use-error"` : ""}>
<legend>How AI was used (${required ? "required" : "optional"})</legend>
${errors.length ? html`<span class="message" id="ai_use-error">${errors.join(" ")}</span>` : ""}
${AI_USE_LEVELS.map(
  (level) =>
    html`<div class="field check"><label><input type="radio" name="ai_use_level" value="${level}"${
      v.ai_use_level === level ? " checked" : ""
    }${required ? " required" : ""}> ${AI_LEVEL_WORDS[level]}</label></div>`,
)}
<div class="field"><label for="ai_use_tools">Models or tools used (optional)</label>
<input type="text" id="ai_use_tools" name="ai_use_tools" value="${v.ai_use_tools}" maxlength="${LIMITS.aiToolsLength}"></div>
<div class="field check"><label><input type="checkbox" name="ai_use_verified"${v.ai_use_verified === "on" ? " checked" : ""}>
I reproduced the finding myself</label></div>
</fieldset>`;
}

/** What the form needs to know of the brief, and the gate's script paths. */
export interface FormBrief {
  shortcode: string;
  organizationId: string;
  organizationName: string;
  requirements: SubmissionRequirements;
  proofOfWork: string;
}

/** The form, with the gate's hidden fields and the markup its script reads. */
export function reportForm(brief: FormBrief, state: FormState, scripts: { gate: string; worker: string }): Html {
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
<form method="post" action="/b/${brief.shortcode}#errors" enctype="multipart/form-data" data-gate data-pow="${brief.proofOfWork}"
data-challenge="/v1/p/briefs/${brief.shortcode}/challenge" data-worker="${scripts.worker}" data-organization="${brief.organizationId}"
data-brief="${brief.shortcode}">
${field(
  state,
  "title",
  base("title"),
  (a) => html`<input type="text" ${a} value="${v.title}" required maxlength="${String(LIMITS.titleLength)}" autocomplete="off">`,
)}
${field(state, "description", base("description"), (a) => html`<textarea ${a} required rows="10">${v.description}</textarea>`)}
${evidenceFields(brief.requirements, state)}
${aiUseFields(brief.requirements, state)}
${field(
  state,
  "contact_email",
  base("contact_email"),
  (a) => html`<input type="email" ${a} value="${v.contact_email}" autocomplete="email" maxlength="${LIMITS.emailLength}">`,
)}
<div class="field check"><label><input type="checkbox" name="notify_me" id="notify_me"${v.notify_me === "on" ? " checked" : ""}>
E-mail me a receipt with my report's link, and a note when the organization answers or my report changes state
(each e-mail has a link to stop them)</label></div>
${field(
  state,
  "domains",
  base("domains"),
  (a) => html`<textarea ${a} rows="3" autocapitalize="none" spellcheck="false">${v.domains}</textarea>`,
)}
${field(state, "files", base("files"), (a) => html`<input type="file" ${a} multiple>`)}
<div class="field check"><label><input type="checkbox" name="sign" id="sign"${v.sign === "on" ? " checked" : ""}>
Sign with this browser's key for ${brief.organizationName}. No name is attached: the key only lets ${brief.organizationName} see your
earlier reports to it and how they ended, so a good record counts. Another organization sees another key.</label></div>
<input type="hidden" name="pow" value="">
<input type="hidden" name="reporter_key" value="">
<input type="hidden" name="reporter_signature" value="">
<p class="muted" id="gate-status" aria-live="polite">${
    brief.proofOfWork === "off"
      ? ""
      : "This brief asks your browser to solve a small puzzle before sending (a few seconds, no tracking). Without JavaScript the report " +
        "is still sent, marked as unverified."
  }</p>
<p class="muted">Sending creates one report. Sending the same report again within 10 minutes does not create a second one.</p>
${state.errors.send?.length ? html`<span class="message" id="send-error">${state.errors.send.join(" ")}</span>` : ""}
<button type="submit" id="send">Send the report</button>
</form>
<script src="${scripts.gate}" defer></script>`;
}
