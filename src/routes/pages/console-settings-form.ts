import type { z } from "@hono/zod-openapi";

// A request document's problems (the API's schema's own messages) as a console form's, by field.

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
