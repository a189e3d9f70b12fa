import { env } from "cloudflare:workers";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { primaryDb } from "../../src/db";
import { emptyEventBodies } from "../../src/events/outbox";
import { LIMITS } from "../../src/lib/limits";
import { runScheduled } from "../../src/scheduled";
import { api, patch, post } from "../helpers/api";
import { countingD1 } from "../helpers/d1-counter";
import { eventsOf, fakeQueue } from "../helpers/events";
import { asReporter, nextIp, submitReport } from "../helpers/reporter";
import { NEIGHBOUR } from "../helpers/world";
import { organizationBeside, organizationIn } from "../helpers/factories";
import { databaseOf, shardOf, tenantBindings } from "../helpers/shards";
import { deliverEvents, receiver, runQueue, subscribedOrganization } from "../helpers/webhooks";

// An event's body is emptied once it is fanned out: each delivery keeps its own copy (for its 30 days,
// retries and redeliveries read it there), and nothing reads an old event's body but the report's
// timeline, which reads triage moves, whose bodies are kept. The cron empties the bodies of events
// processed before this was so, a page a run.

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const EVERY_KIND = [
  "Vuln::Created",
  "Vuln::Inbox::Received",
  "Vuln::Inbox::Stored",
  "Vuln::Updated",
  "Vuln::Triage::Changed",
  "Vuln::Processing::Closed",
  "Vuln::Comment::Created",
];
const DESCRIPTION = "Set the display name to <img src=x onerror=alert(1)>: it runs for every viewer of the profile.";

/** The report's events still unprocessed, handed to the consumer (with every webhook request recorded). */
async function processEventsOf(vulnId: string) {
  const { results } = await env.DB.prepare("SELECT id FROM events WHERE vuln_id = ? AND processed_at IS NULL ORDER BY rowid")
    .bind(vulnId)
    .all<{ id: string }>();
  return deliverEvents(results.map((r) => r.id));
}

/** A public report, taken through the intake, moved to triaged then resolved, and commented on, every event processed. */
async function reportThroughItsLife() {
  const { o } = await subscribedOrganization(EVERY_KIND);
  const r = receiver();
  restore = r.restore;
  const report = await submitReport(o, { description: DESCRIPTION });
  await processEventsOf(report.id);
  for (const triage_state of ["triaged", "resolved"]) {
    const moved = await patch(`/v1/vulns/${report.id}`, o.key, { data: { type: "vuln", id: report.id, attributes: { triage_state } } });
    expect(moved.status, moved.text).toBe(200);
    await processEventsOf(report.id);
  }
  const said = await post(`/v1/vulns/${report.id}/comments`, o.key, {
    data: { type: "comment", attributes: { body: "Fixed in 2.4.1, thank you.", visibility: "reporter" } },
  });
  expect(said.status, said.text).toBe(201);
  await processEventsOf(report.id);
  return { o, report, sent: r.sent };
}

const bodyOf = (sent: { headers: Record<string, string>; body: string }[], type: string) =>
  sent.filter((s) => s.headers["x-webhook-event"] === type).map((s) => JSON.parse(s.body));

