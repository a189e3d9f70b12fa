import { html } from "hono/html";
import { consoleDocument, mayConfigure, type Who } from "./console-layout";
import type { Html } from "./layout";

// The settings' shared pieces: the index, the tabs every settings page starts with, a form's problems
// (a summary with role="alert" at the top, each beside its field), and the one-line notices a page shows
// after a change (fixed words picked by name, never text from the address).

/** A form's problems by field name (the form's own names), each a sentence that names its field. */
export type FieldErrors = Record<string, string[]>;

export interface FormState {
  values: Record<string, string>;
  errors: FieldErrors;
  /** Problems of the whole form (no field of their own). */
  summary?: string[];
}

export const emptyForm = (values: Record<string, string> = {}): FormState => ({ values, errors: {} });

const PAGES: [string, string, string][] = [
  ["policy", "/console/settings/policy", "The disclosure policy reporters read, with its versions and the differences between them."],
  ["briefs", "/console/settings/briefs", "The programs reporters submit to: their forms, scope and rewards."],
  ["contacts", "/console/settings/contacts", "The people e-mailed about new reports and missed deadlines."],
  ["webhooks", "/console/settings/webhooks", "Addresses that receive the organization's events, and what was delivered to them."],
  ["members", "/console/settings/members", "Who signs in to this console, and as what: owner, triager or viewer."],
  ["api-keys", "/console/settings/api-keys", "Keys for the organization's scripts and tools to call the API."],
  ["canned-responses", "/console/settings/canned-responses", "Answers kept ready for the organization's replies to reporters."],
  ["audit", "/console/settings/audit", "Every change, who made it, when and from where."],
];
const NAMES: Record<string, string> = {
  policy: "Policy",
  briefs: "Briefs",
  contacts: "Contacts",
  webhooks: "Webhooks",
  members: "Members",
  "api-keys": "API keys",
  "canned-responses": "Canned responses",
  audit: "Audit log",
};

export type SettingsPage = "contacts" | "webhooks" | "members" | "api-keys" | "audit";

/** A settings page in the console's layout, with the way back to the index and who may change it. */
export function settingsDocument(who: Who, current: SettingsPage, title: string, main: Html | Html[]): string {
  return consoleDocument(
    who,
    "settings",
    title,
    html`<p class="muted"><a href="/console/settings">Settings</a> › ${NAMES[current]}</p>
${
  mayConfigure(who)
    ? ""
    : html`<p class="notice">You can read these settings as a ${who.role}; only the organization's owners change them.</p>`
}${main}`,
  );
}

/** /console/settings: each page of the settings, with one line saying what it is. */
export function settingsIndexPage(who: Who): string {
  return consoleDocument(
    who,
    "settings",
    "Settings",
    html`<h1>Settings</h1>
<p class="lead">${
      mayConfigure(who)
        ? "The organization's settings. As an owner you can change them all."
        : html`The organization's settings. You can read them as a ${who.role}; only owners change them.`
    }</p>
<dl class="terms">${PAGES.map(([name, href, line]) => html`<dt><a href="${href}">${NAMES[name]}</a></dt><dd>${line}</dd>`)}
<dt><a href="/console/account">Passkeys</a></dt><dd>Your own passkeys, to sign in without an e-mailed link (on your account's page).</dd>
</dl>`,
  );
}

/** The summary of a form's problems, at the top of the page (role="alert"), each linking to its field. */
export function errorSummary(form: FormState): Html | string {
  const listed = Object.entries(form.errors).flatMap(([name, messages]) => messages.map((m) => html`<li><a href="#${name}">${m}</a></li>`));
  const whole = (form.summary ?? []).map((m) => html`<li>${m}</li>`);
  if (!listed.length && !whole.length) return "";
  return html`<div class="error-summary" role="alert" tabindex="-1"><h2>Nothing was changed: check the form</h2>
<ul>${whole}${listed}</ul></div>`;
}

/** A field's problems, beside it, and the attributes its input needs (described by them, marked invalid). */
export function fieldProblem(form: FormState, name: string): { message: Html | string; attributes: Html | string } {
  const messages = form.errors[name];
  if (!messages?.length) return { message: "", attributes: "" };
  return {
    message: html`<span class="message" id="${name}-error">${messages.join(" ")}</span>`,
    attributes: html` aria-invalid="true" aria-describedby="${name}-error"`,
  };
}

/** A text input with its label, hint and problems. */
export function textField(
  form: FormState,
  f: {
    name: string;
    label: string;
    type?: "text" | "email" | "url" | "datetime-local";
    hint?: string;
    maxlength?: number;
    required?: boolean;
  },
): Html {
  const problem = fieldProblem(form, f.name);
  const hintId = f.hint ? `${f.name}-hint` : null;
  const describedBy = [hintId, form.errors[f.name]?.length ? `${f.name}-error` : null].filter(Boolean).join(" ");
  return html`<div class="field"><label for="${f.name}">${f.label}</label>${
    f.hint ? html`<span class="hint" id="${hintId}">${f.hint}</span>` : ""
  }
${problem.message}<input type="${f.type ?? "text"}" id="${f.name}" name="${f.name}" value="${form.values[f.name] ?? ""}"${
    f.maxlength ? html` maxlength="${f.maxlength}"` : ""
  }${f.required ? html` required` : ""}${form.errors[f.name]?.length ? html` aria-invalid="true"` : ""}${
    describedBy ? html` aria-describedby="${describedBy}"` : ""
  }></div>`;
}

/** The words of a notice after a change, by name (the address names one; nothing from it is shown). */
export function doneNotice(done: string | undefined, words: Record<string, string>): Html | string {
  const text = done ? words[done] : undefined;
  return text ? html`<p class="notice" role="status">${text}</p>` : "";
}
