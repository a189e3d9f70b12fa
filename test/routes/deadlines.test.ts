import { describe, expect, it } from "vitest";
import { testClock } from "../helpers/clock";
import { env } from "cloudflare:workers";
import { runScheduled } from "../../src/scheduled";
import { browse, get, patch, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";
import { asReporter, submitReport } from "../helpers/reporter";

// The promises a policy makes and the deadlines each report keeps from them, read through the API at
// moments the test chooses: the clock is Date's, set by the test (vi.setSystemTime), never slept on.

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse("2026-06-01T08:00:00.000Z");
const { at } = testClock(T0);
const iso = (ms: number) => new Date(ms).toISOString();

type Attrs = Record<string, unknown>;
const move = (org: TestOrganization, id: string, attributes: Attrs) =>
  patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes } });
const deadlines = async (org: TestOrganization, id: string) => (await get(`/v1/vulns/${id}`, org.key)).body.data.attributes.deadlines;

/** An organization whose brief's policy promises `targets` (and a 30-day timeline). */
async function promising(targets?: Attrs) {
  const org = await organization();
  const p = await policy(org, { cvd_timeline: 30, ...(targets ? { response_targets: targets } : {}) });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  return { org, policyId: p.id, briefId: b.id, shortcode: b.attributes.shortcode as string };
}

describe("a policy's response targets", () => {
  it("are the defaults until set; a member left out keeps its default; null restores them; bounds are 422s", async () => {
    const org = await organization();
    const p = await policy(org);
    expect(p.attributes.response_targets).toEqual({
      acknowledge_hours: 72,
      triage_hours: 240,
      resolve_days: { critical: 15, high: 30, medium: 60, low: 90, none: 90 },
    });
    const set = await patch(`/v1/policies/${p.id}`, org.key, {
      data: { type: "policy", id: p.id, attributes: { response_targets: { acknowledge_hours: 24, resolve_days: { critical: 7 } } } },
    });
    expect(set.body.data.attributes.response_targets).toEqual({
      acknowledge_hours: 24,
      triage_hours: 240,
      resolve_days: { critical: 7, high: 30, medium: 60, low: 90, none: 90 },
    });
    for (const [targets, pointer] of [
      [{ acknowledge_hours: 0 }, "/data/attributes/response_targets/acknowledge_hours"],
      [{ triage_hours: 8_761 }, "/data/attributes/response_targets/triage_hours"],
      [{ resolve_days: { high: 366 } }, "/data/attributes/response_targets/resolve_days/high"],
      [{ resolve_days: { urgent: 1 } }, "/data/attributes/response_targets/resolve_days/urgent"],
      [{ acknowledge_hours: 1.5 }, "/data/attributes/response_targets/acknowledge_hours"],
    ] as const) {
      const res = await patch(`/v1/policies/${p.id}`, org.key, {
        data: { type: "policy", id: p.id, attributes: { response_targets: targets } },
      });
      expect([res.status, res.body.errors[0].source.pointer]).toEqual([422, pointer]);
    }
    const reset = await patch(`/v1/policies/${p.id}`, org.key, {
      data: { type: "policy", id: p.id, attributes: { response_targets: null } },
    });
    expect(reset.body.data.attributes.response_targets.acknowledge_hours).toBe(72);
  });
});

