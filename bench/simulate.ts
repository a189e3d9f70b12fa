// npm run simulate [-- --organizations 2000 --reports 200000 ...]: a platform-year replayed into SQLite
// databases laid out by the project's migrations, in four layouts (today's, event bodies emptied once
// fanned out; before they were, every body kept; today's with the bodies in R2; organizations sharded
// over K databases and a catalog, on today's), each measured monthly with SQLite's dbstat. Prints a summary, then per layout a table of
// bytes per table and one of its databases, then the rates and where they come from. docs/scale.md
// reads the result.
import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { DEFAULTS, daysIn, planYear, RATES, type ReportPlan, sampleReports, type SimulationOptions } from "./simulate/model.ts";
import { type Layout, type LayoutResult, replay } from "./simulate/replay.ts";
import {
  BUDGET,
  databaseFigures,
  type DatabaseFigures,
  fullYearLoads,
  formatBytes,
  HORIZON_MONTHS,
  organizationsOn,
  placeShards,
  project,
  firstToOutgrow,
  renderDatabases,
  renderSummary,
  renderTableBytes,
  scaledFile,
  SOFT_LIMIT,
  when,
} from "./simulate/report.ts";

/**
 * Shards are filled to this share of 5 GB by month 36: the headroom kept for the projection's error and
 * for a tenant that grows faster than the platform.
 */
const FILL = 0.8;

interface Job {
  layout: "today" | "before" | "r2" | "shards";
  options: SimulationOptions;
  /** Where the SQLite files go (kept for a look), or null: in memory. */
  directory: string | null;
  /** For shards: the shard of each organization. */
  shardOf?: number[];
}

/** The layout a job names, over its database files. */
function layoutOf(job: Job): Layout {
  const bodies = ({ today: "emptied", before: "kept", r2: "r2", shards: "emptied" } as const)[job.layout];
  if (job.layout !== "shards") return { name: job.layout, databases: ["database"], shardOf: () => "database", bodies };
  const shardOf = job.shardOf!;
  const k = Math.max(...shardOf) + 1;
  return {
    name: "shards",
    databases: ["catalog", ...Array.from({ length: k }, (_, i) => `shard-${i + 1}`)],
    shardOf: (o) => `shard-${shardOf[o]! + 1}`,
    bodies,
  };
}

export async function runJob(job: Job): Promise<LayoutResult> {
  const { reports } = planYear(job.options);
  return replay(layoutOf(job), { reports: sampleReports(reports, job.options.sample, job.options.seed) }, job.options, job.directory);
}

/** Runs a layout in a worker thread: the machine's cores replay layouts side by side. */
function inWorker(job: Job): Promise<LayoutResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(import.meta.filename, { workerData: { simulateJob: job } });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`${job.layout} stopped with ${code}`)));
  });
}

/**
 * Each organization's bytes at the horizon, from today's layout: what the set-up organizations took
 * spread evenly, and the rest in proportion to its reports.
 */
function projectedByOrganization(today: LayoutResult, perOrganization: readonly number[], options: SimulationOptions): number[] {
  const db = today.databases[0]!;
  const atHorizon = project(
    db.months.map((m) => scaledFile(m, db.setUp, options.sample)),
    options.growth,
    HORIZON_MONTHS,
    db.setUp.fileBytes,
  ).at(-1)!;
  const floor = db.setUp.fileBytes;
  const reports = perOrganization.reduce((a, b) => a + b, 0);
  return perOrganization.map((n) => floor / perOrganization.length + ((atHorizon - floor) * n) / Math.max(1, reports));
}

