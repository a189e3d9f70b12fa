import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DiffLine, diffLines } from "../../src/lib/line-diff";

// The console's diff of two versions' terms: every line of both is said once, in order, as kept, removed
// or added, and as few changes as Myers' algorithm finds.

const show = (d: DiffLine[]) => d.map((l) => `${l.kind === "same" ? " " : l.kind === "added" ? "+" : "-"}${l.text}`);
const sides = (d: DiffLine[]) => ({
  before: d.filter((l) => l.kind !== "added").map((l) => l.text),
  after: d.filter((l) => l.kind !== "removed").map((l) => l.text),
});

describe("diffLines", () => {
  it("says each change where it is", () => {
    expect(show(diffLines(["a", "b", "c", "d"], ["a", "c", "d", "e"]))).toEqual([" a", "-b", " c", " d", "+e"]);
    expect(show(diffLines(["a", "b"], ["a", "x", "b"]))).toEqual([" a", "+x", " b"]);
    expect(show(diffLines([], ["a"]))).toEqual(["+a"]);
    expect(show(diffLines(["a"], []))).toEqual(["-a"]);
    expect(show(diffLines(["same"], ["same"]))).toEqual([" same"]);
    expect(show(diffLines(["a", "b", "c"], ["c", "b", "a"]))).toHaveLength(5);
  });

  it("gives back both sides exactly, with no more changes than the shortest script, for any two texts", () => {
    const lines = fc.array(fc.constantFrom("a", "b", "c", "d", ""), { maxLength: 30 });
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const d = diffLines(before, after);
        expect(sides(d)).toEqual({ before, after });
        // The longest common subsequence, by dynamic programming: the script keeps that many lines.
        const lcs = Array.from({ length: before.length + 1 }, () => new Array<number>(after.length + 1).fill(0));
        for (let i = before.length - 1; i >= 0; i--)
          for (let j = after.length - 1; j >= 0; j--)
            lcs[i]![j] = before[i] === after[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
        expect(d.filter((l) => l.kind === "same")).toHaveLength(lcs[0]![0]!);
      }),
      { numRuns: 300 },
    );
  });

  it("bounds its work: past it, the changed middle is all removed then all added, still true", () => {
    const before = Array.from({ length: 50_000 }, (_, i) => `old ${i}`);
    const after = Array.from({ length: 50_000 }, (_, i) => `new ${i}`);
    const d = diffLines(["head", ...before, "tail"], ["head", ...after, "tail"], 10_000);
    expect(sides(d)).toEqual({ before: ["head", ...before, "tail"], after: ["head", ...after, "tail"] });
    expect(show(d.slice(0, 2))).toEqual([" head", "-old 0"]);
    expect(show(d.slice(-2))).toEqual(["+new 49999", " tail"]);
    // Interleaved changes past the bound, too.
    const mixed = diffLines(
      Array.from({ length: 20_000 }, (_, i) => (i % 2 ? "keep" : `a${i}`)),
      Array.from({ length: 20_000 }, (_, i) => (i % 2 ? "keep" : `b${i}`)),
      10_000,
    );
    expect(sides(mixed).before).toHaveLength(20_000);
  });
});
