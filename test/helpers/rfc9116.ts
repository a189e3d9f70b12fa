// RFC 9116's rules for a security.txt file, written from the RFC (no npm library checks them), to read
// what the platform serves independently of the code that makes it. Returns what breaks a rule; an
// empty list means the file keeps them all.

/** The fields RFC 9116 registers, plus CSAF (registered by the CSAF 2.0 standard). */
const FIELDS = new Set([
  "acknowledgments",
  "canonical",
  "contact",
  "encryption",
  "expires",
  "hiring",
  "policy",
  "preferred-languages",
  "csaf",
]);
/** Fields that take a URI (2.5); a web URI among them must be https (2.5.3 and the fields after it). */
const URI_FIELDS = new Set(["acknowledgments", "canonical", "contact", "encryption", "hiring", "policy", "csaf"]);
// RFC 3339 date-time (section 5.6 of that RFC), as 2.5.5 requires.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
// RFC 5646 language tags, comma-separated (2.5.8); the simple form: a primary tag and subtags.
const LANGUAGES = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*(\s*,\s*[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*)*$/;
const YEAR_MS = 366 * 86_400_000;

export function rfc9116Problems(text: string, opts: { servedAt: string; now: Date }): string[] {
  const problems: string[] = [];
  if (!text.endsWith("\n")) problems.push("the file must end with a line break (3: every line ends with EOL)");
  const seen = new Map<string, string[]>();
  const lines = text.replace(/\r?\n$/, "").split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([A-Za-z0-9-]+): (.+)$/.exec(line);
    if (!m) {
      problems.push(`line ${i + 1} is neither a comment nor "Field: value": ${line}`);
      continue;
    }
    const name = m[1]!.toLowerCase();
    const value = m[2]!;
    if (!FIELDS.has(name)) problems.push(`line ${i + 1}: unknown field ${m[1]}`);
    seen.set(name, [...(seen.get(name) ?? []), value]);
    if (!URI_FIELDS.has(name)) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      problems.push(`${m[1]}: not a URI: ${value}`);
      continue;
    }
    if (url.protocol === "http:") problems.push(`${m[1]}: a web URI must use https: ${value}`);
    if (name === "contact" && !["https:", "mailto:", "tel:"].includes(url.protocol))
      problems.push(`Contact: ${value} is not https, mailto or tel`);
  }
  if (!seen.get("contact")?.length) problems.push("Contact is required (2.5.3)");
  const expires = seen.get("expires") ?? [];
  if (expires.length !== 1) problems.push(`Expires must appear exactly once (2.5.5), found ${expires.length}`);
  for (const value of expires) {
    if (!DATE_TIME.test(value)) problems.push(`Expires: not an RFC 3339 date-time: ${value}`);
    const at = Date.parse(value);
    if (at <= opts.now.getTime()) problems.push(`Expires: in the past: ${value}`);
    if (at - opts.now.getTime() > YEAR_MS) problems.push(`Expires: more than a year ahead: ${value}`);
  }
  const languages = seen.get("preferred-languages") ?? [];
  if (languages.length > 1) problems.push("Preferred-Languages must not appear more than once (2.5.8)");
  for (const value of languages) if (!LANGUAGES.test(value)) problems.push(`Preferred-Languages: not language tags: ${value}`);
  const canonical = seen.get("canonical") ?? [];
  // 2.5.2: a file served at a URI its Canonical fields do not list is not the canonical file.
  if (canonical.length > 0 && !canonical.includes(opts.servedAt)) problems.push(`Canonical does not list ${opts.servedAt}`);
  return problems;
}