describe("a report's deadlines", () => {
  it("come from the targets in force when it came in, and keep them when the policy changes", async () => {
    const f = await promising({ acknowledge_hours: 24, triage_hours: 48, resolve_days: { high: 10 } });
    const v = await vuln(f.org, f.briefId, { severity: "high" });
    expect(v.attributes.deadlines).toEqual({
      acknowledge: { due_at: iso(T0 + 24 * H), met_at: null, state: "pending" },
      triage: { due_at: iso(T0 + 48 * H), met_at: null, state: "pending" },
      resolve: { due_at: iso(T0 + 10 * D), met_at: null, state: "pending" },
      disclosure: { due_at: iso(T0 + 30 * D), met_at: null, state: "pending" },
    });
    await patch(`/v1/policies/${f.policyId}`, f.org.key, {
      data: { type: "policy", id: f.policyId, attributes: { response_targets: { acknowledge_hours: 1 }, cvd_timeline: null } },
    });
    expect((await deadlines(f.org, v.id)).acknowledge.due_at).toBe(iso(T0 + 24 * H));
    expect((await deadlines(f.org, v.id)).disclosure.due_at).toBe(iso(T0 + 30 * D));
    const later = await vuln(f.org, f.briefId);
    expect(later.attributes.deadlines.acknowledge.due_at).toBe(iso(T0 + H));
    expect(later.attributes.deadlines.disclosure).toEqual({ due_at: null, met_at: null, state: "none" });
  });

  it("uses the defaults through a brief without a policy; resolve waits for a severity and moves with it", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const v = await vuln(org, b.id);
    expect(v.attributes.deadlines).toMatchObject({
      acknowledge: { due_at: iso(T0 + 72 * H) },
      triage: { due_at: iso(T0 + 240 * H) },
      resolve: { due_at: null, state: "none" },
      disclosure: { due_at: null, state: "none" },
    });
    at(T0 + D);
    expect((await move(org, v.id, { severity: "critical" })).body.data.attributes.deadlines.resolve.due_at).toBe(iso(T0 + 15 * D));
    expect((await move(org, v.id, { severity: "low" })).body.data.attributes.deadlines.resolve.due_at).toBe(iso(T0 + 90 * D));
    expect((await move(org, v.id, { severity: null })).body.data.attributes.deadlines.resolve.state).toBe("none");
  });

  it("are breached from their due time until met, and met late keeps met with met_at after due_at", async () => {
    const f = await promising({ acknowledge_hours: 2, triage_hours: 4 });
    const v = await vuln(f.org, f.briefId);
    at(T0 + 2 * H - 1);
    expect((await deadlines(f.org, v.id)).acknowledge.state).toBe("pending");
    at(T0 + 2 * H);
    expect((await deadlines(f.org, v.id)).acknowledge.state).toBe("breached");
    at(T0 + 3 * H);
    const triaged = (await move(f.org, v.id, { triage_state: "triaged" })).body.data.attributes.deadlines;
    expect(triaged.acknowledge).toEqual({ due_at: iso(T0 + 2 * H), met_at: iso(T0 + 3 * H), state: "met" });
    expect(triaged.triage).toEqual({ due_at: iso(T0 + 4 * H), met_at: iso(T0 + 3 * H), state: "met" });
  });

  it("pause in needs_more_info and move later by the time spent there, the met ones staying where they were", async () => {
    const f = await promising({ acknowledge_hours: 10, triage_hours: 100, resolve_days: { medium: 10 } });
    const r = await submitReport(f.org, {}, { briefId: f.briefId, shortcode: f.shortcode });
    await move(f.org, r.id, { severity: "medium" });
    at(T0 + H);
    await move(f.org, r.id, { triage_state: "needs_more_info" });
    at(T0 + 50 * H);
    const paused = await deadlines(f.org, r.id);
    expect(paused.acknowledge.state).toBe("met");
    expect([paused.triage.state, paused.resolve.state, paused.disclosure.state]).toEqual(["paused", "paused", "paused"]);
    // Paused, a deadline past its old due time is not breached.
    expect((await get(`/v1/vulns?q[overdue_eq]=true&q[triage_state_eq]=needs_more_info`, f.org.key)).body.data).toEqual([]);
    const answer = await asReporter("POST", "/v1/p/report/comments", r.token, {
      body: { data: { type: "comment", attributes: { body: "Version 4.2" } } },
    });
    expect(answer.status).toBe(201);
    const back = await deadlines(f.org, r.id);
    expect(back.acknowledge).toEqual({ due_at: iso(T0 + 10 * H), met_at: iso(T0 + H), state: "met" });
    expect(back.triage).toEqual({ due_at: iso(T0 + 100 * H + 49 * H), met_at: null, state: "pending" });
    expect(back.resolve.due_at).toBe(iso(T0 + 10 * D + 49 * H));
    // A second pause, ended by the organization this time, adds to the first.
    at(T0 + 60 * H);
    await move(f.org, r.id, { triage_state: "needs_more_info" });
    at(T0 + 70 * H);
    const resumed = (await move(f.org, r.id, { triage_state: "triaged" })).body.data.attributes.deadlines;
    expect(resumed.triage).toEqual({ due_at: iso(T0 + 100 * H + 49 * H + 10 * H), met_at: iso(T0 + 70 * H), state: "met" });
    expect(resumed.resolve.due_at).toBe(iso(T0 + 10 * D + 59 * H));
    // A new severity now counts both pauses too.
    expect((await move(f.org, r.id, { severity: "medium" })).body.data.attributes.deadlines.resolve.due_at).toBe(iso(T0 + 10 * D + 59 * H));
    expect((await move(f.org, r.id, { severity: "critical" })).body.data.attributes.deadlines.resolve.due_at).toBe(
      iso(T0 + 15 * D + 59 * H),
    );
  });
});

