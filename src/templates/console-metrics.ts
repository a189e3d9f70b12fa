import { html } from "hono/html";
import { DEADLINE_KINDS, type DeadlineKind } from "../lib/deadlines";
import type { Metrics } from "../services/metrics";
import { OUTCOMES, type Outcome, type WeeklyReports } from "../services/metrics-weekly";
import { barChart, label, legend, stackedBarChart } from "./charts";
import { consoleDocument, type Who } from "./console-layout";
import { type Html, when } from "./layout";

// The console's metrics: the figures of GET /v1/metrics (readMetrics, the same service), and three
// charts drawn on the server, each with its numbers as a table below it.

const OUTCOME_WORDS: Record<Outcome, string> = {
  awaiting: "Awaiting triage",
  valid: "Valid",
  duplicate: "Duplicate",
  not_valid: "Not valid",
};
const DEADLINE_WORDS: Record<DeadlineKind, string> = {
  acknowledge: "Acknowledge",
  triage: "Triage",
  resolve: "Resolve",
  disclosure: "Disclosure",
  cra_early_warning: "CRA early warning",
  cra_notification: "CRA notification",
  cra_final_report: "CRA final report",
};

/** A duration in words: "45 min", "5 h 20 min", "3 d 4 h"; "none" for null. */
export function duration(seconds: number | null): string {
  if (seconds === null) return "none";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ""}`;
}

/** A share (0 to 1) as a percentage; "none decided" for null. */
export const percent = (share: number | null) => (share === null ? "none decided" : `${label(Math.round(share * 1000) / 10)} %`);

export interface MetricsView {
  who: Who;
  metrics: Metrics;
  weekly: WeeklyReports;
}

function figures(m: Metrics): Html {
  const row = (name: string, value: string) => html`<dt>${name}</dt><dd>${value}</dd>`;
  return html`<dl class="terms">
${row("Reports received", label(m.reportsReceived))}
${row("Valid reports", label(m.validReports))}
${row("Valid and still open", label(m.validOpen))}
${row("Valid, open for more than 90 days", label(m.validOpenOver90Days))}
${row("Median time to first response", duration(m.medianSecondsToFirstResponse))}
${row("Median time to triage", duration(m.medianSecondsToTriage))}
${row("Median time to resolve", duration(m.medianSecondsToResolve))}
</dl>`;
}

function weeklyChart(w: WeeklyReports): Html {
  const names = OUTCOMES.map((o) => OUTCOME_WORDS[o]);
  const total = w.weeks.reduce((sum, week) => sum + OUTCOMES.reduce((s, o) => s + week.counts[o], 0), 0);
  return html`<h2 id="weekly">Reports a week, by outcome</h2>
${stackedBarChart({
  id: "weekly-chart",
  title: "Reports a week, by outcome",
  desc:
    `${label(total)} reports over ${w.weeks.length} weeks, each week's bar stacked by outcome from the bottom: ` +
    `${names.join(", ")}. The table below gives every number.`,
  categories: w.weeks.map((week) => week.start.slice(5)),
  series: names,
  values: w.weeks.map((week) => OUTCOMES.map((o) => week.counts[o])),
})}
${legend("weekly-chart", names)}
<table class="stack">
<caption>Reports a week, by outcome (weeks from Monday, UTC)</caption>
<thead><tr><th scope="col">Week of</th>${names.map((n) => html`<th scope="col">${n}</th>`)}<th scope="col">All</th></tr></thead>
<tbody>${w.weeks.map(
    (week) =>
      html`<tr><td data-label="Week of">${week.start}</td>${OUTCOMES.map(
        (o) => html`<td data-label="${OUTCOME_WORDS[o]}">${label(week.counts[o])}</td>`,
      )}<td data-label="All">${label(OUTCOMES.reduce((s, o) => s + week.counts[o], 0))}</td></tr>`,
  )}</tbody>
</table>`;
}

function timesChart(m: Metrics, w: WeeklyReports): Html {
  const rows = [
    { name: "Acknowledge", seconds: m.medianSecondsToFirstResponse, targetHours: w.acknowledgeHours },
    { name: "Triage", seconds: m.medianSecondsToTriage, targetHours: w.triageHours },
  ];
  const hours = (s: number | null) => (s === null ? null : s / 3600);
  return html`<h2 id="times">Time to acknowledge and to triage, against the targets</h2>
${barChart({
  id: "times-chart",
  title: "Median time to acknowledge and to triage, against the targets",
  desc: rows
    .map((r) => `${r.name}: median ${duration(r.seconds)}, target ${r.targetHours === null ? "none" : `${r.targetHours} h`}.`)
    .join(" "),
  bars: rows.map((r) => ({
    label: `${r.name} (median)`,
    value: hours(r.seconds),
    valueText: duration(r.seconds),
    target: r.targetHours === null ? null : { value: r.targetHours, text: `target ${r.targetHours} h` },
  })),
})}
<table class="stack">
<caption>Median times against the targets the period's reports were held to (the dashed line)</caption>
<thead><tr><th scope="col">Step</th><th scope="col">Median</th><th scope="col">Target</th><th scope="col">Within target</th></tr></thead>
<tbody>${rows.map(
    (r) => html`<tr><td data-label="Step">${r.name}</td><td data-label="Median">${duration(r.seconds)}</td>
<td data-label="Target">${r.targetHours === null ? "none" : `${r.targetHours} h`}</td>
<td data-label="Within target">${
      r.seconds === null || r.targetHours === null ? "not known" : r.seconds <= r.targetHours * 3600 ? "yes" : "no"
    }</td></tr>`,
  )}</tbody>
</table>`;
}

function deadlinesChart(m: Metrics): Html {
  return html`<h2 id="deadlines">Deadlines met on time</h2>
${barChart({
  id: "deadlines-chart",
  title: "Share of deadlines met on time",
  desc: DEADLINE_KINDS.map((k) => `${DEADLINE_WORDS[k]}: ${percent(m.deadlinesMetOnTime[k])}.`).join(" "),
  max: 100,
  bars: DEADLINE_KINDS.map((k) => {
    const share = m.deadlinesMetOnTime[k];
    return { label: DEADLINE_WORDS[k], value: share === null ? null : share * 100, valueText: percent(share) };
  }),
})}
<table class="stack">
<caption>Of the deadlines decided (met, or past due), the share met on time</caption>
<thead><tr><th scope="col">Deadline</th><th scope="col">Met on time</th></tr></thead>
<tbody>${DEADLINE_KINDS.map(
    (k) =>
      html`<tr><td data-label="Deadline">${DEADLINE_WORDS[k]}</td><td data-label="Met on time">${percent(
        m.deadlinesMetOnTime[k],
      )}</td></tr>`,
  )}</tbody>
</table>`;
}

/** GET /console/metrics. */
export function metricsPage({ who, metrics, weekly }: MetricsView): string {
  return consoleDocument(
    who,
    "metrics",
    "Metrics",
    html`<h1>Metrics</h1>
<p class="lead">The reports received from ${when(metrics.periodStart)} to ${when(metrics.periodEnd)}.</p>
<p><a href="/console/metrics.csv" download>Download these figures as CSV</a> (what GET /v1/metrics answers with Accept: text/csv).</p>
${figures(metrics)}
${weeklyChart(weekly)}
${timesChart(metrics, weekly)}
${deadlinesChart(metrics)}`,
  );
}
