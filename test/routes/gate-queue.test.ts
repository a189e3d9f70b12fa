import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { primaryDb } from "../../src/db";
import { platformContext, runScheduled } from "../../src/scheduled";
import { releaseQueuedReports } from "../../src/services/gate/queue";
import { browse, patch, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { interleaved } from "../helpers/d1-faults";
import { eventTypes, fakeQueue } from "../helpers/events";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { mailbox, runMail } from "../helpers/mail";
import { asReporter, nextIp, submitReport, type SubmittedReport } from "../helpers/reporter";

// A brief's daily cap never drops a report: past it, reports are stored queued, owing nothing and
// announcing nothing, and the cron releases them oldest first as each UTC day's cap has room (or the
// owner releases them at once). Time is the test's: the submissions' clock and the cron's `now`.

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.parse("2026-07-01T09:00:00.000Z");
const { at } = testClock(T0);
const day = (n: number) => new Date(T0 + n * DAY).toISOString().slice(0, 10);
const cron = (ms: number) => runScheduled(env, new Date(ms));

/** An organization whose brief admits `cap` reports a UTC day, under a policy promising acknowledgement in 10 hours. */
async function cappedBrief(cap: number) {
  const org = await organization();
  const p = await policy(org, { response_targets: { acknowledge_hours: 10, triage_hours: 100 } });
  const b = await brief(org, { published_at: PUBLISHED, daily_cap: cap }, p.id);
  return { org, briefId: b.id as string, shortcode: b.attributes.shortcode as string };
}

/** `n` reports through the public door, a second apart from `start` (so their order is their time's). */
async function send(target: { org: TestOrganization; briefId: string; shortcode: string }, n: number, start = T0) {
  const sent: SubmittedReport[] = [];
  for (let i = 0; i < n; i++) {
    at(start + i * 1000);
    sent.push(await submitReport(target.org, { title: `Report ${i + 1}` }, target));
  }
  return sent;
}

interface Row {
  id: string;
  inbox_state: string;
  admitted_day: string | null;
  release_expected_on: string | null;
  acknowledge_due_ms: number | null;
  next_alert_ms: number | null;
}

/** The brief's reports, oldest first. */
const rowsOf = async (briefId: string) =>
  (
    await env.DB.prepare(
      "SELECT id, inbox_state, admitted_day, release_expected_on, acknowledge_due_ms, next_alert_ms FROM vulns WHERE brief_id = ? ORDER BY created_at, id",
    )
      .bind(briefId)
      .all<Row>()
  ).results;

const queued = (rows: Row[]) => rows.filter((r) => r.inbox_state === "queued");
const createdCount = async (id: string) => (await eventTypes(id)).filter((t) => t === "Vuln::Created").length;
const queueHead = async (briefId: string) =>
  (
    await env.DB.prepare("SELECT queue_head_at FROM brief_gate_state WHERE brief_id = ?")
      .bind(briefId)
      .first<{ queue_head_at: string | null }>()
  )?.queue_head_at;

describe("a brief's daily cap", () => {
  it("queues the reports past it with their expected days, and the cron releases them oldest first, a cap a day, none lost", async () => {
    const target = await cappedBrief(3);
    const sent = await send(target, 10);
    let rows = await rowsOf(target.briefId);
    expect(rows.map((r) => r.id)).toEqual(sent.map((s) => s.id));
    expect(rows.map((r) => r.inbox_state)).toEqual([...Array(3).fill("dispatching"), ...Array(7).fill("queued")]);
    expect(rows.map((r) => r.release_expected_on)).toEqual([null, null, null, day(1), day(1), day(1), day(2), day(2), day(2), day(3)]);
    expect(rows.map((r) => r.admitted_day)).toEqual([...Array(3).fill(day(0)), ...Array(7).fill(null)]);
    // A queued report owes nothing and announces nothing until its release.
    for (const r of queued(rows)) {
      expect([r.acknowledge_due_ms, r.next_alert_ms]).toEqual([null, null]);
      expect(await eventTypes(r.id)).toEqual([]);
    }
    expect(await queueHead(target.briefId)).toBe(new Date(T0 + 3000).toISOString());

    const releasedBy: string[][] = [];
    for (const [n, released] of [
      [1, 3],
      [2, 3],
      [3, 1],
    ] as const) {
      const t = T0 + n * DAY;
      at(t);
      await cron(t);
      rows = await rowsOf(target.briefId);
      const today = rows.filter((r) => r.admitted_day === day(n));
      expect(today).toHaveLength(released);
      // Nothing lost: every report is either admitted or still queued.
      expect(rows.filter((r) => r.admitted_day !== null).length + queued(rows).length).toBe(10);
      for (const r of today) {
        expect(r.inbox_state).not.toBe("queued");
        expect(r.release_expected_on).toBeNull();
        // Its promises run from the release.
        expect(r.acknowledge_due_ms).toBe(t + 10 * H);
        expect(r.next_alert_ms).toBe(t + 8 * H);
        expect(await createdCount(r.id)).toBe(1);
      }
      releasedBy.push(today.map((r) => r.id));
      // A second run the same day finds the cap full.
      await cron(t + 60_000);
      expect((await rowsOf(target.briefId)).filter((r) => r.admitted_day === day(n))).toHaveLength(released);
    }
    // Oldest first: the days' releases are the queue's order.
    expect(releasedBy.flat()).toEqual(sent.slice(3).map((s) => s.id));
    expect(await queueHead(target.briefId)).toBeNull();
  });

  it("is kept by crons running at once: nothing is released twice or past the cap", async () => {
    const target = await cappedBrief(3);
    await send(target, 10);
    for (const n of [1, 2]) {
      const t = T0 + n * DAY;
      at(t);
      await Promise.all([cron(t), cron(t), cron(t)]);
      const rows = await rowsOf(target.briefId);
      const today = rows.filter((r) => r.admitted_day === day(n));
      expect(today).toHaveLength(3);
      for (const r of today) expect(await createdCount(r.id)).toBe(1);
      expect(queued(rows)).toHaveLength(10 - 3 - 3 * n);
    }
  });

  it("holds a cap lowered while the cron releases: the room is counted again where the release is written", async () => {
    const target = await cappedBrief(3);
    await send(target, 5);
    const t = T0 + DAY;
    at(t);
    // Between the cron's read (room for 2 queued reports) and its write, the owner lowers the cap to 1.
    const lowered = interleaved(2, () => patch(`/v1/briefs/${target.briefId}`, target.org.key, lowerCap(target.briefId, 1)));
    const { platform } = platformContext(primaryDb(lowered), fakeQueue().queue);
    await releaseQueuedReports(platform, new Date(t));
    expect((await rowsOf(target.briefId)).filter((r) => r.admitted_day === day(1))).toHaveLength(1);
  });

  it("keeps a queued report changed while the cron releases in its place: nothing passes it, and the next run releases it as changed", async () => {
    const target = await cappedBrief(3);
    const sent = await send(target, 6);
    const first = sent[3]!;
    const t = T0 + DAY;
    at(t);
    // Between the cron's read and its write, the organization assesses the oldest queued report.
    const assessed = interleaved(2, () =>
      patch(`/v1/vulns/${first.id}`, target.org.key, { data: { type: "vuln", id: first.id, attributes: { severity: "high" } } }),
    );
    const { platform } = platformContext(primaryDb(assessed), fakeQueue().queue);
    await releaseQueuedReports(platform, new Date(t));
    expect(queued(await rowsOf(target.briefId)).map((r) => r.id)).toEqual(sent.slice(3).map((s) => s.id));
    await cron(t + 60_000);
    const rows = await rowsOf(target.briefId);
    expect(rows.filter((r) => r.admitted_day === day(1)).map((r) => r.id)).toEqual(sent.slice(3).map((s) => s.id));
    const resolve = await env.DB.prepare("SELECT resolve_due_ms FROM vulns WHERE id = ?")
      .bind(first.id)
      .first<{ resolve_due_ms: number }>();
    expect(resolve?.resolve_due_ms).toBeGreaterThan(t);
  });

  it("queues a new report behind the queue even when the day has room, and releases the older first", async () => {
    const target = await cappedBrief(1);
    const [, older] = await send(target, 2);
    // The next day has room, but a report waits: the new one queues behind it.
    const [newer] = await send(target, 1, T0 + DAY);
    let rows = await rowsOf(target.briefId);
    expect(rows.map((r) => [r.id, r.inbox_state])).toEqual([
      [rows[0]!.id, "dispatching"],
      [older!.id, "queued"],
      [newer!.id, "queued"],
    ]);
    await cron(T0 + DAY + 60_000);
    rows = await rowsOf(target.briefId);
    expect(queued(rows).map((r) => r.id)).toEqual([newer!.id]);
    expect(rows.find((r) => r.id === older!.id)!.admitted_day).toBe(day(1));
    at(T0 + 2 * DAY);
    await cron(T0 + 2 * DAY);
    expect(queued(await rowsOf(target.briefId))).toEqual([]);
  });
});

const lowerCap = (id: string, cap: number) => ({ data: { type: "brief", id, attributes: { daily_cap: cap } } });

describe("POST /v1/briefs/{id}/release-queued", () => {
  it("releases the queue at once past the cap, oldest first, audited, and answers the brief with what it did", async () => {
    const target = await cappedBrief(1);
    const sent = await send(target, 4);
    const res = await post(`/v1/briefs/${target.briefId}/release-queued`, target.org.key, undefined);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: "brief", id: target.briefId });
    expect(res.body.meta).toEqual({ released: 3, still_queued: 0 });
    const rows = await rowsOf(target.briefId);
    expect(rows.map((r) => r.admitted_day)).toEqual(Array(4).fill(day(0)));
    for (const s of sent) expect(await createdCount(s.id)).toBe(1);
    const audit = () =>
      env.DB.prepare(
        "SELECT action, target_type, organization_id, request_id FROM audit_events WHERE target_id = ? AND action = ? ORDER BY id",
      )
        .bind(target.briefId, "brief.release_queued")
        .all();
    const row = { action: "brief.release_queued", target_type: "brief", organization_id: target.org.id };
    expect((await audit()).results).toEqual([{ ...row, request_id: res.headers.get("X-Request-Id") }]);
    expect(await queueHead(target.briefId)).toBeNull();
    // Nothing left: nothing released, the owner's call still in the log.
    const again = await post(`/v1/briefs/${target.briefId}/release-queued`, target.org.key, undefined);
    expect(again.body.meta).toEqual({ released: 0, still_queued: 0 });
    expect((await audit()).results).toHaveLength(2);
  });

  it("is not found for another organization's brief, which keeps its queue", async () => {
    const target = await cappedBrief(1);
    await send(target, 2);
    const other = await organization();
    const res = await post(`/v1/briefs/${target.briefId}/release-queued`, other.key, undefined);
    expect(res.status).toBe(404);
    expect(queued(await rowsOf(target.briefId))).toHaveLength(1);
  });
});

