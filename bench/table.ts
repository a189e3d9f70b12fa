// The one table `npm run bench` prints: each row an API figure beside its baseline from the same run,
// the ratio of the two (per repetition, so both sides of a ratio saw the same machine), and its target.

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(samples: readonly number[]): Spread | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

export interface Target {
  /** What the target bounds: the API figure itself, or its ratio to the baseline. */
  of: "value" | "ratio";
  op: "<" | "<=" | ">=";
  value: number;
}

export interface Row {
  what: string;
  unit: string;
  /** One sample per repetition; empty when it could not be measured (then `note` says why). */
  api: number[];
  baseline?: { label: string; samples: number[] };
  /** Print api/baseline (paired by repetition; a single baseline sample pairs with every one). */
  ratio?: boolean;
  target?: Target;
  note?: string;
  /** Some samples stopped at a time limit: the true figures are at least these (printed with "≥"). */
  lowerBound?: boolean;
}

function ratios(row: Row): number[] {
  const base = row.baseline?.samples ?? [];
  if (!row.ratio || base.length === 0) return [];
  return row.api.flatMap((v, i) => {
    const b = base.length === 1 ? base[0]! : base[i];
    return b === undefined || b === 0 ? [] : [v / b];
  });
}

/** Whether the row meets its target, judged on the median; null when there is no target or no figure. */
export function met(row: Row): boolean | null {
  if (!row.target) return null;
  const s = spread(row.target.of === "ratio" ? ratios(row) : row.api);
  if (!s) return null;
  const { op, value } = row.target;
  const ok = op === "<" ? s.median < value : op === "<=" ? s.median <= value : s.median >= value;
  // A lower bound under a ceiling says nothing about the true figure; above it, it already fails.
  return ok && row.lowerBound && op !== ">=" ? null : ok;
}

export function formatNumber(n: number): string {
  const abs = Math.abs(n);
  const digits = Number.isInteger(n) || abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** "median unit (min–max)"; ratios always with two decimals, so 1.00x reads as a ratio. */
function figure(samples: readonly number[], unit: string, ratio = false): string {
  const s = spread(samples);
  if (!s) return "n/a";
  const f = ratio ? (n: number) => n.toFixed(2) : formatNumber;
  const text = `${f(s.median)}${ratio ? "x" : ""}${unit ? ` ${unit}` : ""}`;
  return s.min === s.max ? text : `${text} (${f(s.min)}–${f(s.max)})`;
}

function targetText(row: Row): string {
  if (!row.target) return "—";
  const { of, op, value } = row.target;
  return of === "ratio" ? `${op} ${value.toFixed(2)}x` : `${op} ${formatNumber(value)}${row.unit ? ` ${row.unit}` : ""}`;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** A markdown table: what, API figure, baseline figure, ratio, target, met? */
export function renderTable(rows: readonly Row[]): string {
  const lines = ["| what | API | baseline | ratio | target | met? |", "|---|---|---|---|---|---|"];
  for (const row of rows) {
    const atLeast = row.lowerBound && row.api.length ? "≥ " : "";
    const api = atLeast + figure(row.api, row.unit) + (row.note ? ` — ${row.note}` : "");
    const baseline = row.baseline ? `${row.baseline.label}: ${figure(row.baseline.samples, row.unit)}` : "—";
    const ratio = row.ratio ? atLeast + figure(ratios(row), "", true) : "—";
    const verdict = met(row);
    lines.push(
      `| ${[row.what, api, baseline, ratio, targetText(row), verdict === null ? "n/a" : verdict ? "yes" : "no"].map(cell).join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