describe("an event's body, once fanned out", () => {
  it("is emptied for every kind but a triage move, while each delivery carries the body whole", async () => {
    const { o, report, sent } = await reportThroughItsLife();
    const events = await eventsOf(report.id);
    expect(events.map((e) => e.type)).toEqual([
      "Vuln::Created",
      "Vuln::Inbox::Received",
      "Vuln::Inbox::Stored",
      "Vuln::Updated",
      "Vuln::Triage::Changed",
      "Vuln::Updated",
      "Vuln::Processing::Closed",
      "Vuln::Triage::Changed",
      "Vuln::Comment::Created",
    ]);
    expect(events.every((e) => e.processed_at !== null)).toBe(true);
    expect(events.filter((e) => e.type !== "Vuln::Triage::Changed").map((e) => [e.type, e.payload])).toEqual(
      events.filter((e) => e.type !== "Vuln::Triage::Changed").map((e) => [e.type, "{}"]),
    );
    expect(events.filter((e) => e.type === "Vuln::Triage::Changed").map((e) => JSON.parse(e.payload).vuln.triage_state)).toEqual([
      "triaged",
      "resolved",
    ]);
    // Each delivery carries the body as the change left it, the intake's events (written processed) too.
    expect(sent.map((s) => s.headers["x-webhook-event"]).sort()).toEqual([...EVERY_KIND, "Vuln::Updated", "Vuln::Triage::Changed"].sort());
    for (const [type, inbox] of [
      ["Vuln::Created", "dispatching"],
      ["Vuln::Inbox::Received", "received"],
      ["Vuln::Inbox::Stored", "stored"],
    ] as const)
      expect(bodyOf(sent, type).map((b) => [type, b.vuln.id, b.vuln.description, b.vuln.inbox_state])).toEqual([
        [type, report.id, DESCRIPTION, inbox],
      ]);
    expect(bodyOf(sent, "Vuln::Comment::Created").map((b) => b.comment.body)).toEqual(["Fixed in 2.4.1, thank you."]);
    const { results: deliveries } = await env.DB.prepare(
      "SELECT d.event_type, d.request_body FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.vuln_id = ? AND d.organization_id = ?",
    )
      .bind(report.id, o.id)
      .all<{ event_type: string; request_body: string }>();
    expect(deliveries).toHaveLength(sent.length);
    expect(deliveries.map((d) => d.request_body).sort()).toEqual(sent.map((s) => s.body).sort());
  });

  it("leaves the report's timeline its triage moves", async () => {
    const { report } = await reportThroughItsLife();
    const res = await asReporter("GET", "/v1/p/report/timeline", report.token, { headers: { "CF-Connecting-IP": nextIp() } });
    expect(res.status, res.text).toBe(200);
    const entries = decodeJwt(res.text).entries as Record<string, string>[];
    expect(entries.filter((e) => e.type === "triage_changed").map((e) => [e.from, e.to])).toEqual([
      ["new", "triaged"],
      ["triaged", "resolved"],
    ]);
  });

  it("is sent whole again by a redelivery, read from the delivery", async () => {
    const { o } = await subscribedOrganization(["Vuln::Created", "Vuln::Inbox::Stored"]);
    const r = receiver();
    restore = r.restore;
    const report = await submitReport(o, { description: DESCRIPTION });
    await processEventsOf(report.id);
    expect((await eventsOf(report.id)).map((e) => e.payload)).toEqual(["{}", "{}", "{}"]);
    const { id: webhookId } = (await env.DB.prepare("SELECT id FROM webhooks WHERE organization_id = ?")
      .bind(o.id)
      .first<{ id: string }>())!;
    const { results: firsts } = await env.DB.prepare(
      "SELECT id, event_type FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_type",
    )
      .bind(webhookId)
      .all<{ id: string; event_type: string }>();
    expect(firsts.map((d) => d.event_type)).toEqual(["Vuln::Created", "Vuln::Inbox::Stored"]);
    for (const first of firsts) {
      const again = await post(`/v1/webhooks/${webhookId}/deliveries/${first.id}/redeliver`, o.key, undefined);
      expect(again.status, again.text).toBe(202);
      await runQueue([{ delivery_id: again.body.data.id }]);
    }
    const byType = (type: string) => r.sent.filter((s) => s.headers["x-webhook-event"] === type).map((s) => s.body);
    for (const type of ["Vuln::Created", "Vuln::Inbox::Stored"]) {
      const [original, redelivered] = byType(type);
      expect([type, redelivered]).toEqual([type, original]);
      expect(JSON.parse(redelivered!).vuln.description).toBe(DESCRIPTION);
    }
  });
});

// ---- The cron: bodies of events processed before they were emptied at processing ---------------------

const OLD = "2025-01-01T00:00:00.000Z";

/** Events as an older Worker left them, through SQL in the organization's database: `n` of `type`, processed (or not), each with a body. */
async function oldEvents(organizationId: string, n: number, opts: { type?: string; processed?: boolean; createdAt?: string } = {}) {
  const prefix = crypto.randomUUID().slice(0, 8);
  const createdAt = opts.createdAt ?? OLD;
  await (await databaseOf(organizationId))
    .prepare(
      `WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < ?)
     INSERT INTO events (id, organization_id, vuln_id, type, payload, created_at, processed_at, send_count)
     SELECT ? || '-' || printf('%06d', k), ?, NULL, ?, json_object('vuln', json_object('description', 'old body ' || k)), ?, ?, 0 FROM i`,
    )
    .bind(n, prefix, organizationId, opts.type ?? "Vuln::Updated", createdAt, opts.processed === false ? null : createdAt)
    .run();
  return prefix;
}

/** Of the events whose ids start with `prefix`: how many keep a body. */
const withBodies = async (prefix: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM events WHERE id LIKE ? || '-%' AND payload <> '{}'")
    .bind(prefix)
    .first<{ n: number }>())!.n;

const neighbourId = async () =>
  (await env.DB.prepare("SELECT id FROM organizations WHERE slug = ?").bind(NEIGHBOUR.slug).first<{ id: string }>())!.id;

