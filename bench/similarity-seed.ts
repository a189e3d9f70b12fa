// The similarity rows of the bench's seeded reports (bench/seed.ts, `similarity: true`), made with the
// consumer's own code (src/lib/similarity) from texts as varied as real reports' (random routes,
// parameters, classes and words), so their band keys and fingerprints are too. bench/duplicates.ts
// measures the lookup over them.
import { createHash } from "node:crypto";
import { random } from "./simulate/model.ts";

// src/lib/similarity names its imports without an extension, as the bundler reads them: Node needs the hook.
// (Named through a variable: it is for Node alone, never for the type check.)
const hook = "./simulate/ts-imports.ts";
await import(hook);
const similarity = await import("../src/lib/similarity/index.ts");

/** What the seeder writes through: bench/seed.ts's RowWriter, as far as this file uses it. */
interface Rows {
  insert(table: string, row: Record<string, unknown>): void;
  run(sql: string, ...params: (string | number | null)[]): void;
  sqlOf(indexName: string): string | null | undefined;
}

const SYLLABLES = "ka lo mi nu pe ra si tu ve xo ba de fi go hu ja ke li mo ne po qu re sa te vi wa yo ze".split(" ");
const CLASSES = [
  "reflected XSS",
  "stored XSS",
  "SQL injection",
  "IDOR",
  "CSRF",
  "open redirect",
  "SSRF",
  "path traversal",
  "XXE",
  "missing rate limit",
  "stack trace",
  "authentication bypass",
  "JWT alg none",
  "CORS misconfiguration",
  "unrestricted file upload",
];
const PAYLOADS = ["<script>alert(1)</script>", "' OR '1'='1", "../../etc/passwd", "{{7*7}}", "", "", ""];

/**
 * A report's text for the seeded background: a route of 2 to 3 segments out of 400 words, a parameter out of
 * 60, a class, a payload, and 25 to 60 words out of 4,000, so few keys are shared, as among real reports.
 */
export function variedReport(i: number): { title: string; description: string } {
  const rng = random(0x5eed + i);
  const word = (n: number) => {
    const k = Math.floor(rng() * n);
    return SYLLABLES[k % SYLLABLES.length]! + SYLLABLES[Math.floor(k / SYLLABLES.length) % SYLLABLES.length]! + (k >= 900 ? k : "");
  };
  const path = `/${Array.from({ length: 2 + Math.floor(rng() * 2) }, () => word(400)).join("/")}`;
  const param = `p${word(60)}`;
  const cls = CLASSES[Math.floor(rng() * CLASSES.length)]!;
  const payload = PAYLOADS[Math.floor(rng() * PAYLOADS.length)]!;
  const words = Array.from({ length: 25 + Math.floor(rng() * 35) }, () => word(4000)).join(" ");
  return {
    title: `${cls} in ${path}`,
    description: `https://app.example${path}/${Math.floor(rng() * 1e6)}?${param}=${encodeURIComponent(payload || "x")} ${words}`,
  };
}

/** The 16 hex the intake stores for a fingerprint (src/lib/similarity's fingerprintKey, synchronously). */
const keyOf = (fingerprint: string) => createHash("sha256").update(fingerprint).digest("hex").slice(0, 16);

/**
 * The similarity rows of an organization's seeded reports, as the intake would have stored them. 32 band rows
 * a report inserted as they come land at random places of the bands' primary key, which made seeding 100k
 * reports take minutes; so the bands wait, packed two numbers to a 64-bit integer, and go in in key order at
 * `finish`, with the vuln_id index built once after.
 */
export function similaritySeeder(w: Rows, organizationId: string) {
  const vulnIds: string[] = [];
  const bands: bigint[] = [];
  return {
    add(vulnId: string, i: number): void {
      const text = variedReport(i);
      const sig = similarity.signatureOf(text.title, text.description);
      w.insert("vuln_signatures", {
        vuln_id: vulnId,
        organization_id: organizationId,
        version: similarity.SIMILARITY_VERSION,
        minhash: similarity.encodeSignature(sig.minhash),
        fingerprints: sig.fingerprints,
      });
      w.run(
        "INSERT OR IGNORE INTO vuln_fingerprints (organization_id, fingerprint, vuln_id) SELECT ?, value, ? FROM json_each(?)",
        organizationId,
        vulnId,
        JSON.stringify(sig.fingerprints.map(keyOf)),
      );
      // A band key is under 2^37 and a report's index under 2^22 (4M): both fit one u64, which sorts natively.
      for (const key of sig.bands) bands.push((BigInt(key) << 22n) | BigInt(vulnIds.length));
      vulnIds.push(vulnId);
    },
    finish(): void {
      const sorted = BigUint64Array.from(bands).sort();
      const index = w.sqlOf("vuln_lsh_bands_vuln_idx");
      if (index) w.run("DROP INDEX vuln_lsh_bands_vuln_idx");
      const insert = "INSERT INTO vuln_lsh_bands (organization_id, band_key, vuln_id) SELECT ?, value ->> 0, value ->> 1 FROM json_each(?)";
      for (let at = 0; at < sorted.length; at += 1000) {
        const chunk = Array.from(sorted.subarray(at, at + 1000), (v) => [Number(v >> 22n), vulnIds[Number(v & 0x3fffffn)]]);
        w.run(insert, organizationId, JSON.stringify(chunk));
      }
      if (index) w.run(index);
    },
  };
}