describe("what the reporter may expect", () => {
  it("reads the acknowledge and triage promises on the page and in the API, and when they were kept", async () => {
    const f = await promising({ acknowledge_hours: 10, triage_hours: 100 });
    const r = await submitReport(f.org, {}, { briefId: f.briefId, shortcode: f.shortcode });
    const page = async () => (await browse("GET", `/r/${r.token}`)).text;
    expect(await page()).toContain("Expected by 2026-06-01 18:00 UTC");
    at(T0 + 11 * H);
    expect(await page()).toContain("Not yet: it was promised by 2026-06-01 18:00 UTC");
    at(T0 + 12 * H);
    await move(f.org, r.id, { triage_state: "triaged" });
    const text = await page();
    expect(text).toContain("Acknowledged 2026-06-01 20:00 UTC (promised by 2026-06-01 18:00 UTC)");
    expect(text).toContain("Triaged 2026-06-01 20:00 UTC (promised by 2026-06-05 12:00 UTC)");
    const api = (await asReporter("GET", "/v1/p/report", r.token)).body.data.attributes.expectations;
    expect(api).toEqual({
      acknowledge: { due_at: iso(T0 + 10 * H), met_at: iso(T0 + 12 * H), state: "met" },
      triage: { due_at: iso(T0 + 100 * H), met_at: iso(T0 + 12 * H), state: "met" },
    });
  });
});

describe("overdue reports and the next due time", () => {
  it("q[overdue_eq] lists exactly the reports with a running deadline past due; sort=next_due_at puts the soonest first, none last", async () => {
    const f = await promising({ acknowledge_hours: 1, triage_hours: 10 });
    const quick = await vuln(f.org, f.briefId);
    at(T0 + 30 * 60_000);
    const slow = await vuln(f.org, f.briefId);
    const done = await vuln(f.org, f.briefId);
    await move(f.org, done.id, { triage_state: "resolved" });
    at(T0 + 70 * 60_000);
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((v) => v.id);
    // Overdue as the cron marks it, in its run after the due time (the report itself says breached at once).
    expect((await deadlines(f.org, quick.id)).acknowledge.state).toBe("breached");
    expect((await get("/v1/vulns?q[overdue_eq]=true", f.org.key)).body.data).toEqual([]);
    await runScheduled(env, new Date(T0 + 70 * 60_000));
    const overdue = await get("/v1/vulns?q[overdue_eq]=true", f.org.key);
    expect([ids(overdue), overdue.body.meta.page.total]).toEqual([[quick.id], 1]);
    expect(ids(await get("/v1/vulns?q[overdue_eq]=false&sort=created_at", f.org.key))).toEqual([slow.id, done.id]);
    // Soonest first: quick (T0+1h), slow (T0+1.5h), then done (the disclosure deadline, 30 days).
    expect(ids(await get("/v1/vulns?sort=next_due_at", f.org.key))).toEqual([quick.id, slow.id, done.id]);
    expect(ids(await get("/v1/vulns?sort=-next_due_at", f.org.key))).toEqual([done.id, slow.id, quick.id]);
    // By cursor as well, one at a time.
    const first = await get("/v1/vulns?sort=next_due_at&page[size]=1&page[after]=", f.org.key);
    const second = await get(first.body.links.next, f.org.key);
    expect([ids(first), ids(second)]).toEqual([[quick.id], [slow.id]]);
    expect((await get("/v1/vulns?q[overdue_eq]=maybe", f.org.key)).status).toBe(400);
    // A change that meets the deadline clears it at once.
    await move(f.org, quick.id, { triage_state: "triaged" });
    const after = await get("/v1/vulns?q[overdue_eq]=true", f.org.key);
    expect([ids(after), after.body.meta.page.total]).toEqual([[], 0]);
  });
});

