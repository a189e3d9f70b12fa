// A canned response's placeholders, filled when a member uses it. Pure: the caller passes the values
// (the report's reporter and shortcode, its policy's address).

export const PLACEHOLDERS = ["reporter_name", "shortcode", "policy_url"] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

const PLACEHOLDER = /\{\{([a-z_]+)\}\}/g;

/**
 * The body with each `{{name}}` of PLACEHOLDERS replaced by its value. In one pass over the body as
 * typed, so a value that itself holds `{{...}}` (a reporter who names themself `{{policy_url}}`) is
 * put in as it is, never expanded again. An unknown placeholder, or one without a value (a reporter who
 * gave no name), is left as typed, so whoever sends the text sees what is missing.
 */
export function fillPlaceholders(body: string, values: Partial<Record<Placeholder, string | null>>): string {
  return body.replace(PLACEHOLDER, (typed, name: string) => {
    if (!(PLACEHOLDERS as readonly string[]).includes(name)) return typed;
    const value = values[name as Placeholder];
    return value === undefined || value === null ? typed : value;
  });
}
