// RFC 8785 (JSON Canonicalization Scheme) for the values the platform hashes: objects with their
// members sorted by key (UTF-16 code units, as Array.prototype.sort compares), no white space, strings
// and numbers as ECMAScript's JSON.stringify writes them (which is what RFC 8785 specifies). Members
// whose value is undefined are left out, as JSON.stringify does. Checked against the canonicalize
// library (test/unit/canonical-json.test.ts).

export function canonicalJson(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("RFC 8785 has no form for a non-finite number");
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
  return `{${members.join(",")}}`;
}
