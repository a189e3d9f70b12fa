import { describe, expect, it } from "vitest";
import { corpusJsonl, PAIRS } from "../../scripts/duplicate-corpus";
import { type CorpusReport, measure, parseCorpus, simulate } from "../fixtures/duplicates/evaluate";
import committed from "../fixtures/duplicates/reports.jsonl?raw";

// The near-duplicate corpus (test/fixtures/duplicates/README.md): the committed file is the generator's
// output, its pairs share no sentence verbatim, and the in-memory lookup meets the targets on it. The same
// measure through the API and D1 is test/intake/duplicate-corpus.test.ts.

const reports = parseCorpus(committed);
const byFinding = new Map<string, CorpusReport[]>();
for (const r of reports) byFinding.set(r.finding, [...(byFinding.get(r.finding) ?? []), r]);

describe("the duplicate corpus", () => {
  it("is exactly what scripts/duplicate-corpus.ts writes", () => {
    expect(committed).toBe(corpusJsonl());
  });

  it("holds 60 pairs and 200 unrelated reports, split in halves", () => {
    expect(reports).toHaveLength(320);
    expect([...byFinding.values()].filter((g) => g.length === 2)).toHaveLength(PAIRS);
    expect([...byFinding.values()].filter((g) => g.length === 1)).toHaveLength(200);
    expect(reports.filter((r) => r.split === "holdout").length).toBeGreaterThanOrEqual(150);
    for (const g of byFinding.values()) expect(new Set(g.map((r) => r.split)).size).toBe(1);
  });

  it("never gives a pair's two reports a sentence in common", () => {
    const sentences = (text: string) =>
      new Set(
        text
          .split(/(?<=[.!?])\s+|\n+/)
          .map((s) => s.trim().toLowerCase())
          .filter((s) => s.split(/\s+/).length >= 5),
      );
    for (const g of byFinding.values()) {
      if (g.length !== 2) continue;
      const [a, b] = g.map((r) => sentences(r.description));
      expect(
        [...a!].filter((s) => b!.has(s)),
        g[0]!.finding,
      ).toEqual([]);
    }
  });

  it("meets precision >= 0.9 and recall >= 0.7 on all reports and on the holdout, in memory", () => {
    const flags = new Map([...simulate(reports)].map(([id, f]) => [id, f.of]));
    for (const split of [undefined, "holdout"] as const) {
      const m = measure(reports, flags, split);
      expect(m.precision, split ?? "all").toBeGreaterThanOrEqual(0.9);
      expect(m.recall, split ?? "all").toBeGreaterThanOrEqual(0.7);
    }
  });
});
