import { html } from "hono/html";
import type { Html } from "./layout";

// The settings forms' pieces: a field with its problems beside it, and the summary of them at the top.

/** What was typed, and the problems of each field (by its name). */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string[]>;
}

export const emptyForm = (values: Record<string, string> = {}): FormState => ({ values, errors: {} });

const described = (form: FormState, name: string) =>
  form.errors[name]?.length ? html` aria-invalid="true" aria-describedby="${name}-error"` : "";

function problems(form: FormState, name: string): Html | string {
  const list = form.errors[name];
  return list?.length ? html`<span class="message" id="${name}-error">${list.join(" ")}</span>` : "";
}

/** A text, number, URL or e-mail input; or a textarea with `rows`. */
export function field(
  form: FormState,
  name: string,
  label: string,
  opts: { type?: "text" | "number" | "url" | "email"; rows?: number; hint?: string } = {},
): Html {
  const value = form.values[name] ?? "";
  const hint = opts.hint ? html`<span class="hint" id="${name}-hint">${opts.hint}</span>` : "";
  const control = opts.rows
    ? html`<textarea id="${name}" name="${name}" rows="${String(opts.rows)}"${described(form, name)}>${value}</textarea>`
    : html`<input type="${opts.type ?? "text"}" id="${name}" name="${name}" value="${value}"${described(form, name)}>`;
  return html`<div class="field"><label for="${name}">${label}</label>${hint}${problems(form, name)}${control}</div>`;
}

/** A select of [value, label] options, the typed value chosen. */
export function choice(form: FormState, name: string, label: string, options: [string, string][]): Html {
  const value = form.values[name] ?? "";
  return html`<div class="field"><label for="${name}">${label}</label>${problems(form, name)}
<select id="${name}" name="${name}"${described(form, name)}>${options.map(
    ([v, text]) => html`<option value="${v}"${v === value ? " selected" : ""}>${text}</option>`,
  )}</select></div>`;
}

/** The problems of a form sent back, linked to their fields. */
export function errorSummary(form: FormState, labels: Record<string, string>): Html | string {
  const names = Object.keys(form.errors).filter((n) => form.errors[n]?.length);
  if (!names.length) return "";
  const needs = names.length === 1 ? "a field needs" : "some fields need";
  return html`<div class="error-summary" role="alert"><p><strong>Nothing was saved: ${needs} attention.</strong></p><ul>${names.map(
    (n) => html`<li><a href="#${n}">${labels[n] ?? n}</a>: ${form.errors[n]!.join(" ")}</li>`,
  )}</ul></div>`;
}
