import { LIMITS } from "./limits";
// What a person types into a search box, made into an FTS5 query that cannot be malformed: FTS5's
// own syntax (AND, OR, NEAR, column filters, parentheses) is never taken from the text.

/** Letters, digits and underscores: what FTS5's unicode61 tokenizer keeps as one token. */
const WORD = /[\p{L}\p{N}_]+/gu;

export const SEARCH_MAX_LENGTH = LIMITS.searchLength;
export const SEARCH_MAX_TERMS = 16;

/**
 * The text's words and "quoted phrases", each required (AND), as quoted FTS5 strings; a word ending
 * in `*` matches as a prefix. A word with punctuation inside (`foo-bar`, `a.b.c`) is the phrase of its
 * parts, as the tokenizer indexed it. Null when the text holds nothing to search for.
 */
export function ftsQuery(text: string): string | null {
  const terms: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"?|(\S+)/g)) {
    const words = (m[1] ?? m[2] ?? "").match(WORD);
    if (!words) continue;
    const prefix = m[2]?.endsWith("*") ?? false;
    terms.push(`"${words.join(" ")}"${prefix ? "*" : ""}`);
  }
  return terms.length ? terms.slice(0, SEARCH_MAX_TERMS).join(" AND ") : null;
}