// The reporter's answer to a request for more information moves the report back as the organization's
// own move out of needs_more_info would (nextVuln's rules), though it is decided in SQL, from the row as
// its batch finds it.
describe("the reporter's answer to a request for more information", () => {
  const answer = (token: string) =>
    asReporter("POST", "/v1/p/report/comments", token, { body: { data: { type: "comment", attributes: { body: "Here it is." } } } });

  it("leaves a disclosure deadline already met where it was", async () => {
    const f = await promising();
    const r = await submitReport(f.org, {}, { briefId: f.briefId, shortcode: f.shortcode });
    await move(f.org, r.id, {
      triage_state: "resolved",
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
      cwe_ids: ["CWE-601"],
    });
    at(T0 + H);
    const draft = await post("/v1/advisories", f.org.key, {
      data: {
        type: "advisory",
        attributes: {
          title: "Open redirect",
          summary: "The login page redirects anywhere.",
          affected: [{ vendor: "Acme", product: "Widget", versions: [{ version: "1.0.0", status: "affected" }] }],
        },
        relationships: { vulns: { data: [{ type: "vuln", id: r.id }] } },
      },
    });
    expect(draft.status).toBe(201);
    const id = draft.body.data.id as string;
    expect(
      (await patch(`/v1/advisories/${id}`, f.org.key, { data: { type: "advisory", id, attributes: { state: "published" } } })).status,
    ).toBe(200);
    const disclosed = (await deadlines(f.org, r.id)).disclosure;
    expect(disclosed).toEqual({ due_at: iso(T0 + 30 * D), met_at: iso(T0 + H), state: "met" });
    at(T0 + 2 * H);
    await move(f.org, r.id, { triage_state: "needs_more_info" });
    at(T0 + 50 * H);
    expect((await answer(r.token)).status).toBe(201);
    const back = await get(`/v1/vulns/${r.id}`, f.org.key);
    expect(back.body.data.attributes.triage_state).toBe("resolved");
    expect(back.body.data.attributes.deadlines.disclosure).toEqual(disclosed);
  });

  it("back to resolved, starts the final report's clock of an actively exploited report, as the organization's move does", async () => {
    const f = await promising();
    const [byReporter, byOrganization] = [
      await submitReport(f.org, {}, { briefId: f.briefId, shortcode: f.shortcode }),
      await submitReport(f.org, {}, { briefId: f.briefId, shortcode: f.shortcode }),
    ];
    for (const r of [byReporter, byOrganization]) {
      await move(f.org, r.id, { actively_exploited: true });
      await move(f.org, r.id, { triage_state: "resolved" });
      at(T0 + H);
      const waiting = await move(f.org, r.id, { triage_state: "needs_more_info" });
      expect(waiting.body.data.attributes.deadlines.cra_final_report.due_at).toBeNull();
    }
    at(T0 + 5 * H);
    expect((await answer(byReporter.token)).status).toBe(201);
    await move(f.org, byOrganization.id, { triage_state: "resolved" });
    const finalReport = async (id: string) => (await get(`/v1/vulns/${id}`, f.org.key)).body.data.attributes.deadlines.cra_final_report;
    expect(await finalReport(byReporter.id)).toEqual({ due_at: iso(T0 + 5 * H + 14 * D), met_at: null, state: "pending" });
    expect(await finalReport(byReporter.id)).toEqual(await finalReport(byOrganization.id));
  });
});
