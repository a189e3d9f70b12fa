// The near-duplicate part of `npm run bench` (BENCH_ONLY part `duplicates`):
// - the corpus's precision and recall (test/fixtures/duplicates/), all 320 reports and the holdout, computed
//   with the consumer's own code (src/lib/similarity) and lookup bounds in memory; test/intake/
//   duplicate-corpus.test.ts gets the same figures through the API, the queue and D1;
// - the intake's similarity step, its D1 rows read in an organization of 100k reports against one of 1k,
//   through `POST /__bench/similar-lookup` (bench/rows-read-entry.ts). The seeded reports' signatures
//   (bench/seed.ts, `similarity: true`) are made from texts as varied as real reports' (random routes,
//   parameters, classes and words), so their band keys and fingerprints are too.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { RowWriter, SeededOrganization } from "./seed.ts";
import type { Row } from "./table.ts";

// src/lib/similarity names its imports without an extension, as the bundler reads them: Node needs the hook.
// (Named through a variable: it is for Node alone, never for the type check.)
const hook = "./simulate/ts-imports.ts";
await import(hook);
const similarity = await import("../src/lib/similarity/index.ts");
const corpusEval = await import("../test/fixtures/duplicates/evaluate.ts");

/** mulberry32: the same seeded texts on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
export function similaritySeeder(w: RowWriter, organizationId: string) {
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

const corpus = () =>
  corpusEval.parseCorpus(readFileSync(new URL("../test/fixtures/duplicates/reports.jsonl", import.meta.url).pathname, "utf8"));

/** What one lookup read, for one text, in one organization. */
async function lookup(apiUrl: string, organizationId: string, text: { title: string; description: string }) {
  const res = await fetch(`${apiUrl}/__bench/similar-lookup?organization=${organizationId}`, {
    method: "POST",
    headers: { "X-Bench-Rows-Read": "1", "Content-Type": "application/json" },
    body: JSON.stringify(text),
  });
  if (res.status !== 200) throw new Error(`The similarity lookup answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { rowsRead: number; roundTrips: number; candidates: number };
}

/** The rows of the table: precision and recall on the corpus, and the lookup's rows read at both sizes. */
export async function duplicateRows(apiUrl: string, small: SeededOrganization, large: SeededOrganization): Promise<Row[]> {
  const reports = corpus();
  const flags = new Map([...corpusEval.simulate(reports)].map(([id, f]) => [id, f.of]));
  const all = corpusEval.measure(reports, flags);
  const holdout = corpusEval.measure(reports, flags, "holdout");
  const rows: Row[] = [
    {
      what: "duplicate corpus (320 reports): precision",
      unit: "",
      api: [all.precision],
      target: { of: "value", op: ">=", value: 0.9 },
      note: `holdout ${holdout.precision.toFixed(2)}; ${all.truePositives} of ${all.flagged} flagged are pairs`,
    },
    {
      what: "duplicate corpus (320 reports): recall",
      unit: "",
      api: [all.recall],
      target: { of: "value", op: ">=", value: 0.7 },
      note: `holdout ${holdout.recall.toFixed(2)}; ${all.truePositives} of ${all.pairs} pairs found`,
    },
  ];
  // New reports' texts: the corpus's (a product like none seeded), new ones in the background's vocabulary,
  // and copies of seeded reports (whose bands and fingerprints all find their original).
  const texts = [
    ...reports.slice(0, 10),
    ...Array.from({ length: 5 }, (_, i) => variedReport(1_000_000 + i)),
    ...Array.from({ length: 5 }, (_, i) => variedReport(i * 97)),
  ];
  const atSmall: number[] = [];
  const atLarge: number[] = [];
  let candidates = 0;
  for (const text of texts) {
    atSmall.push((await lookup(apiUrl, small.id, text)).rowsRead);
    const big = await lookup(apiUrl, large.id, text);
    atLarge.push(big.rowsRead);
    candidates += big.candidates;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  rows.push({
    what: `similarity lookup, D1 rows read at ${large.vulns / 1000}k vs ${small.vulns / 1000}k`,
    unit: "rows",
    api: [median(atLarge)],
    baseline: { label: `at ${small.vulns / 1000}k`, samples: [median(atSmall)] },
    ratio: true,
    target: { of: "ratio", op: "<=", value: 1.2 },
    note: `median of ${texts.length} texts; max ${Math.max(...atLarge)} rows at ${large.vulns / 1000}k (bound 670); ${(candidates / texts.length).toFixed(1)} candidates a lookup`,
  });
  return rows;
}
