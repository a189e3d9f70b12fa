// Replays the planned year into one layout's databases, action by action in time order, as the Worker
// would write it: each action one D1 batch (the consumer's steps and the sends after them too), the
// cron's purges once a simulated day, and every database measured at the end of each month.
import { type Measurement, R2Bodies, SimulatedDatabase } from "./database.ts";
import { DAY, daysIn, MONTH_LAST_DAYS, RATES, random, type ReportPlan, type SimulationOptions } from "./model.ts";
import { prepareStatements, type Statements } from "./statements.ts";
import {
  act,
  type Generators,
  idMaker,
  iso,
  type ReportState,
  setUpOrganization,
  submit,
  type Tenant,
  textMaker,
  writePolicyVersion,
} from "./writes.ts";

/** Where an organization's rows go: one database for all (today), or its shard; the catalog keeps the rest. */
export interface Layout {
  name: string;
  /** Database files by name: "database" alone, or "catalog" (organizations and their keys) and the shards. */
  databases: string[];
  /** The database of an organization's tenant rows. */
  shardOf: (organization: number) => string;
  /**
   * Where bodies go: in their rows, an event's emptied once it is fanned out, as the Worker does now
   * (deliveries keep theirs 30 days, and triage moves keep theirs for the report's timeline, the one
   * reader of an old event's body); every event's kept, as before; or as now, with every body written
   * moved to R2 (rows keep `sha256:<hex>`).
   */
  bodies: "emptied" | "kept" | "r2";
}

export interface DatabaseResult {
  name: string;
  /** The file once the organizations are set up, before any report: what does not grow with reports. */
  setUp: Measurement;
  /** One measurement per simulated month, after that month's last purge. */
  months: Measurement[];
  rowsWritten: number;
  batches: number;
}

export interface LayoutResult {
  layout: string;
  databases: DatabaseResult[];
  /** Rows written (as D1 counts them) by each kind of action, summed, and how many there were. */
  actions: Record<string, { rows: number; count: number }>;
  r2: { objects: number; bytes: number } | null;
  seconds: number;
}

export async function replay(
  layout: Layout,
  plan: { reports: ReportPlan[] },
  options: SimulationOptions,
  /** Where to write the SQLite files, or null to keep the databases in memory. */
  directory: string | null,
): Promise<LayoutResult> {
  const started = performance.now();
  const days = daysIn(options.months);
  const databases = new Map(
    layout.databases.map((name) => [name, new SimulatedDatabase(directory && `${directory}/${layout.name}-${name}.sqlite`)]),
  );
  const r2 = layout.bodies === "r2" ? new R2Bodies() : null;
  const statementsOf = new Map<string, Statements>();
  for (const [name, sim] of databases) {
    if (r2)
      r2.install(sim, [
        { table: "events", column: "payload" },
        { table: "webhook_deliveries", column: "request_body" },
        { table: "notifications", column: "params" },
      ]);
    if (name !== "catalog") statementsOf.set(name, await prepareStatements(sim.db, layout.bodies === "kept" ? "kept" : "emptied"));
  }
  // One database holds everything, or the catalog holds what is not a tenant's.
  const catalog = databases.get("catalog") ?? databases.get("database")!;
  const g: Generators = { text: textMaker(options.seed), idAt: idMaker(), rand: random(options.seed + 1) };

  // ---- Organizations: the catalog's rows, and each tenant's own -------------------------------------
  const tenants: Tenant[] = [];
  for (const db of databases.values()) db.begin();
  for (let o = 0; o < options.organizations; o++) {
    const sim = databases.get(layout.shardOf(o))!;
    tenants.push(setUpOrganization(o, catalog, sim, statementsOf.get(layout.shardOf(o))!, options, g.idAt));
  }
  for (const db of databases.values()) db.end();
  const setUp = new Map([...databases].map(([name, db]) => [name, db.measure()]));
  const actions: Record<string, { rows: number; count: number }> = {};
  const tally = (kind: string, db: SimulatedDatabase, before: number) => {
    const a = (actions[kind] ??= { rows: 0, count: 0 });
    a.rows += db.rowsWritten - before;
    a.count++;
  };

  // ---- The year, in time order ----------------------------------------------------------------------
  const queue: { at: number; report: number; action: number }[] = [];
  plan.reports.forEach((r, report) => {
    queue.push({ at: r.at, report, action: -1 });
    r.actions.forEach((a, action) => {
      if (a.at < days * DAY) queue.push({ at: a.at, report, action });
    });
  });
  // Each organization publishes its policy's new versions through the year.
  const policyVersions: { at: number; organization: number }[] = [];
  // Sampled like the reports, so that scaling by 1/sample gives the year's.
  for (let o = 0; o < options.organizations; o++)
    for (let i = 0; i < RATES.policyVersions.value; i++) {
      const at = Math.floor(g.rand() * days * DAY);
      if (g.rand() < options.sample) policyVersions.push({ at, organization: o });
    }
  for (const p of policyVersions) queue.push({ at: p.at, report: -1 - p.organization, action: -1 });
  queue.sort((a, b) => a.at - b.at);

  const states: ReportState[] = new Array(plan.reports.length);
  const months: Map<string, Measurement[]> = new Map(layout.databases.map((n) => [n, []]));
  const policyNumbers = new Array<number>(options.organizations).fill(1);
  let day = 0;
  const endDay = (d: number) => {
    for (const db of databases.values()) {
      const before = db.rowsWritten;
      purge(db, d);
      tally("purge", db, before);
      if (MONTH_LAST_DAYS.includes(d)) months.get(nameOf(databases, db))!.push(db.measure());
    }
  };
  for (const item of queue) {
    while (item.at >= (day + 1) * DAY) endDay(day++);
    if (item.report < 0) {
      const o = -1 - item.report;
      const before = tenants[o]!.db.rowsWritten;
      writePolicyVersion(tenants[o]!, ++policyNumbers[o]!, item.at, g);
      tally("policy_version", tenants[o]!.db, before);
      continue;
    }
    const report = plan.reports[item.report]!;
    const tenant = tenants[report.organization]!;
    const before = tenant.db.rowsWritten;
    if (item.action === -1) states[item.report] = submit(tenant, report, item.at, g);
    else act(g, tenant, report, states[item.report]!, report.actions[item.action]!);
    tally(item.action === -1 ? "submit" : report.actions[item.action]!.kind, tenant.db, before);
  }
  while (day < days) endDay(day++);

  const result: LayoutResult = {
    layout: layout.name,
    databases: [...databases].map(([name, db]) => ({
      name,
      setUp: setUp.get(name)!,
      months: months.get(name)!,
      rowsWritten: db.rowsWritten,
      batches: db.batches,
    })),
    actions,
    r2: r2 ? { objects: r2.objects, bytes: r2.bytes } : null,
    seconds: (performance.now() - started) / 1000,
  };
  for (const db of databases.values()) db.close();
  return result;
}

function nameOf(databases: Map<string, SimulatedDatabase>, db: SimulatedDatabase): string {
  for (const [name, d] of databases) if (d === db) return name;
  throw new Error("unknown database");
}

/** The cron's purges (src/scheduled.ts), once a simulated day: deliveries after 30 days, expired idempotency keys. */
function purge(sim: SimulatedDatabase, day: number): void {
  const now = (day + 1) * DAY;
  sim.begin();
  sim.countedDelete("DELETE FROM webhook_deliveries WHERE created_at < ?", iso(now - 30 * DAY), "webhook_deliveries");
  sim.countedDelete("DELETE FROM idempotency_keys WHERE expires_at < ?", iso(now), "idempotency_keys");
  sim.end();
}
