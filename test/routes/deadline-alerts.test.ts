import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testClock } from "../helpers/clock";
import { createDb, primaryDb } from "../../src/db";
import { sweepOutbox } from "../../src/events/outbox";
import { runScheduled } from "../../src/scheduled";
import { PLATFORM_CALLER } from "../../src/services/context";
import { sweepDeadlineAlerts } from "../../src/services/deadline-alerts";
import { patch } from "../helpers/api";
import { failingBatch } from "../helpers/d1-faults";
import { eventsOf, fakeQueue } from "../helpers/events";
import { brief, organization, policy, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

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
