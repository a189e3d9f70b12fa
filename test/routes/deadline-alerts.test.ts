import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testClock } from "../helpers/clock";
import { createDb, primaryDb } from "../../src/db";
import { sweepOutbox } from "../../src/events/outbox";
import { runScheduled } from "../../src/scheduled";
import { PLATFORM_CALLER } from "../../src/services/context";
import { sweepDeadlineAlerts } from "../../src/services/deadline-alerts";
import { get, patch } from "../helpers/api";
import { failingBatch } from "../helpers/d1-faults";
import { eventsOf, fakeQueue } from "../helpers/events";
import { brief, organization, policy, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";
import { asReporter, nextIp, submitReport } from "../helpers/reporter";

// The cron's deadline alerts: Vuln::Deadline::Approaching when 80 % of a running deadline's window has
// passed, Vuln::Deadline::Breached at its due time, each exactly once per deadline and kind, whatever
// the runs, crashes and lost sends. Time is the test's (vi.setSystemTime and the cron's `now`).

const H = 3_600_000;
const T0 = Date.parse("2026-07-01T00:00:00.000Z");
const { at } = testClock(T0);
const iso = (ms: number) => new Date(ms).toISOString();

/** A report whose policy promises acknowledgement in 10 hours and triage in 100 (no timeline, no severity). */
async function report() {
  const org = await organization();
  const p = await policy(org, { response_targets: { acknowledge_hours: 10, triage_hours: 100 } });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  return { org, v: await vuln(org, b.id) };
}

const cron = (ms: number) => runScheduled(env, new Date(ms));
const alerts = async (vulnId: string) =>
  (await eventsOf(vulnId))
    .filter((e) => e.type.startsWith("Vuln::Deadline::"))
    .map((e) => ({ type: e.type, ...JSON.parse(e.payload).deadline }));
const move = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes } });

