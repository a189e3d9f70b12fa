// Replays the planned year into one layout's databases, action by action in time order, as the Worker
// would write it: each action one D1 batch (the consumer's steps and the sends after them too), the
// cron's purges once a simulated day, and every database measured at the end of each month.
import { createHash } from "node:crypto";
import { EVENT_TYPES } from "../../src/events/types.ts";
import { R2Bodies, SimulatedDatabase, type Measurement, type Values } from "./database.ts";
import { type Action, DAY, daysIn, HOUR, MONTH_LAST_DAYS, type ReportPlan, RATES, random, type SimulationOptions } from "./model.ts";
import { prepareStatements, type Statements, type VulnEventType } from "./statements.ts";

/** Where an organization's rows go: one database for all (today), or its shard; the catalog keeps the rest. */
export interface Layout {
  name: string;
  /** Database files by name: "database" alone, or "catalog" (organizations and their keys) and the shards. */
  databases: string[];
  /** The database of an organization's tenant rows. */
  shardOf: (organization: number) => string;
  /**
   * Where bodies go: kept in their rows (today); event, delivery and e-mail bodies moved to R2 (rows keep
   * `sha256:<hex>`); or event bodies dropped once fanned out (deliveries keep theirs 30 days, and triage
   * moves keep theirs for the report's timeline, the one reader of an old event's body).
   */
  bodies: "kept" | "r2" | "dropped";
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

const START = Date.UTC(2027, 0, 1);
const iso = (ms: number) => new Date(START + ms).toISOString();

interface Tenant {
  id: string;
  db: SimulatedDatabase;
  statements: Statements;
  webhooks: string[];
  responders: { id: string; email: string }[];
  escalation: { id: string; email: string }[];
  briefId: string;
  briefName: string;
  name: string;
  domain: { id: string; value: string };
  policyId: string;
}

interface ReportState {
  id: string;
  shortcode: string;
  title: string;
  triage: string;
  /** Until the intake has stored it. */
  submission?: { title: string; description: string; contact_email: string | null; domains: string[]; received_at: string };
  createdEventId?: string;
  advisoryId?: string;
}

/** UUIDv7s for a time: the time's 48 bits, then a counter where the random bits go (unique per run). */
function idMaker(): (ms: number) => string {
  let n = 0;
  return (ms) => {
    const hex = Math.max(0, START + ms)
      .toString(16)
      .padStart(12, "0");
    const tail = (n++).toString(16).padStart(15, "0");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${tail.slice(0, 3)}-8${tail.slice(3, 6)}-${tail.slice(6)}aaa`;
  };
}

/** Text of a given length, varied enough that SQLite stores it as a client's prose would be (it never compresses). */
function textMaker(seed: number): (length: number) => string {
  const words =
    "the a request parameter token server response header injection cross site script origin session cookie bypass admin user account endpoint redirect upload file path query payload reflected stored blind internal api key".split(
      " ",
    );
  const rand = random(seed);
  let pool = "";
  while (pool.length < 200_000) pool += `${words[Math.floor(rand() * words.length)]}${rand() < 0.1 ? ".\n" : " "}`;
  return (length) => {
    const at = Math.floor(rand() * (pool.length - length - 1));
    return pool.slice(at, at + length);
  };
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
    if (name !== "catalog") statementsOf.set(name, await prepareStatements(sim.db));
    if (layout.bodies === "dropped") sim.dropEventBodies = true;
  }
  // One database holds everything, or the catalog holds what is not a tenant's.
  const catalog = databases.get("catalog") ?? databases.get("database")!;
  const text = textMaker(options.seed);
  const idAt = idMaker();
  const rand = random(options.seed + 1);

  // ---- Organizations: the catalog's rows, and each tenant's own -------------------------------------
  const tenants: Tenant[] = [];
  for (const db of databases.values()) db.begin();
  for (let o = 0; o < options.organizations; o++) {
    const sim = databases.get(layout.shardOf(o))!;
    tenants.push(setUpOrganization(o, catalog, sim, statementsOf.get(layout.shardOf(o))!, options, idAt));
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
      const at = Math.floor(rand() * days * DAY);
      if (rand() < options.sample) policyVersions.push({ at, organization: o });
    }
  for (const p of policyVersions) queue.push({ at: p.at, report: -1 - p.organization, action: -1 });
  queue.sort((a, b) => a.at - b.at);

  const states: ReportState[] = new Array(plan.reports.length);
  const months: Map<string, Measurement[]> = new Map(layout.databases.map((n) => [n, []]));
  const policyNumbers = new Array<number>(options.organizations).fill(1);
  let day = 0;
  const endDay = (d: number) => {
    for (const db of databases.values()) {
      db.db.exec("COMMIT");
      const before = db.rowsWritten;
      purge(db, d);
      tally("purge", db, before);
      if (MONTH_LAST_DAYS.includes(d)) months.get(nameOf(databases, db))!.push(db.measure());
      db.db.exec("BEGIN");
    }
  };
  for (const db of databases.values()) db.db.exec("BEGIN");
  for (const item of queue) {
    while (item.at >= (day + 1) * DAY) endDay(day++);
    if (item.report < 0) {
      const o = -1 - item.report;
      const before = tenants[o]!.db.rowsWritten;
      writePolicyVersion(tenants[o]!, ++policyNumbers[o]!, item.at, text, idAt);
      tally("policy_version", tenants[o]!.db, before);
      continue;
    }
    const report = plan.reports[item.report]!;
    const tenant = tenants[report.organization]!;
    const before = tenant.db.rowsWritten;
    if (item.action === -1) states[item.report] = submit(tenant, report, item.at, text, idAt);
    else act(tenant, report, states[item.report]!, report.actions[item.action]!, text, idAt, rand);
    tally(item.action === -1 ? "submit" : report.actions[item.action]!.kind, tenant.db, before);
  }
  while (day < days) endDay(day++);
  for (const db of databases.values()) db.db.exec("COMMIT");

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
  sim.db.exec("BEGIN");
  sim.begin();
  sim.countedDelete("DELETE FROM webhook_deliveries WHERE created_at < ?", iso(now - 30 * DAY), "webhook_deliveries");
  sim.countedDelete("DELETE FROM idempotency_keys WHERE expires_at < ?", iso(now), "idempotency_keys");
  sim.end();
  sim.db.exec("COMMIT");
}

function setUpOrganization(
  o: number,
  catalog: SimulatedDatabase,
  sim: SimulatedDatabase,
  statements: Statements,
  options: SimulationOptions,
  idAt: (ms: number) => string,
): Tenant {
  const at = iso(-30 * DAY);
  const id = idAt(-30 * DAY);
  const slug = `org-${o}`;
  const organization = {
    id,
    name: `Organization ${o}`,
    slug,
    website_url: `https://${slug}.example`,
    claimed: true,
    created_at: at,
    updated_at: at,
  };
  catalog.insert("organizations", organization);
  if (sim !== catalog) sim.insert("organizations", organization);
  catalog.insert("api_keys", {
    id: idAt(-30 * DAY),
    organization_id: id,
    kind: "organization",
    name: "ci",
    key_hash: createHash("sha256").update(`${slug} key`).digest("hex"),
    key_prefix: "vdp_abcd",
    created_at: at,
    updated_at: at,
  });
  const domain = { id: idAt(-30 * DAY), value: `app.${slug}.example` };
  sim.insert("assets", { id: domain.id, organization_id: id, kind: "domain", value: domain.value, created_at: at, updated_at: at });
  const scope = [{ id: domain.id, kind: "domain", value: domain.value, short_description: null }];
  const policyId = idAt(-30 * DAY);
  sim.insert("policies", {
    id: policyId,
    organization_id: id,
    name: `${slug} disclosure policy`,
    point_of_contact: `security@${slug}.example`,
    cvd_timeline: 90,
    hall_of_fame: true,
    published_at: at,
    shortcode: `P${o.toString(32).toUpperCase().padStart(7, "0")}`,
    in_scope_assets: scope,
    out_of_scope_assets: [],
    created_at: at,
    updated_at: at,
  });
  const briefId = idAt(-30 * DAY);
  sim.insert("briefs", {
    id: briefId,
    organization_id: id,
    policy_id: policyId,
    name: "Report a vulnerability",
    shortcode: `B${o.toString(32).toUpperCase().padStart(7, "0")}`,
    published_at: at,
    in_scope_assets: scope,
    out_of_scope_assets: [],
    created_at: at,
    updated_at: at,
  });
  const webhooks: string[] = [];
  for (let w = 0; w < options.webhooks; w++) {
    const webhookId = idAt(-30 * DAY);
    webhooks.push(webhookId);
    sim.insert("webhooks", {
      id: webhookId,
      organization_id: id,
      name: `hook ${w}`,
      url: `https://hooks.${slug}.example/${w}`,
      enabled: true,
      secret: `v1.k1.${"s".repeat(80)}`,
      created_at: at,
      updated_at: at,
    });
    for (const type of EVENT_TYPES) sim.insert("webhook_subscriptions", { webhook_id: webhookId, event_type: type.short_name });
  }
  const contacts = Array.from({ length: options.contacts }, (_, c) => ({
    id: idAt(-30 * DAY),
    email: `person${c}@${slug}.example`,
    role: c % 2 === 0 ? "responder" : "escalation",
  }));
  for (const c of contacts)
    sim.insert("contacts", {
      id: c.id,
      organization_id: id,
      name: `Person ${c.email}`,
      email: c.email,
      role: c.role,
      confirmed_at: at,
      created_at: at,
      updated_at: at,
    });
  const policyVersionTerms = { name: `${slug} disclosure policy`, cvd_timeline: 90, safe_harbor: "full", in_scope_assets: scope };
  sim.insert("policy_versions", {
    id: idAt(-30 * DAY),
    policy_id: policyId,
    number: 1,
    terms: policyVersionTerms,
    sha256: createHash("sha256").update(JSON.stringify(policyVersionTerms)).digest("hex"),
    created_at: at,
    updated_at: at,
  });
  const responders = contacts.filter((c) => c.role === "responder");
  const escalation = contacts.filter((c) => c.role === "escalation");
  return {
    id,
    db: sim,
    statements,
    webhooks,
    responders: responders.length ? responders : contacts,
    escalation: escalation.length ? escalation : contacts,
    briefId,
    briefName: "Report a vulnerability",
    name: organization.name,
    domain,
    policyId,
  };
}

function writePolicyVersion(tenant: Tenant, number: number, at: number, text: (n: number) => string, idAt: (ms: number) => string): void {
  const sim = tenant.db;
  sim.begin();
  const terms = { name: "Disclosure policy", description: text(2_500), cvd_timeline: 90, safe_harbor: "full" };
  sim.insert("policy_versions", {
    id: idAt(at),
    policy_id: tenant.policyId,
    number,
    terms,
    sha256: createHash("sha256").update(JSON.stringify(terms)).digest("hex"),
    created_at: iso(at),
    updated_at: iso(at),
  });
  sim.end();
}

const SHORTCODE = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function shortcodeOf(n: number): string {
  let s = "";
  for (let i = 0; i < 8; i++, n = Math.floor(n / 32)) s = SHORTCODE[n % 32] + s;
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** The public submission's batch: the vuln, its asset, Vuln::Created, and the held receipt. */
function submit(tenant: Tenant, report: ReportPlan, at: number, text: (n: number) => string, idAt: (ms: number) => string): ReportState {
  const sim = tenant.db;
  const now = iso(at);
  const id = idAt(at);
  const state: ReportState = { id, shortcode: shortcodeOf(report.index + 1_000_000), title: text(report.titleLength), triage: "new" };
  const description = text(report.descriptionLength);
  const contact = report.contactEmail ? `researcher${report.index % 5_000}@mail.example` : null;
  const submission = { title: state.title, description, contact_email: contact, domains: [tenant.domain.value], received_at: now };
  sim.begin();
  sim.insert("vulns", {
    id,
    organization_id: tenant.id,
    brief_id: tenant.briefId,
    shortcode: state.shortcode,
    title: state.title,
    description,
    contact_email: contact,
    tags: [],
    inbox_state: "dispatching",
    processing_state: "open",
    triage_state: "new",
    targets: {
      acknowledge_hours: 72,
      triage_hours: 240,
      resolve_days: { critical: 15, high: 30, medium: 60, low: 90, none: 90 },
      disclosure_days: 90,
    },
    acknowledge_due_ms: START + at + 72 * HOUR,
    triage_due_ms: START + at + 240 * HOUR,
    disclosure_due_ms: START + at + 90 * DAY,
    next_alert_ms: START + at + 48 * HOUR,
    follow_up_token_hash: createHash("sha256").update(id).digest("hex"),
    notify_reporter: report.notifyMe,
    policy_version_number: 1,
    policy_version_sha256: "0".repeat(64),
    revision: 0,
    submission,
    created_at: now,
    updated_at: now,
  });
  sim.insert("vuln_assets", { vuln_id: id, asset_id: tenant.domain.id });
  state.createdEventId = idAt(at);
  if (sim.run(tenant.statements.vulnEvent["Vuln::Created"], { eventId: state.createdEventId, vulnId: id, now }) !== 1)
    throw new Error("Vuln::Created was not written");
  if (report.notifyMe && contact) email(tenant, state, "receipt", "reporter", contact, null, null, at, idAt, "held", { received_at: now });
  sim.end();
  state.submission = submission;
  return state;
}

function email(
  tenant: Tenant,
  report: ReportState,
  kind: string,
  recipient: "reporter" | "contact",
  to: string,
  contactId: string | null,
  eventId: string | null,
  at: number,
  idAt: (ms: number) => string,
  status = "sent",
  extra: Record<string, unknown> = {},
): void {
  const now = iso(at);
  const params = {
    kind,
    report: { id: report.id, shortcode: report.shortcode, title: report.title, brief: tenant.briefName, organization: tenant.name },
    ...extra,
  };
  tenant.db.insert("notifications", {
    id: idAt(at),
    organization_id: tenant.id,
    vuln_id: report.id,
    contact_id: contactId,
    event_id: eventId,
    kind,
    recipient,
    to,
    subject: `[${tenant.name}] ${kind.replaceAll("_", " ")}: ${report.title}`.slice(0, 200),
    params,
    sealed_link: kind === "receipt" ? `v1.k1.${"L".repeat(180)}` : null,
    status,
    attempt_count: status === "sent" ? 1 : 0,
    sent_at: status === "sent" ? now : null,
    message_id: status === "sent" ? `<${idAt(at)}@mail.vdp.example>` : null,
    created_at: now,
    updated_at: now,
  });
}

/**
 * An event's fan-out: one delivery per webhook (its body the event's), its attempts (a failed first
 * attempt is retried three times), and the updates the consumer makes as it sends (counted: the rows
 * written above are their final state).
 */
function fanOut(tenant: Tenant, eventId: string, at: number, idAt: (ms: number) => string, rand: () => number): void {
  const now = iso(at);
  for (const webhookId of tenant.webhooks) {
    const failed = rand() < RATES.webhookFailure.value;
    const attempts = failed ? 4 : 1;
    const deliveryId = idAt(at);
    const values: Values = { deliveryId, webhookId, eventId, status: "delivered", attempts, statusCode: 200, now };
    if (tenant.db.run(tenant.statements.delivery, values) !== 1) throw new Error("delivery not written");
    for (let a = 0; a < attempts; a++) {
      const last = a === attempts - 1;
      tenant.db.insert("webhook_attempts", {
        id: idAt(at),
        delivery_id: deliveryId,
        attempted_at: now,
        status_code: last ? 200 : 503,
        duration_ms: 120,
        error: last ? null : "HTTP 503",
      });
    }
    tenant.db.counted(attempts, "webhook_deliveries");
  }
  if (tenant.db.dropEventBodies) tenant.db.dropEventBody(eventId);
}

function vulnEventWithFanOut(
  tenant: Tenant,
  type: VulnEventType,
  report: ReportState,
  at: number,
  idAt: (ms: number) => string,
  rand: () => number,
): string {
  const eventId = idAt(at);
  tenant.db.run(tenant.statements.vulnEvent[type], { eventId, vulnId: report.id, now: iso(at) });
  fanOut(tenant, eventId, at, idAt, rand);
  tenant.db.run(tenant.statements.markProcessed, { eventId, now: iso(at) });
  return eventId;
}

/** An organization's write sent with an Idempotency-Key: its answer kept a day for a retry. */
function idempotent(tenant: Tenant, report: ReportState, at: number, rand: () => number, size: number): void {
  if (rand() >= RATES.idempotent.value) return;
  tenant.db.insert("idempotency_keys", {
    scope: `org:${tenant.id}`,
    key: `${report.id}-${at}`,
    request_hash: "0".repeat(64),
    state: "done",
    token: "t".repeat(22),
    response_status: 200,
    response_headers: { "content-type": "application/vnd.api+json" },
    response_body: "r".repeat(size),
    created_at: iso(at),
    expires_at: iso(at + DAY),
  });
}

const CLOSED = new Set(["resolved", "duplicate", "informative", "not_applicable", "spam", "accepted_risk"]);

function act(
  tenant: Tenant,
  plan: ReportPlan,
  report: ReportState,
  action: Action,
  text: (n: number) => string,
  idAt: (ms: number) => string,
  rand: () => number,
): void {
  const sim = tenant.db;
  const s = tenant.statements;
  const at = action.at;
  const now = iso(at);
  const toReporter = plan.notifyMe ? `researcher${plan.index % 5_000}@mail.example` : null;
  switch (action.kind) {
    case "intake": {
      // The consumer's two steps: received (fan-out of Created and Received), then stored (the record,
      // Stored and its fan-out, the responders' e-mail, the receipt released and sent).
      const createdId = report.createdEventId!;
      const submission = report.submission!;
      sim.begin();
      fanOut(tenant, createdId, at, idAt, rand);
      const receivedId = idAt(at);
      sim.run(s.receive[0]!, { vulnId: report.id, now });
      sim.run(s.receive[1]!, { eventId: receivedId, vulnId: report.id, now });
      fanOut(tenant, receivedId, at, idAt, rand);
      sim.end();
      sim.begin();
      const storedId = idAt(at);
      sim.run(s.store[0]!, {
        vulnId: report.id,
        title: submission.title,
        description: submission.description,
        contactEmail: submission.contact_email,
        domain: tenant.domain.value,
        receivedAt: submission.received_at,
        sha256: createHash("sha256").update(JSON.stringify(submission)).digest("hex"),
        now,
      });
      sim.run(s.store[1]!, { vulnId: report.id, now });
      sim.run(s.store[2]!, { eventId: storedId, vulnId: report.id, now });
      fanOut(tenant, storedId, at, idAt, rand);
      for (const c of tenant.responders) email(tenant, report, "report_received", "contact", c.email, c.id, storedId, at, idAt);
      sim.run(s.markProcessed, { eventId: createdId, now });
      if (toReporter) sim.run(s.releaseReceipt, { vulnId: report.id, now, messageId: `<${idAt(at)}@mail.vdp.example>` });
      sim.end();
      report.submission = undefined;
      report.createdEventId = undefined;
      return;
    }
    case "read":
      sim.begin();
      sim.run(s.readVuln, { vulnId: report.id, now });
      vulnEventWithFanOut(tenant, "Vuln::Read", report, at, idAt, rand);
      sim.end();
      return;
    case "update":
      sim.begin();
      sim.run(s.assess, { vulnId: report.id, now });
      vulnEventWithFanOut(tenant, "Vuln::Updated", report, at, idAt, rand);
      idempotent(tenant, report, at, rand, 1_200 + plan.descriptionLength);
      sim.end();
      return;
    case "triage": {
      const state = action.detail!;
      const previous = report.triage;
      if (previous === state) return;
      report.triage = state;
      const closing = CLOSED.has(state);
      sim.begin();
      sim.run(s.moveTriage, { vulnId: report.id, state, processing: closing ? "closed" : "open", now });
      const eventId = idAt(at);
      sim.run(s.triage, { eventId, vulnId: report.id, previous, now });
      fanOut(tenant, eventId, at, idAt, rand);
      if (toReporter)
        email(tenant, report, "triage_changed", "reporter", toReporter, null, eventId, at, idAt, "sent", {
          triage_state: state,
          previous_triage_state: previous,
        });
      if (closing) vulnEventWithFanOut(tenant, "Vuln::Processing::Closed", report, at, idAt, rand);
      idempotent(tenant, report, at, rand, 1_200 + plan.descriptionLength);
      sim.end();
      return;
    }
    case "comment": {
      const side = action.detail!;
      const author = side === "organization" ? "organization" : "reporter";
      const visibility = author === "reporter" || rand() < 0.8 ? "reporter" : "internal";
      const commentId = idAt(at);
      sim.begin();
      sim.insert("comments", {
        id: commentId,
        vuln_id: report.id,
        organization_id: tenant.id,
        author,
        visibility,
        body: text(action.size!),
        created_at: now,
      });
      if (side === "email")
        sim.insert("inbound_emails", {
          message_id: `<${commentId}@mail.example>`,
          vuln_id: report.id,
          comment_id: commentId,
          received_at: now,
        });
      const eventId = idAt(at);
      sim.run(s.comment, { eventId, commentId, now });
      fanOut(tenant, eventId, at, idAt, rand);
      if (author === "reporter")
        for (const c of tenant.responders) email(tenant, report, "reporter_commented", "contact", c.email, c.id, eventId, at, idAt);
      else if (visibility === "reporter" && toReporter)
        email(tenant, report, "organization_commented", "reporter", toReporter, null, eventId, at, idAt);
      if (author === "organization") idempotent(tenant, report, at, rand, 600 + action.size!);
      sim.end();
      return;
    }
    case "attachment":
      sim.begin();
      for (let i = 0; i < action.size!; i++) {
        const id = idAt(at);
        sim.insert("attachments", {
          id,
          vuln_id: report.id,
          organization_id: tenant.id,
          filename: `evidence-${i}.png`,
          content_type: "image/png",
          byte_size: 250_000,
          sha256: createHash("sha256").update(id).digest("hex"),
          uploaded_by: "reporter",
          object_key: `attachments/${tenant.id}/${report.id}/${id}`,
          created_at: now,
        });
      }
      sim.end();
      return;
    case "alert": {
      const [deadline, alert] = action.detail!.split(":") as [string, string];
      const breached = alert === "breached";
      const type = breached ? "Vuln::Deadline::Breached" : "Vuln::Deadline::Approaching";
      sim.begin();
      sim.insert("deadline_alerts", { vuln_id: report.id, deadline, alert, due_ms: START + at, created_at: now });
      const eventId = vulnEventWithFanOut(tenant, type, report, at, idAt, rand);
      for (const c of breached ? tenant.escalation : tenant.responders)
        email(
          tenant,
          report,
          breached ? "deadline_breached" : "deadline_approaching",
          "contact",
          c.email,
          c.id,
          eventId,
          at,
          idAt,
          "sent",
          { deadline, due_at: now },
        );
      sim.end();
      return;
    }
    case "advisory":
    case "revision": {
      const advisoryId = report.advisoryId ?? idAt(at);
      const revision = action.kind === "advisory" ? 1 : 2;
      const document = {
        title: report.title,
        summary: text(200),
        description: text(1_200),
        affected: [{ purl: "pkg:npm/example-lib", ranges: [{ introduced: "1.0.0", fixed: "1.4.2" }] }],
        remediation: text(200),
        references: [{ url: `https://example.org/advisories/${advisoryId}`, kind: "advisory" }],
        cve_id: `CVE-2027-${10_000 + plan.index}`,
        cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
        cwe_ids: ["CWE-79"],
        credits: plan.contactEmail ? [{ name: `Researcher ${plan.index % 5_000}`, type: "finder" }] : [],
        vuln_ids: [report.id],
        published_at: now,
      };
      sim.begin();
      if (revision === 1) {
        report.advisoryId = advisoryId;
        sim.insert("advisories", {
          id: advisoryId,
          organization_id: tenant.id,
          state: "published",
          revision: 1,
          title: document.title,
          summary: document.summary,
          description: document.description,
          affected: document.affected,
          remediation: document.remediation,
          references: document.references,
          cve_id: document.cve_id,
          cvss_vector: document.cvss_vector,
          cwe_ids: document.cwe_ids,
          credits: document.credits,
          published_at: now,
          created_at: now,
          updated_at: now,
        });
        sim.insert("advisory_vulns", { advisory_id: advisoryId, vuln_id: report.id });
        sim.run(s.disclose, { vulnId: report.id, now });
      } else {
        sim.run(s.revise, { advisoryId, description: document.description, now });
      }
      sim.insert("advisory_revisions", {
        id: idAt(at),
        advisory_id: advisoryId,
        number: revision,
        note: revision === 1 ? "Published." : text(120),
        document,
        created_at: now,
      });
      const eventId = idAt(at);
      sim.run(s.advisory, {
        eventId,
        organizationId: tenant.id,
        advisoryId,
        title: report.title,
        cveId: document.cve_id,
        revision: String(revision),
        vulnId: report.id,
        now,
      });
      fanOut(tenant, eventId, at, idAt, rand);
      sim.end();
      return;
    }
  }
}
