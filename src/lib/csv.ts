// CSV as RFC 4180 writes it: records end in CRLF, and a field holding a comma, a double quote, CR or LF
// is quoted with its quotes doubled. What the API answers as text/csv goes through here.

export const CSV_MEDIA_TYPE = "text/csv";

/**
 * The characters a spreadsheet reads as the start of a formula. A cell starting with one is written
 * with a leading apostrophe (OWASP's advice against CSV injection): a CSV of the audit log carries what
 * clients sent (a User-Agent, a key's name), and whoever opens it in a spreadsheet must not run it.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One field: empty for null; text that could start a formula made text; quoted where RFC 4180 must. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header record, then one record per row. */
export function csvDocument(header: readonly string[], rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(",")}\r\n`).join("");
}
