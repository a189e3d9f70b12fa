// One line of text: what a title, a name, a short description, a URL or a version may hold, and how
// text kept before that rule is shown as one line (pages, e-mail subjects and paragraphs).

// Control characters: C0 (with tab, line feed and carriage return), DEL and C1 (with NEL, U+0085); and
// the line and paragraph separators. Any of them breaks a line somewhere: an e-mail's paragraph, a
// header, a text file, a terminal.
const BREAKS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";
// Bidirectional embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI): they
// reorder the text after them ("Trojan Source"), beyond the member's own end on a page. The plain marks
// (LRM, RLM, ALM), which right-to-left text needs and which reorder nothing, stay; so do the joiners
// emoji and several scripts need.
const BIDI = "\\u202a-\\u202e\\u2066-\\u2069";

/** A string that is one line: none of the characters above. The API's documents give it as the members' pattern. */
export const SINGLE_LINE_PATTERN = new RegExp(`^[^${BREAKS}${BIDI}]*$`);
export const SINGLE_LINE_RULE = "must be one line, without line breaks, tabs, other control characters or bidirectional overrides";

const BIDI_CHARACTERS = new RegExp(`[${BIDI}]`, "g");
const BREAK_RUNS = new RegExp(`[${BREAKS}\\s]+`, "g");

/**
 * Text shown where one line belongs, whatever it holds (a row kept before the rule above): every run of
 * breaks and white space is one space, the bidirectional controls go, and the ends are trimmed.
 */
export function oneLine(text: string): string {
  return text.replace(BIDI_CHARACTERS, "").replace(BREAK_RUNS, " ").trim();
}