export const USAGE = `npm run simulate [-- options]: a platform-year replayed into SQLite, four layouts measured.

  --organizations N         organizations on the platform (${DEFAULTS.organizations})
  --reports N               reports a year (${DEFAULTS.reports})
  --webhooks N              webhooks per organization (${DEFAULTS.webhooks})
  --contacts N              contacts per organization, alternating responder and escalation (${DEFAULTS.contacts})
  --zipf S                  exponent of report volume over organizations (${DEFAULTS.zipf})
  --months N                months simulated, 1 to 12 (${DEFAULTS.months})
  --growth G                yearly growth after them, for the projection to month 36 (${DEFAULTS.growth})
  --description-median N    median report description in characters (${DEFAULTS.descriptionMedian})
  --sample F                share of reports replayed into SQLite, the rest scaled; 1 replays all (${DEFAULTS.sample})
  --seed N                  the year's randomness (${DEFAULTS.seed})
  --keep DIR                write the SQLite files to DIR instead of memory
  --help                    this text

docs/scale.md explains the method and reads the result.`;

/** The options, or an Error saying which is wrong; `help` when --help was asked. */
export function parseOptions(args: string[]): SimulationOptions & { keep: string | null; help: boolean } {
  const { values } = parseArgs({
    args,
    options: {
      help: { type: "boolean" },
      organizations: { type: "string" },
      reports: { type: "string" },
      webhooks: { type: "string" },
      contacts: { type: "string" },
      zipf: { type: "string" },
      months: { type: "string" },
      seed: { type: "string" },
      growth: { type: "string" },
      sample: { type: "string" },
      "description-median": { type: "string" },
      keep: { type: "string" },
    },
  });
  const num = (name: keyof SimulationOptions, integer = true) => {
    const flag = name === "descriptionMedian" ? "description-median" : name;
    const raw = values[flag as keyof typeof values];
    if (raw === undefined) return DEFAULTS[name];
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
      throw new Error(`--${flag} must be a ${integer ? "whole " : ""}number ≥ 0, not ${raw}`);
    return n;
  };
  const options = {
    organizations: num("organizations"),
    reports: num("reports"),
    webhooks: num("webhooks"),
    contacts: num("contacts"),
    zipf: num("zipf", false),
    months: num("months"),
    seed: num("seed"),
    growth: num("growth", false),
    sample: num("sample", false),
    descriptionMedian: num("descriptionMedian"),
    keep: (values.keep as string | undefined) ?? null,
    help: values.help === true,
  };
  if (options.months < 1 || options.months > 12) throw new Error("--months must be between 1 and 12");
  if (options.organizations < 1) throw new Error("--organizations must be at least 1");
  if (options.sample <= 0 || options.sample > 1) throw new Error("--sample must be more than 0 and at most 1");
  return options;
}

export interface Simulation {
  options: SimulationOptions;
  results: LayoutResult[];
  figures: DatabaseFigures[][];
  shards: { k: number; oversized: number[] };
  text: string;
}

/**
 * The whole simulation, two layouts at a time (one a core): today's and the one before event bodies were
 * emptied; then, with K chosen from today's, the shards beside the R2 layout.
 */
export async function simulate(options: SimulationOptions, directory: string | null, threads = true): Promise<Simulation> {
  const run = threads ? inWorker : runJob;
  const [today, before] = await Promise.all([run({ layout: "today", options, directory }), run({ layout: "before", options, directory })]);
  const { perOrganization, reports } = planYear(options);
  const placed = placeShards(projectedByOrganization(today!, perOrganization, options), SOFT_LIMIT * FILL);
  const [r2, shards] = await Promise.all([
    run({ layout: "r2", options, directory }),
    run({ layout: "shards", options, directory, shardOf: placed.shardOf }),
  ]);
  const results = [today!, before!, r2!, shards!];
  const figures = results.map((r) => figuresOf(r, reports, options, placed.shardOf));
  return {
    options,
    results,
    figures,
    shards: { k: placed.shards.length, oversized: placed.oversized },
    text: render(options, results, figures, placed),
  };
}

