import { html } from "hono/html";
import type { Html } from "./layout";

// Charts drawn on the server as SVG, pure functions of their numbers: no script, no style attribute
// (the pages' policy allows none), presentation attributes only. Each is an image with a title and a
// description (role="img", aria-labelledby), and its series are told apart by pattern as well as by
// shade, so nothing is said by colour alone; the page shows the same numbers as a table beside it.

/**
 * A scale's top: the data's maximum rounded up to a whole number of steps of 1, 2 or 5 times a power of
 * ten (whole steps for counts), with the ticks from 0; 1 when there is no data.
 */
export function niceScale(max: number, opts: { ticks?: number; whole?: boolean } = {}): { top: number; ticks: number[] } {
  if (!Number.isFinite(max) || max <= 0) return { top: 1, ticks: [0, 1] };
  const rough = max / (opts.ticks ?? 4);
  const power = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  if (opts.whole && step < 1) step = 1;
  const steps = Math.ceil(max / step - 1e-9);
  const ticks = Array.from({ length: steps + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { top: ticks.at(-1)!, ticks };
}

/** A number as a label: grouped thousands, at most two decimals. */
export function label(n: number): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/** A series' look: a shade and a pattern, each enough to tell it apart. */
interface Look {
  fill: string;
  pattern: "solid" | "stripes" | "dots" | "cross";
}
export const LOOKS: Look[] = [
  { fill: "#0a4f86", pattern: "solid" },
  { fill: "#9a5b00", pattern: "stripes" },
  { fill: "#3d3d3d", pattern: "dots" },
  { fill: "#0a5c36", pattern: "cross" },
];

function patternDef(id: string, look: Look): Html {
  const inner =
    look.pattern === "stripes"
      ? html`<path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2" stroke="#fff" stroke-width="1.5"/>`
      : look.pattern === "dots"
        ? html`<circle cx="3" cy="3" r="1.3" fill="#fff"/>`
        : look.pattern === "cross"
          ? html`<path d="M0,3 h6 M3,0 v6" stroke="#fff" stroke-width="1.2"/>`
          : "";
  return html`<pattern id="${id}" width="6" height="6"
patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${look.fill}"/>${inner}</pattern>`;
}

function frame(id: string, title: string, desc: string, width: number, height: number, body: Html | Html[]): Html {
  return html`<svg class="chart" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${width} ${height}"
width="${width}" height="${height}"
xmlns="http://www.w3.org/2000/svg"><title id="${id}-title">${title}</title><desc id="${id}-desc">${desc}</desc>${body}</svg>`;
}

/** A legend: each series' swatch (its pattern) and name. */
export function legend(chartId: string, names: readonly string[]): Html {
  return html`<ul class="legend">${names.map(
    (name, i) => html`<li><svg width="14" height="14" aria-hidden="true"
focusable="false"><defs>${patternDef(`${chartId}-k${i}`, LOOKS[i % LOOKS.length]!)}</defs>
<rect width="14" height="14" fill="url(#${chartId}-k${i})" stroke="#1a1a1a"/></svg> ${name}</li>`,
  )}</ul>`;
}

export interface StackedBars {
  id: string;
  title: string;
  desc: string;
  /** One label a bar (a week). */
  categories: readonly string[];
  /** The stacked series' names, bottom first. */
  series: readonly string[];
  /** values[bar][series]. */
  values: readonly (readonly number[])[];
}

/** Vertical bars, each a stack of its series, with its total above it. */
export function stackedBarChart(c: StackedBars): Html {
  const W = 640;
  const H = 260;
  const left = 44;
  const bottom = 40;
  const top = 20;
  const plotH = H - top - bottom;
  const totals = c.values.map((v) => v.reduce((a, b) => a + b, 0));
  const scale = niceScale(Math.max(0, ...totals), { whole: true });
  const n = Math.max(1, c.categories.length);
  const slot = (W - left - 8) / n;
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number) => top + plotH - (v / scale.top) * plotH;
  const every = Math.ceil(n / 8); // at most 8 labels under the bars, so they never overlap
  const bars = c.categories.map((cat, i) => {
    const x = left + slot * i + (slot - barW) / 2;
    let base = 0;
    const segments = c.series.map((_, s) => {
      const v = c.values[i]?.[s] ?? 0;
      const h = (v / scale.top) * plotH;
      const [rx, ry, rw, rh] = [x, y(base + v), barW, h].map((n) => n.toFixed(1));
      const rect =
        v > 0
          ? html`<rect x="${rx}" y="${ry}" width="${rw}" height="${rh}" fill="url(#${c.id}-p${s})" stroke="#fff" stroke-width="0.5"/>`
          : "";
      base += v;
      return rect;
    });
    return html`<g>${segments}
${
  totals[i]
    ? html`<text x="${(x + barW / 2).toFixed(1)}" y="${(y(totals[i]!) - 4).toFixed(1)}"
text-anchor="middle" font-size="11">${label(totals[i]!)}</text>`
    : ""
}
${
  i % every === 0
    ? html`<text x="${(x + barW / 2).toFixed(1)}" y="${H - bottom + 16}"
text-anchor="middle" font-size="11">${cat}</text>`
    : ""
}</g>`;
  });
  const axis = scale.ticks.map(
    (t) => html`<line x1="${left}" x2="${W - 8}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#c8c8c8"/>
<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" font-size="11">${label(t)}</text>`,
  );
  const empty = c.categories.length === 0 || totals.every((t) => t === 0);
  return frame(c.id, c.title, c.desc, W, H, [
    html`<defs>${c.series.map((_, s) => patternDef(`${c.id}-p${s}`, LOOKS[s % LOOKS.length]!))}</defs>`,
    html`<g fill="#1a1a1a" font-family="system-ui, sans-serif">${axis}${bars}
${empty ? html`<text x="${W / 2}" y="${top + plotH / 2}" text-anchor="middle" font-size="14">No reports in this period</text>` : ""}</g>`,
  ]);
}

export interface Bar {
  label: string;
  /** null: nothing to show (drawn as "none"). */
  value: number | null;
  /** The value as words on the bar's end, such as "5 h" or "80 %". */
  valueText: string;
  /** A target to draw as a mark across the bar, with its words. */
  target?: { value: number; text: string } | null;
}

/** Horizontal bars, one a row, each with its value in words at its end and its target as a marked line. */
export function barChart(c: { id: string; title: string; desc: string; bars: readonly Bar[]; max?: number }): Html {
  const W = 640;
  const row = 44;
  const labelW = 190;
  const right = 90;
  const H = Math.max(1, c.bars.length) * row + 10;
  const plotW = W - labelW - right;
  const top = c.max ?? niceScale(Math.max(0, ...c.bars.flatMap((b) => [b.value ?? 0, b.target?.value ?? 0]))).top;
  const x = (v: number) => labelW + Math.min(1, Math.max(0, v / top)) * plotW;
  const rows = c.bars.map((b, i) => {
    const y0 = 5 + i * row;
    const end = b.value === null ? labelW : x(b.value);
    return html`<g><text x="${labelW - 8}" y="${y0 + 20}" text-anchor="end" font-size="12">${b.label}</text>
<rect x="${labelW}" y="${y0 + 6}" width="${plotW}" height="20" fill="#f4f4f4" stroke="#c8c8c8"/>
${
  b.value !== null && b.value > 0
    ? html`<rect x="${labelW}" y="${y0 + 6}" width="${(end - labelW).toFixed(1)}" height="20" fill="url(#${c.id}-p0)"/>`
    : ""
}
<text x="${(Math.min(end, labelW + plotW) + 6).toFixed(1)}" y="${y0 + 20}" font-size="12" font-weight="600">${b.valueText}</text>
${
  b.target
    ? html`<line x1="${x(b.target.value).toFixed(1)}" x2="${x(b.target.value).toFixed(1)}" y1="${y0}" y2="${y0 + 32}"
stroke="#b00020" stroke-width="3" stroke-dasharray="4 2"/>
<text x="${x(b.target.value).toFixed(1)}" y="${y0 + 42}" text-anchor="middle" font-size="10">${b.target.text}</text>`
    : ""
}</g>`;
  });
  return frame(c.id, c.title, c.desc, W, H, [
    html`<defs>${patternDef(`${c.id}-p0`, LOOKS[0]!)}</defs>`,
    html`<g fill="#1a1a1a" font-family="system-ui, sans-serif">${rows}</g>`,
  ]);
}
