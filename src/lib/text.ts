// What a single-line value (a title, a name, a URL, a version) may not hold: C0 controls (line breaks
// and tabs among them), DEL, C1 controls, Unicode's line and paragraph separators, and the bidirectional
// overrides and isolates that make text read otherwise than it is stored. In a title they would let an
// anonymous reporter write paragraphs, or a fake link, into the e-mails responders read.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
export const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A whole value that is one line, as a pattern (the OpenAPI document says it, so clients see it). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
export const ONE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/;

export const ONE_LINE_MESSAGE = "must be one line: no line breaks, tabs or control characters";

/**
 * A value rendered as one line, whatever an older row holds: every run of those characters (and of
 * white space around them) is one space.
 */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\s]+/g, " ").trim();
}