/** Each database's figures: its bytes scaled to the year and projected, its full year's writes. */
function figuresOf(
  result: LayoutResult,
  reports: readonly ReportPlan[],
  options: SimulationOptions,
  shardOf: readonly number[],
): DatabaseFigures[] {
  const names = result.databases.map((db) => db.name);
  const single = names.length === 1;
  const index = new Map(names.map((n, i) => [n, i]));
  // Tenant rows go to the one database, or to the organization's shard; the catalog takes none here.
  const databaseOf = (o: number) => (single ? 0 : index.get(`shard-${shardOf[o]! + 1}`)!);
  const reportsIn = new Float64Array(names.length);
  for (const r of reports) reportsIn[databaseOf(r.organization)]!++;
  const share = [...reportsIn].map((n) => n / Math.max(1, reports.length));
  const loads = fullYearLoads(reports, result, databaseOf, names.length, daysIn(options.months), options.sample, share);
  return result.databases.map((db, i) => databaseFigures(db, loads[i]!, options));
}

/**
 * What the shards' own replay says of K: that none passes 5 GB by the horizon; or which do, and whether
 * more shards would help (not for a shard that holds one organization alone).
 */
export function shardVerdict(figures: readonly DatabaseFigures[], placed: { shardOf: number[] }): string {
  const over = figures.filter((f) => f.name.startsWith("shard-") && f.passes5 !== null);
  if (over.length === 0) return `Checked by the replay: no shard passes 5 GB by month ${HORIZON_MONTHS}.`;
  return over
    .map((f) =>
      organizationsOn(placed.shardOf, Number(f.name.slice("shard-".length)) - 1) === 1
        ? `${f.name} holds one organization alone and passes 5 GB in month ${f.passes5}: no number of shards helps it; its bodies must leave D1, or its history move to an archive database.`
        : `${f.name} passes 5 GB in month ${f.passes5}: more shards are needed than the projection said.`,
    )
    .join(" ");
}