describe("the reporter of a queued report", () => {
  it("is told when it should be released: by the receipt e-mail, sent without waiting for the release, the reporter's API and the report page", async () => {
    const target = await cappedBrief(1);
    await send(target, 1);
    at(T0 + 1000);
    const report = await submitReport(target.org, { contact_email: "finder@example.net" }, target);
    const receiptRow = await env.DB.prepare("SELECT status FROM notifications WHERE vuln_id = ? AND kind = 'receipt'")
      .bind(report.id)
      .first();
    expect(receiptRow).toEqual({ status: "pending" });
    const box = mailbox();
    await runMail(box, []);
    const [receipt] = box.to("finder@example.net");
    expect(receipt?.text).toContain("today's intake is full");
    expect(receipt?.text).toContain(`released to Org ${target.org.slug}'s inbox on ${day(1)} (UTC), and its deadlines start then`);
    expect(receipt?.text).not.toContain("promises to acknowledge");

    const api = await asReporter("GET", "/v1/p/report", report.token, { headers: { "CF-Connecting-IP": nextIp() } });
    expect(api.body.data.attributes).toMatchObject({ inbox_state: "queued", release_expected_on: day(1) });
    const page = await browse("GET", `/r/${report.token}`);
    expect(page.text).toContain(`Your report is queued until ${day(1)}.`);
    expect(page.text).toContain(`Starts when your report is released (expected ${day(1)})`);

    at(T0 + DAY);
    await cron(T0 + DAY);
    const released = await asReporter("GET", "/v1/p/report", report.token, { headers: { "CF-Connecting-IP": nextIp() } });
    expect(released.body.data.attributes.inbox_state).not.toBe("queued");
    expect(released.body.data.attributes.release_expected_on).toBeNull();
    expect(released.body.data.attributes.expectations.acknowledge.due_at).toBe(new Date(T0 + DAY + 10 * H).toISOString());
    expect((await browse("GET", `/r/${report.token}`)).text).not.toContain("is queued");
  });
});

describe("the gate's marks", () => {
  it("are purged by the cron once two hours old", async () => {
    const target = await cappedBrief(100);
    const [first] = await send(target, 1);
    const [second] = await send(target, 1, T0 + H);
    const marks = async () =>
      (
        await env.DB.prepare("SELECT id FROM gate_marks WHERE id IN (?, ?) ORDER BY id").bind(first!.id, second!.id).all<{ id: string }>()
      ).results.map((m) => m.id);
    expect(await marks()).toEqual([first!.id, second!.id]);
    await cron(T0 + 2 * H - 1000);
    expect(await marks()).toEqual([first!.id, second!.id]);
    await cron(T0 + 2 * H + 1000);
    expect(await marks()).toEqual([second!.id]);
    await cron(T0 + 3 * H + 1000);
    expect(await marks()).toEqual([]);
  });
});