describe("the cron's emptyEventBodies", () => {
  it("empties old processed events' bodies, every organization's, never an unprocessed event's nor a triage move's", async () => {
    const { o } = await subscribedOrganization([]);
    const neighbour = await neighbourId();
    const ours = await oldEvents(o.id, 3);
    const theirs = await oldEvents(neighbour, 2, { type: "Vuln::Inbox::Stored" });
    const moves = await oldEvents(o.id, 2, { type: "Vuln::Triage::Changed" });
    // Made a moment ago and not yet processed: the consumer has yet to fan it out (and the outbox sweep leaves it its minute).
    const waiting = await oldEvents(neighbour, 2, { processed: false, createdAt: new Date().toISOString() });
    await runScheduled(env);
    expect([await withBodies(ours), await withBodies(theirs), await withBodies(moves), await withBodies(waiting)]).toEqual([0, 0, 2, 2]);
    const kept = await env.DB.prepare("SELECT payload FROM events WHERE id LIKE ? || '-%' ORDER BY id")
      .bind(moves)
      .all<{ payload: string }>();
    expect(kept.results.map((e) => JSON.parse(e.payload).vuln.description)).toEqual(["old body 1", "old body 2"]);
  });

  it("takes a page a run in each database, oldest first, and reads no more than its page once there is nothing left", async () => {
    const { o } = await subscribedOrganization([]);
    // The page is each database's (the cron runs its steps in every shard): two organizations of one database share it.
    const beside = await organizationBeside(o);
    const page = LIMITS.eventBodiesEmptiedPerRun;
    const older = await oldEvents(o.id, page, { createdAt: "2024-06-01T00:00:00.000Z" });
    const newer = await oldEvents(beside.id, 7, { createdAt: "2024-06-02T00:00:00.000Z" });
    // Each other database's page goes in the same run (a sharded world's other shard).
    const shard = await shardOf(o.id);
    const elsewhere: string[] = [];
    for (const other of Object.keys(tenantBindings()).filter((name) => name !== shard))
      elsewhere.push(await oldEvents((await organizationIn(other)).id, 3, { createdAt: "2024-06-03T00:00:00.000Z" }));
    await runScheduled(env);
    expect([await withBodies(older), await withBodies(newer), ...(await Promise.all(elsewhere.map(withBodies)))]).toEqual([
      0,
      7,
      ...elsewhere.map(() => 0),
    ]);
    await runScheduled(env);
    expect(await withBodies(newer)).toBe(0);
    // Over a thousand processed events in the database, none with a body to empty: a run reads a few rows of
    // each database, not them.
    const own = tenantBindings()[shard]!;
    const processed = await own.prepare("SELECT count(*) AS n FROM events WHERE processed_at IS NOT NULL").first<{ n: number }>();
    expect(processed!.n).toBeGreaterThan(page);
    for (const d1 of Object.values(tenantBindings())) {
      const counting = countingD1(d1);
      expect(await emptyEventBodies(primaryDb(counting.db))).toBe(0);
      expect(counting.rowsRead()).toBeLessThan(10);
    }
  });
});

// The intake's own events, written processed, in the batch that fans them out: a second run of the
// consumer over the same message (a redelivery) finds them processed and empty, and copies nothing.
describe("the intake's events, written processed", () => {
  it("are emptied in their batch after their deliveries copied them, and a repeated message sends nothing twice", async () => {
    const { o } = await subscribedOrganization(["Vuln::Inbox::Received", "Vuln::Inbox::Stored"]);
    const r = receiver();
    restore = r.restore;
    const q = fakeQueue();
    const created = await api("POST", `/v1/p/briefs/${await shortcodeOf(o.id)}/vulns`, {
      body: { data: { type: "vuln", attributes: { title: "Open redirect at /out", description: DESCRIPTION } } },
      contentType: "application/json",
      headers: { "CF-Connecting-IP": nextIp() },
      env: { EVENTS: q.queue },
    });
    expect(created.status, created.text).toBe(201);
    await deliverEvents(q.ids());
    await deliverEvents(q.ids());
    expect(r.sent.map((s) => [s.headers["x-webhook-event"], JSON.parse(s.body).vuln.description])).toEqual([
      ["Vuln::Inbox::Received", DESCRIPTION],
      ["Vuln::Inbox::Stored", DESCRIPTION],
    ]);
    expect((await eventsOf(created.body.data.id)).map((e) => e.payload)).toEqual(["{}", "{}", "{}"]);
  });
});

const shortcodeOf = async (organizationId: string) =>
  (await env.DB.prepare("SELECT shortcode FROM briefs WHERE organization_id = ?").bind(organizationId).first<{ shortcode: string }>())!
    .shortcode;