describe("deadline alerts", () => {
  it("approach at 80 % of the window and breach at the due time, once each, within a minute of the moment", async () => {
    const { v } = await report();
    await cron(T0 + 8 * H - 60_000);
    expect(await alerts(v.id)).toEqual([]);
    for (const t of [T0 + 8 * H + 30_000, T0 + 8 * H + 90_000]) await cron(t);
    const approaching = {
      type: "Vuln::Deadline::Approaching",
      vuln_id: v.id,
      shortcode: v.attributes.shortcode,
      kind: "acknowledge",
      due_at: iso(T0 + 10 * H),
      state: "pending",
    };
    expect(await alerts(v.id)).toEqual([approaching]);
    for (const t of [T0 + 10 * H + 30_000, T0 + 10 * H + 90_000, T0 + 11 * H]) await cron(t);
    expect(await alerts(v.id)).toEqual([approaching, { ...approaching, type: "Vuln::Deadline::Breached", state: "breached" }]);
    // The triage deadline's turn: 80 h, then 100 h.
    for (const t of [T0 + 80 * H + 30_000, T0 + 100 * H + 30_000, T0 + 100 * H + 90_000]) await cron(t);
    expect((await alerts(v.id)).map((a) => `${a.kind} ${a.state}`)).toEqual([
      "acknowledge pending",
      "acknowledge breached",
      "triage pending",
      "triage breached",
    ]);
  });

  it("send nothing for a deadline met in time, and only a breach for one first seen past due", async () => {
    const { org, v } = await report();
    await move(org, v.id, { triage_state: "triaged" });
    for (const t of [T0 + 9 * H, T0 + 11 * H, T0 + 90 * H, T0 + 101 * H]) await cron(t);
    expect(await alerts(v.id)).toEqual([]);
    const late = await report();
    await cron(T0 + 50 * H);
    expect((await alerts(late.v.id)).map((a) => `${a.kind} ${a.state}`)).toEqual(["acknowledge breached"]);
  });

  it("wait while the report is paused, and follow its due times when it runs again", async () => {
    const { org, v } = await report();
    at(T0 + H);
    await move(org, v.id, { triage_state: "needs_more_info" });
    await cron(T0 + 20 * H);
    expect(await alerts(v.id)).toEqual([]);
    at(T0 + 21 * H);
    // Back after 20 hours: acknowledged (the first move out of new), triage due at 120 h, approaching at 100 h.
    await move(org, v.id, { triage_state: "new" });
    await cron(T0 + 99 * H);
    expect(await alerts(v.id)).toEqual([]);
    await cron(T0 + 100 * H + 30_000);
    expect(await alerts(v.id)).toMatchObject([{ kind: "triage", state: "pending", due_at: iso(T0 + 120 * H) }]);
  });

  it("owe the world no disclosure for a report closed as junk: none, never overdue, no alert; reopened, the clock is back", async () => {
    const org = await organization();
    const p = await policy(org, { cvd_timeline: 1, response_targets: { acknowledge_hours: 10, triage_hours: 100 } });
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    const junk = ["spam", "informative", "not_applicable", "duplicate"] as const;
    const original = await vuln(org, b.id);
    expect((await move(org, original.id, { triage_state: "resolved" })).status).toBe(200);
    const closed = [];
    for (const state of junk) {
      const v = await vuln(org, b.id);
      const res = await patch(`/v1/vulns/${v.id}`, org.key, {
        data: {
          type: "vuln",
          id: v.id,
          attributes: { triage_state: state },
          ...(state === "duplicate" ? { relationships: { duplicate_of: { data: { type: "vuln", id: original.id } } } } : {}),
        },
      });
      expect([state, res.status]).toEqual([state, 200]);
      expect(res.body.data.attributes.deadlines.disclosure).toEqual({ due_at: null, met_at: null, state: "none" });
      closed.push(v);
    }
    // A day and more later: the disclosure of each would be breached.
    const later = T0 + 30 * H;
    await cron(later);
    at(later);
    for (const v of closed) expect((await alerts(v.id)).filter((a) => a.kind === "disclosure")).toEqual([]);
    const overdue = (await get("/v1/vulns?q[overdue_eq]=true&page[size]=100", org.key)).body.data.map((v: { id: string }) => v.id);
    expect(overdue).toEqual([original.id]);
    // Resolved is not junk: what was fixed is owed its disclosure.
    expect((await alerts(original.id)).filter((a) => a.kind === "disclosure").map((a) => a.state)).toEqual(["breached"]);
    // Reopened, the report owes its disclosure again, from when it came in.
    const back = await move(org, closed[0]!.id, { triage_state: "triaged" });
    expect(back.body.data.attributes.deadlines.disclosure).toMatchObject({ due_at: iso(T0 + 24 * H), state: "breached" });
    await cron(later + 60_000);
    expect((await alerts(closed[0]!.id)).filter((a) => a.kind === "disclosure").map((a) => a.state)).toEqual(["breached"]);
    // Asked a question from spam, the report runs its clock while it waits; the reporter's answer closes it as spam again, owing nothing.
    const asked = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
    await move(org, asked.id, { triage_state: "spam" });
    const question = await move(org, asked.id, { triage_state: "needs_more_info" });
    expect(question.body.data.attributes.deadlines.disclosure.due_at).not.toBeNull();
    const answer = await asReporter("POST", "/v1/p/report/comments", asked.token, {
      body: { data: { type: "comment", attributes: { body: "It is not spam: here are the steps." } } },
      headers: { "CF-Connecting-IP": nextIp() },
    });
    expect(answer.status, answer.text).toBe(201);
    const after = (await get(`/v1/vulns?q[shortcode_eq]=${asked.shortcode}`, org.key)).body.data[0].attributes;
    expect([after.triage_state, after.deadlines.disclosure.state]).toEqual(["spam", "none"]);
  });

  it("of reports closed as junk before that rule are dropped by a migration, and the cron clears their overdue", async () => {
    const org = await organization();
    const p = await policy(org, { cvd_timeline: 1 });
    const v = await vuln(org, (await brief(org, { published_at: PUBLISHED }, p.id)).id);
    await move(org, v.id, { triage_state: "spam" });
    // As such a report stood: its disclosure clock kept, breached and overdue.
    await env.DB.prepare("UPDATE vulns SET disclosure_due_ms = ?, overdue = 1, next_alert_ms = NULL WHERE id = ?")
      .bind(T0 + 24 * H, v.id)
      .run();
    const repair = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_junk_owes_no_disclosure.sql"))!;
    await env.DB.batch(repair.queries.map((q) => env.DB.prepare(q)));
    await cron(T0 + 30 * H);
    at(T0 + 30 * H);
    const seen = (await get(`/v1/vulns?q[shortcode_eq]=${v.attributes.shortcode}`, org.key)).body.data[0].attributes;
    expect(seen.deadlines.disclosure.state).toBe("none");
    expect((await get("/v1/vulns?q[overdue_eq]=true", org.key)).body.data).toEqual([]);
    expect((await alerts(v.id)).filter((a) => a.kind === "disclosure")).toEqual([]);
  });

  it("are sent once when the batch that records one is written but its answer is lost, and when the queue refuses them", async () => {
    const { v } = await report();
    const q = fakeQueue({ failing: true });
    const ctx = (d1: D1Database) => ({ db: primaryDb(d1), caller: PLATFORM_CALLER, queue: q.queue, defer: () => {} });
    // The first run's alert batch (its only batch: the reports due come with the alerts they sent) commits, then fails.
    await expect(
      sweepDeadlineAlerts(ctx(failingBatch(1, "D1_ERROR: Network connection lost.", "after")), new Date(T0 + 9 * H)),
    ).rejects.toThrow(/Network connection lost/);
    for (const t of [T0 + 9 * H + 60_000, T0 + 9 * H + 120_000]) await sweepDeadlineAlerts(ctx(env.DB), new Date(t));
    const [only, ...none] = (await eventsOf(v.id)).filter((e) => e.type.startsWith("Vuln::Deadline::"));
    expect([only?.type, only?.processed_at, none]).toEqual(["Vuln::Deadline::Approaching", null, []]);
    // The queue refused it: the outbox sweep sends it again, and it is still the one event.
    const working = fakeQueue();
    await sweepOutbox(createDb(env.DB), working.queue, T0 + 9 * H + 5 * 60_000);
    expect(working.ids()).toContain(only!.id);
    expect((await alerts(v.id)).length).toBe(1);
  });
});
