import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import { pageOf } from "../../http/jsonapi";
import type { Page } from "../../db/pagination";
import { Invalid, type Member } from "../../lib/domain-errors";
import type { FieldErrors } from "../../templates/console-settings";

// What the settings' forms share: fields read from a form, checked by the API's own schema for the same
// record (its messages beside their fields), a service's refusal of a field (Invalid) beside that field,
// and cursor pages of a settings list. Nothing here repeats a rule.

/** Each issue at data.attributes.<field> under its field, worded with the field's label. */
export function formProblems(issues: z.core.$ZodIssue[], labels: Record<string, string>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const name = String(issue.path[2] ?? "");
    const key = name in labels ? name : Object.keys(labels)[0]!;
    (errors[key] ??= []).push(`${labels[key]} ${issue.message}.`);
  }
  return errors;
}

/**
 * A form's candidate checked by the API's schema for the same attributes: its value, or each problem
 * as a sentence beside its field (`labels` names the fields; an attribute without a field of its own
 * is said at the first field).
 */
export function checkedBy<S extends z.ZodType>(
  schema: S,
  candidate: unknown,
  labels: Record<string, string>,
): { ok: true; value: z.output<S> } | { ok: false; errors: FieldErrors } {
  const parsed = schema.safeParse(candidate);
  if (parsed.success) return { ok: true, value: parsed.data };
  const errors: FieldErrors = {};
  const first = Object.keys(labels)[0]!;
  for (const issue of parsed.error.issues) {
    const at = String(issue.path[0] ?? "");
    const field = at in labels ? at : first;
    (errors[field] ??= []).push(`${labels[field]} ${issue.message}.`);
  }
  return { ok: false, errors };
}

/** A service's refusal of members of the form (Invalid), as problems beside their fields; anything else is thrown on. */
export function refusedFields(err: unknown, labels: Record<string, string>): { errors: FieldErrors; summary: string[] } {
  if (!(err instanceof Invalid)) throw err;
  const errors: FieldErrors = {};
  const summary: string[] = [];
  for (const problem of err.problems) {
    const member = problem.source && "member" in problem.source ? (problem.source.member as Member) : null;
    const name = member && "attribute" in member ? member.attribute : member && "relationship" in member ? member.relationship : null;
    const detail = problem.detail.replace("{member}", name ?? "the form");
    if (!name || !(name in labels)) {
      summary.push(detail);
      continue;
    }
    // A detail that starts with the member's name, or in lower case ("must be in the future."), is said by the field's label.
    const label = labels[name]!;
    const said = detail.startsWith(`${name} `)
      ? `${label}${detail.slice(name.length)}`
      : /^[a-z]/.test(detail)
        ? `${label} ${detail}`
        : detail;
    (errors[name] ??= []).push(said);
  }
  return { errors, summary };
}

/** A console list's cursor page from its address (`after`, `before`): a bad cursor is the API's 400. */
export function cursorPage(c: Context, size: number): Page {
  const after = c.req.query("after");
  const before = c.req.query("before");
  return pageOf({ "page[size]": size, "page[after]": after ?? (before === undefined ? "" : undefined), "page[before]": before });
}

/** The addresses of the pages before and after a cursor page, keeping the page's other parameters. */
export function cursorLinks(c: Context, page: Page): { prev: string | null; next: string | null } {
  const url = new URL(c.req.url);
  const link = (name: "after" | "before", cursor: string) => {
    const next = new URLSearchParams(url.search);
    next.delete("after");
    next.delete("before");
    next.set(name, cursor);
    return `${url.pathname}?${next.toString()}`;
  };
  const w = page.window;
  return {
    prev: w?.hasPrev && w.first ? link("before", w.first) : null,
    next: w?.hasNext && w.last ? link("after", w.last) : null,
  };
}
