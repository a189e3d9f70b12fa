// What each action of the year writes, as the Worker writes it: the organization's set-up, the public
// submission, the consumer's intake, reads, assessments, triage moves, comments (some by e-mail),
// attachments, deadline alerts and advisories, each with the events it fans out to webhooks and the
// e-mails it sends. One action is one D1 batch (the intake two: the consumer's steps).
import { createHash } from "node:crypto";
import { EVENT_TYPES } from "../../src/events/types.ts";
import type { SimulatedDatabase, Template, Values } from "./database.ts";
import { type Action, type ActionKind, DAY, HOUR, random, RATES, type ReportPlan, type SimulationOptions } from "./model.ts";
import type { Statements } from "./statements.ts";
/** The simulated year starts here (times in the plan are milliseconds from it). */
export const START = Date.UTC(2027, 0, 1);
export const iso = (ms: number) => new Date(START + ms).toISOString();

/** An organization as its writes need it: its database and statements, webhooks, contacts, brief. */
export interface Tenant {
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

/** What the replay remembers of a report between its actions. */
export interface ReportState {
  id: string;
  shortcode: string;
  title: string;
  triage: string;
  /** Until the intake has stored it. */
  submission?: { title: string; description: string; contact_email: string | null; domains: string[]; received_at: string };
  createdEventId?: string;
  advisoryId?: string;
  /** Where a report in needs_more_info returns when its reporter answers. */
  infoRequestedFrom?: string;
}

/** UUIDv7s for a time: the time's 48 bits, then a counter where the random bits go (unique per run). */
export function idMaker(): (ms: number) => string {
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
export function textMaker(seed: number): (length: number) => string {
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

/** The replay's sources of ids, text and chance, shared by every write. */
export interface Generators {
  text: (length: number) => string;
  idAt: (ms: number) => string;
  rand: () => number;
}

/** An organization's rows: in the catalog, its key; in its own database, the rest. */
export function setUpOrganization(
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

/** A new version of the organization's policy. */
export function writePolicyVersion(tenant: Tenant, number: number, at: number, { text, idAt }: Generators): void {
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
export function submit(tenant: Tenant, report: ReportPlan, at: number, g: Generators): ReportState {
  const { text, idAt } = g;
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
  if (report.notifyMe && contact)
    email(
      { g, tenant, report: state, at, now },
      { kind: "receipt", recipient: "reporter", to: contact, status: "held", extra: { received_at: now } },
    );
  sim.end();
  state.submission = submission;
  return state;
}

/** One action of one report, and what its writes need. */
interface Step {
  g: Generators;
  tenant: Tenant;
  plan: ReportPlan;
  report: ReportState;
  action: Action;
  at: number;
  now: string;
  /** The reporter's address when they asked to be told. */
  toReporter: string | null;
}

/** Writes one action of a report, as one batch (a triage move to where the report already is writes nothing). */
export function act(g: Generators, tenant: Tenant, plan: ReportPlan, report: ReportState, action: Action): void {
  if (action.kind === "triage" && action.detail === report.triage) return;
  const step: Step = {
    g,
    tenant,
    plan,
    report,
    action,
    at: action.at,
    now: iso(action.at),
    toReporter: plan.notifyMe ? `researcher${plan.index % 5_000}@mail.example` : null,
  };
  tenant.db.begin();
  WRITES[action.kind](step);
  tenant.db.end();
}

interface Email {
  kind: string;
  recipient: "reporter" | "contact";
  to: string;
  contactId?: string;
  eventId?: string;
  status?: "sent" | "held";
  extra?: Record<string, unknown>;
}

/** A row of the e-mail outbox, as it stands once sent (or held, for a receipt until its report is stored). */
function email({ g, tenant, report, at, now }: Pick<Step, "g" | "tenant" | "report" | "at" | "now">, e: Email): void {
  const status = e.status ?? "sent";
  // Written as it stands once sent; the sender's lease and its outcome are two updates, counted.
  if (status === "sent") tenant.db.counted(2);
  tenant.db.insert("notifications", {
    id: g.idAt(at),
    organization_id: tenant.id,
    vuln_id: report.id,
    contact_id: e.contactId ?? null,
    event_id: e.eventId ?? null,
    kind: e.kind,
    recipient: e.recipient,
    to: e.to,
    subject: `[${tenant.name}] ${e.kind.replaceAll("_", " ")}: ${report.title}`.slice(0, 200),
    params: {
      kind: e.kind,
      report: { id: report.id, shortcode: report.shortcode, title: report.title, brief: tenant.briefName, organization: tenant.name },
      ...e.extra,
    },
    sealed_link: e.kind === "receipt" ? `v1.k1.${"L".repeat(180)}` : null,
    status,
    attempt_count: status === "sent" ? 1 : 0,
    sent_at: status === "sent" ? now : null,
    message_id: status === "sent" ? `<${g.idAt(at)}@mail.vdp.example>` : null,
    created_at: now,
    updated_at: now,
  });
}

/** The same e-mail to each of these contacts. */
function emailContacts(step: Step, contacts: readonly { id: string; email: string }[], e: Omit<Email, "recipient" | "to">): void {
  for (const c of contacts) email(step, { ...e, recipient: "contact", to: c.email, contactId: c.id });
}

/**
 * An event's fan-out: one delivery per webhook (its body the event's), its attempts (a failed first
 * attempt is retried three times), and the updates the consumer makes as it sends (counted: the rows
 * written above are their final state).
 */
function fanOut({ g, tenant, at, now }: Step, eventId: string): void {
  for (const webhookId of tenant.webhooks) {
    const attempts = g.rand() < RATES.webhookFailure.value ? 4 : 1;
    const deliveryId = g.idAt(at);
    const values: Values = { deliveryId, webhookId, eventId, status: "delivered", attempts, statusCode: 200, now };
    if (tenant.db.run(tenant.statements.delivery, values) !== 1) throw new Error("delivery not written");
    for (let a = 0; a < attempts; a++) {
      const last = a === attempts - 1;
      tenant.db.insert("webhook_attempts", {
        id: g.idAt(at),
        delivery_id: deliveryId,
        attempted_at: now,
        status_code: last ? 200 : 503,
        duration_ms: 120,
        error: last ? null : "HTTP 503",
      });
    }
    // Leased, then delivered (or failed and scheduled again, then delivered): one update an attempt.
    tenant.db.counted(attempts);
  }
}

/** An event fanned out, then marked processed by the consumer, which empties its body (a triage move keeps its). */
function processed(step: Step, eventId: string): void {
  fanOut(step, eventId);
  step.tenant.db.run(step.tenant.statements.markProcessed, { eventId, now: step.now });
}

/** The bodies of the intake's events written processed, emptied by the last statement of their batch (none before bodies were). */
function emptyWritten(step: Step, eventId: string): void {
  const template = step.tenant.statements.emptyWritten;
  if (template && step.tenant.db.run(template, { eventId }) !== 1) throw new Error(`the body of ${eventId} was not emptied`);
}

/** An event's insert, which must write its row (a conditional one chained on a change that did not happen writes none). */
function writeEvent(db: SimulatedDatabase, template: Template, values: Values): void {
  if (db.run(template, values) !== 1) throw new Error(`${template.table}: the event of ${String(values.eventId)} was not written`);
}

/** A vuln event written by `template` (with `values` beyond the vuln and the time), fanned out and marked processed; its id. */
function vulnEvent(step: Step, template: Template, values: Values = {}): string {
  const { tenant, report, now } = step;
  const eventId = step.g.idAt(step.at);
  writeEvent(tenant.db, template, { eventId, vulnId: report.id, now, ...values });
  processed(step, eventId);
  return eventId;
}

/** An organization's write sent with an Idempotency-Key: its answer kept a day for a retry. */
function idempotent({ g, tenant, report, at }: Step, size: number): void {
  if (g.rand() >= RATES.idempotent.value) return;
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

/**
 * The consumer's two steps: received (fan-out of Created and Received), then stored (the record, Stored
 * and its fan-out, the responders' e-mail, the receipt released and sent).
 */
function intake(step: Step): void {
  const { g, tenant, report, now } = step;
  const s = tenant.statements;
  const sim = tenant.db;
  const createdId = report.createdEventId!;
  const submission = report.submission!;
  fanOut(step, createdId);
  const receivedId = g.idAt(step.at);
  sim.run(s.receive[0]!, { vulnId: report.id, now });
  writeEvent(sim, s.receive[1]!, { eventId: receivedId, vulnId: report.id, now });
  fanOut(step, receivedId);
  emptyWritten(step, receivedId);
  sim.end();
  sim.begin();
  const storedId = g.idAt(step.at);
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
  writeEvent(sim, s.store[2]!, { eventId: storedId, vulnId: report.id, now });
  fanOut(step, storedId);
  emailContacts(step, tenant.responders, { kind: "report_received", eventId: storedId });
  sim.run(s.markProcessed, { eventId: createdId, now });
  if (step.toReporter) sim.run(s.releaseReceipt, { vulnId: report.id, now, messageId: `<${g.idAt(step.at)}@mail.vdp.example>` });
  emptyWritten(step, storedId);
  report.submission = undefined;
  report.createdEventId = undefined;
}

/** The organization opens the report for the first time. */
function read(step: Step): void {
  step.tenant.db.run(step.tenant.statements.readVuln, { vulnId: step.report.id, now: step.now });
  vulnEvent(step, step.tenant.statements.vulnEvent["Vuln::Read"]);
}

/** Severity and CVSS set. */
function assess(step: Step): void {
  step.tenant.db.run(step.tenant.statements.assess, { vulnId: step.report.id, now: step.now });
  vulnEvent(step, step.tenant.statements.vulnEvent["Vuln::Updated"]);
  idempotent(step, 1_200 + step.plan.descriptionLength);
}

const ESCALATED = new Set(["acknowledge", "triage"]);

const CLOSED = new Set(["resolved", "duplicate", "informative", "not_applicable", "spam", "accepted_risk"]);

/** A move between triage states; into a closed one, the report closes too. */
function triage(step: Step): void {
  move(step, step.report.triage, step.action.detail!);
  idempotent(step, 1_200 + step.plan.descriptionLength);
}

/**
 * A report moved between triage states, as the Worker's update writes it: Vuln::Updated (the whole
 * report), Vuln::Processing::Closed when it closes, then Vuln::Triage::Changed, and the reporter told.
 */
function move(step: Step, previous: string, state: string): void {
  const { g, tenant, report, now } = step;
  report.triage = state;
  if (state === "needs_more_info") report.infoRequestedFrom = previous;
  const closing = CLOSED.has(state);
  tenant.db.run(tenant.statements.moveTriage, { vulnId: report.id, state, processing: closing ? "closed" : "open", now });
  vulnEvent(step, tenant.statements.vulnEvent["Vuln::Updated"]);
  if (closing) vulnEvent(step, tenant.statements.vulnEvent["Vuln::Processing::Closed"]);
  const eventId = g.idAt(step.at);
  writeEvent(tenant.db, tenant.statements.triage, { eventId, vulnId: report.id, previous, now });
  processed(step, eventId);
  if (step.toReporter)
    email(step, {
      kind: "triage_changed",
      recipient: "reporter",
      to: step.toReporter,
      eventId,
      extra: { triage_state: state, previous_triage_state: previous },
    });
}

/** A comment from either side (the reporter's sometimes by e-mail), and who hears of it. */
function comment(step: Step): void {
  const { g, tenant, report, now, action } = step;
  const side = action.detail!;
  const author = side === "organization" ? "organization" : "reporter";
  const visibility = author === "reporter" || g.rand() < 0.8 ? "reporter" : "internal";
  const commentId = g.idAt(step.at);
  tenant.db.insert("comments", {
    id: commentId,
    vuln_id: report.id,
    organization_id: tenant.id,
    author,
    visibility,
    body: g.text(action.size!),
    created_at: now,
  });
  if (side === "email")
    tenant.db.insert("inbound_emails", {
      message_id: `<${commentId}@mail.example>`,
      vuln_id: report.id,
      comment_id: commentId,
      received_at: now,
    });
  const eventId = g.idAt(step.at);
  writeEvent(tenant.db, tenant.statements.comment, { eventId, commentId, now });
  processed(step, eventId);
  // The reporter's answer returns a report that waited on them to where it was.
  if (author === "reporter" && report.triage === "needs_more_info") move(step, "needs_more_info", report.infoRequestedFrom ?? "new");
  if (author === "reporter") emailContacts(step, tenant.responders, { kind: "reporter_commented", eventId });
  else if (visibility === "reporter" && step.toReporter)
    email(step, { kind: "organization_commented", recipient: "reporter", to: step.toReporter, eventId });
  if (author === "organization") idempotent(step, 600 + action.size!);
}

/** The reporter's files: rows here, bytes in R2. */
function attachment({ g, tenant, report, now, at, action }: Step): void {
  for (let i = 0; i < action.size!; i++) {
    const id = g.idAt(at);
    tenant.db.insert("attachments", {
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
}

/** The cron's deadline alert: its row, its event, and the responders (or, breached, escalation) told. */
function alert(step: Step): void {
  const { tenant, report, now, at } = step;
  const [deadline, kind] = step.action.detail!.split(":") as [string, string];
  const breached = kind === "breached";
  tenant.db.insert("deadline_alerts", { vuln_id: report.id, deadline, alert: kind, due_ms: START + at, created_at: now });
  const eventId = vulnEvent(step, tenant.statements.deadline[breached ? "breached" : "approaching"], { deadline, dueAt: now });
  // A breach escalates only for the promises that say someone is reading (acknowledge, triage).
  if (breached && !ESCALATED.has(deadline)) return;
  emailContacts(step, breached ? tenant.escalation : tenant.responders, {
    kind: breached ? "deadline_breached" : "deadline_approaching",
    eventId,
    extra: { deadline, due_at: now },
  });
}

/** An advisory published (revision 1, disclosing the report) or revised (revision 2), frozen and announced. */
function publish(step: Step): void {
  const { g, tenant, report, plan, now, at } = step;
  const s = tenant.statements;
  const advisoryId = report.advisoryId ?? g.idAt(at);
  const revision = step.action.kind === "advisory" ? 1 : 2;
  const document = {
    title: report.title,
    summary: g.text(200),
    description: g.text(1_200),
    affected: [{ purl: "pkg:npm/example-lib", ranges: [{ introduced: "1.0.0", fixed: "1.4.2" }] }],
    remediation: g.text(200),
    references: [{ url: `https://example.org/advisories/${advisoryId}`, kind: "advisory" }],
    cve_id: `CVE-2027-${10_000 + plan.index}`,
    cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
    cwe_ids: ["CWE-79"],
    credits: plan.contactEmail ? [{ name: `Researcher ${plan.index % 5_000}`, type: "finder" }] : [],
    vuln_ids: [report.id],
    published_at: now,
  };
  if (revision === 1) {
    report.advisoryId = advisoryId;
    const { vuln_ids: _, ...columns } = document;
    tenant.db.insert("advisories", {
      id: advisoryId,
      organization_id: tenant.id,
      state: "published",
      revision: 1,
      ...columns,
      created_at: now,
      updated_at: now,
    });
    tenant.db.insert("advisory_vulns", { advisory_id: advisoryId, vuln_id: report.id });
    tenant.db.run(s.disclose, { vulnId: report.id, now });
  } else {
    tenant.db.run(s.revise, { advisoryId, description: document.description, now });
  }
  tenant.db.insert("advisory_revisions", {
    id: g.idAt(at),
    advisory_id: advisoryId,
    number: revision,
    note: revision === 1 ? "Published." : g.text(120),
    document,
    created_at: now,
  });
  const eventId = g.idAt(at);
  writeEvent(tenant.db, s.advisory, {
    eventId,
    organizationId: tenant.id,
    advisoryId,
    title: report.title,
    cveId: document.cve_id,
    revision: String(revision),
    vulnId: report.id,
    now,
  });
  processed(step, eventId);
}

const WRITES: Record<ActionKind, (step: Step) => void> = {
  intake,
  read,
  update: assess,
  triage,
  comment,
  attachment,
  alert,
  advisory: publish,
  revision: publish,
};
