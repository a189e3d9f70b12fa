// The near-duplicate part of `npm run bench` (BENCH_ONLY part `duplicates`):
// - the corpus's precision and recall (test/fixtures/duplicates/), all 320 reports and the holdout, computed
//   with the consumer's own code (src/lib/similarity) and lookup bounds in memory; test/intake/
//   duplicate-corpus.test.ts gets the same figures through the API, the queue and D1;
// - the intake's similarity step, its D1 rows read in an organization of 100k reports against one of 1k,
//   through `POST /__bench/similar-lookup` (bench/rows-read-entry.ts). The seeded reports' signatures
//   (bench/seed.ts, `similarity: true`) are made from texts as varied as real reports' (random routes,
//   parameters, classes and words), so their band keys and fingerprints are too.
import { readFileSync } from "node:fs";
import type { SeededOrganization } from "./seed.ts";
import { variedReport } from "./similarity-seed.ts";
import type { Row } from "./table.ts";

// src/lib/similarity names its imports without an extension, as the bundler reads them: Node needs the hook.
// (Named through a variable: it is for Node alone, never for the type check.)
const hook = "./simulate/ts-imports.ts";
await import(hook);
const corpusEval = await import("../test/fixtures/duplicates/evaluate.ts");

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
