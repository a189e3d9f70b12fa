import { describe, expect, it } from "vitest";
import { barChart, niceScale, stackedBarChart } from "../../src/templates/charts";

// The SVG charts, pure: their scales, and what they draw for no data, one week and a huge value.

const svg = (h: unknown) => String(h);
const heights = (s: string) =>
  [...s.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="url/g)].map((m) => Number(m[2]));

describe("niceScale", () => {
  it("rounds the maximum up to whole steps of 1, 2 or 5 times a power of ten", () => {
    expect(niceScale(7)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceScale(10)).toEqual({ top: 10, ticks: [0, 5, 10] });
    expect(niceScale(0.35)).toEqual({ top: 0.4, ticks: [0, 0.1, 0.2, 0.3, 0.4] });
    expect(niceScale(3, { whole: true })).toEqual({ top: 3, ticks: [0, 1, 2, 3] });
    expect(niceScale(1, { whole: true })).toEqual({ top: 1, ticks: [0, 1] });
    expect(niceScale(1234)).toEqual({ top: 1500, ticks: [0, 500, 1000, 1500] });
  });

  it("has a scale for no data and for a huge value", () => {
    expect(niceScale(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(niceScale(Number.NaN)).toEqual({ top: 1, ticks: [0, 1] });
    const huge = niceScale(9e15);
    expect(huge.top).toBeGreaterThanOrEqual(9e15);
    expect(huge.ticks.length).toBeLessThanOrEqual(6);
  });
});

describe("stackedBarChart", () => {
  const base = { id: "w", title: "Reports <a week>", desc: "By outcome & more", series: ["Valid", "Not valid"] };

  it("says there is nothing for no weeks, or weeks of zeros, and draws no bar", () => {
    for (const data of [
      { categories: [], values: [] },
      {
        categories: ["03-02", "03-09"],
        values: [
          [0, 0],
          [0, 0],
        ],
      },
    ]) {
      const out = svg(stackedBarChart({ ...base, ...data }));
      expect(out).toContain("No reports in this period");
      expect(heights(out)).toEqual([]);
    }
  });

  it("draws one week as one stack at the scale's height, titled and described, its text escaped", () => {
    const out = svg(stackedBarChart({ ...base, categories: ["03-02"], values: [[3, 1]] }));
    expect(out).toMatch(/^<svg class="chart" role="img" aria-labelledby="w-title w-desc"/);
    expect(out).toContain('<title id="w-title">Reports &lt;a week&gt;</title><desc id="w-desc">By outcome &amp; more</desc>');
    // Scale 0..4: 3 and 1 of a 200-unit plot.
    expect(heights(out)).toEqual([150, 50]);
    expect(out).toContain(">4</text>");
    expect(out).not.toContain(" style=");
  });

  it("keeps a huge value inside the plot, and its label readable", () => {
    const out = svg(
      stackedBarChart({
        ...base,
        categories: ["a", "b"],
        values: [
          [2_000_000_000, 0],
          [1, 0],
        ],
      }),
    );
    const [big, small] = heights(out);
    expect(big).toBeLessThanOrEqual(200);
    expect(small).toBeLessThan(1);
    expect(out).toContain(">2,000,000,000</text>");
  });
});

describe("barChart", () => {
  it("draws each bar's value in words and its target as a line, and 'none' as no bar", () => {
    const out = svg(
      barChart({
        id: "t",
        title: "Times",
        desc: "Medians",
        bars: [
          { label: "Acknowledge", value: 5, valueText: "5 h", target: { value: 10, text: "target 10 h" } },
          { label: "Triage", value: null, valueText: "none", target: null },
        ],
      }),
    );
    expect(heights(out)).toHaveLength(1);
    expect(out).toContain(">5 h</text>");
    expect(out).toContain(">none</text>");
    expect(out).toContain(">target 10 h</text>");
    expect(out).toContain('stroke-dasharray="4 2"');
  });

  it("clamps a value past its fixed maximum to the plot", () => {
    const out = svg(barChart({ id: "d", title: "Met", desc: "Shares", max: 100, bars: [{ label: "A", value: 1e9, valueText: "lots" }] }));
    const width = Number(
      /height="20" fill="url\(#d-p0\)"/.test(out) && /<rect x="190" y="[\d.]+" width="([\d.]+)" height="20" fill="url/.exec(out)![1],
    );
    expect(width).toBe(360);
  });
});