function render(
  options: SimulationOptions,
  results: LayoutResult[],
  allFigures: DatabaseFigures[][],
  placed: { shardOf: number[]; shards: number[]; oversized: number[] },
): string {
  const out: string[] = [];
  out.push(
    `# A platform-year, simulated: ${options.organizations.toLocaleString("en-US")} organizations, ${options.reports.toLocaleString("en-US")} reports in ${options.months} months (Zipf s=${options.zipf}), ${options.webhooks} webhooks and ${options.contacts} contacts each; growth past month ${options.months}: ${Math.round(options.growth * 100)}% a year; seed ${options.seed}. ${options.sample < 1 ? `One report in ${Math.round(1 / options.sample)} replayed into SQLite, what grows with reports scaled by ${Math.round(1 / options.sample)}; writes counted for every report of the year.` : "Every report replayed: the bytes are SQLite's own."}`,
  );
  const short: Record<string, string> = {
    today: "today's",
    before: "before bodies were emptied",
    r2: "bodies in R2",
    shards: "shards",
  };
  const today = results[0]!;
  const first = firstToOutgrow(today, options);
  out.push(
    "",
    "## In one table",
    "",
    renderSummary(
      results.map((r, i) => ({ title: short[r.layout]!, figures: allFigures[i]! })),
      options.months,
    ),
    "",
    `First to outgrow one database: ${first.table}, ${formatBytes(first.bytes)} at month ${options.months} today; alone it passes 5 GB ${when(first.passes5)} and 10 GB ${when(first.passes10)}.`,
  );
  const titles: Record<string, string> = {
    today:
      "Today's layout: one D1 database, event bodies emptied once fanned out (deliveries keep theirs 30 days; triage moves keep theirs for the timeline)",
    before: "Before event bodies were emptied: one D1 database, every event's body kept",
    r2: "Today's layout with the bodies in R2: delivery, e-mail and event bodies (content-addressed; rows keep sha256:<hex>)",
    shards: `${placed.shards.length} shards by organization plus a catalog (organizations placed largest first so that each shard holds at most ${FILL * 100}% of 5 GB by month ${HORIZON_MONTHS}, by today's projection${placed.oversized.length ? `; ${placed.oversized.length === 1 ? "the largest organization needs more than that alone: it has a shard of its own" : `${placed.oversized.length} organizations need more than that alone: each has a shard of its own`}` : ""})`,
  };
  results.forEach((r, i) => {
    out.push(
      "",
      `## ${titles[r.layout]}`,
      "",
      `Bytes per table at month ${options.months}${r.databases.length > 1 ? ", every database summed" : ""}:`,
      "",
    );
    out.push(renderTableBytes(r, options.sample));
    // One database's first table to outgrow it (summed over shards, a table's bytes name no database).
    if (r.databases.length === 1) {
      const largest = firstToOutgrow(r, options);
      out.push(
        "",
        `First to outgrow a database: ${largest.table}, ${formatBytes(largest.bytes)} at month ${options.months}; alone it passes 5 GB ${when(largest.passes5)} and 10 GB ${when(largest.passes10)}.`,
      );
    }
    const figures = allFigures[i]!;
    const shown =
      r.layout === "shards"
        ? [
            figures[0]!,
            figures.slice(1).reduce((a, b) => (b.lastMonthBytes > a.lastMonthBytes ? b : a)),
            figures.slice(1).reduce((a, b) => (b.hourMean > a.hourMean ? b : a)),
          ].filter((f, i, all) => all.indexOf(f) === i)
        : figures;
    out.push("", renderDatabases(shown, options.months));
    if (r.layout === "shards") {
      out.push(
        "",
        `Shards at month ${options.months}: ${figures
          .slice(1)
          .map((f) => formatBytes(f.lastMonthBytes))
          .join(", ")}. ${shardVerdict(figures, placed)}`,
      );
    }
    if (r.r2)
      out.push(
        "",
        `R2: ${Math.round(r.r2.objects / options.sample).toLocaleString("en-US")} objects, ${formatBytes(r.r2.bytes / options.sample)} (bodies stored once however many rows name them).`,
      );
    out.push("", `(replayed in ${r.seconds.toFixed(0)} s)`);
  });
  out.push("", "## Rates and their sources", "");
  for (const [name, r] of Object.entries(RATES)) out.push(`- ${name} = ${r.value}: ${r.what}. Source: ${r.source}.`);
  out.push(`- One writer's budget = ${BUDGET.writesPerSecond} rows written a second. Source: ${BUDGET.source}.`);
  out.push(`- What D1 and R2 charge and allow: ${BUDGET.pricing}.`);
  out.push(
    "- Retention applied daily, as the cron does: webhook deliveries (and their attempts) after 30 days, idempotency keys at expiry (a day). Events, e-mails, comments and advisories are kept; an event's body is emptied once it is fanned out (a triage move keeps its), except before bodies were emptied.",
    `- Projection to month ${HORIZON_MONTHS}: each month past the simulated ones grows by the mean of the last three measured, times (1 + growth) a year.`,
  );
  return out.join("\n");
}

// A worker thread started by inWorker runs its job; imported anywhere else (a test), this file runs nothing.
if (!isMainThread && (workerData as { simulateJob?: Job } | null)?.simulateJob) {
  const result = await runJob((workerData as { simulateJob: Job }).simulateJob);
  parentPort!.postMessage(result);
} else if (process.argv[1] === import.meta.filename) {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(USAGE);
    process.exit(0);
  }
  // In memory unless --keep names a folder for the files.
  if (options.keep) mkdirSync(options.keep, { recursive: true });
  const started = performance.now();
  const { text } = await simulate(options, options.keep);
  console.log(text);
  console.log(
    `\n(${((performance.now() - started) / 1000).toFixed(0)} s in all${options.keep ? `; databases kept in ${options.keep}` : ""})`,
  );
}
