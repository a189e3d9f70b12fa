import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { testClock } from "../helpers/clock";
import { browse, get, patch, post } from "../helpers/api";
import { brief, directory, listing, operatorKey, organization, policy, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

// GET /v1/metrics against figures worked out by hand for a fresh organization, at moments the test sets.

const H = 3_600_000;
const T0 = Date.parse("2026-03-02T00:00:00.000Z");
const { at } = testClock(T0);

const move = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes } });

/**
 * Five reports at T0 under a published policy promising acknowledgement in 10 h and triage in 100 h,
 * through two of its briefs (E through the second): A triaged at 2 h; B closed as informative at 5 h;
 * C triaged at 20 h; D rated critical, triaged at 30 h and resolved at 40 h; E untouched. Read at 50 h.
 */
async function morning() {
  const org = await organization();
  const p = await policy(org, { published_at: PUBLISHED, response_targets: { acknowledge_hours: 10, triage_hours: 100 } });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const b2 = await brief(org, { published_at: PUBLISHED }, p.id);
  const [A, B, C, D, E] = [
    await vuln(org, b.id),
    await vuln(org, b.id),
    await vuln(org, b.id),
    await vuln(org, b.id, { severity: "critical" }),
    await vuln(org, b2.id),
  ];
  at(T0 + 2 * H);
  await move(org, A.id, { triage_state: "triaged" });
  at(T0 + 5 * H);
  await move(org, B.id, { triage_state: "informative" });
  at(T0 + 20 * H);
  await move(org, C.id, { triage_state: "triaged" });
  at(T0 + 30 * H);
  await move(org, D.id, { triage_state: "triaged" });
  at(T0 + 40 * H);
  await move(org, D.id, { triage_state: "resolved" });
  at(T0 + 50 * H);
  return { org, policyId: p.id as string, shortcode: b.attributes.shortcode as string, ids: [A, B, C, D, E].map((v) => v.id) };
}

const BY_HAND = {
  period_start: new Date(T0 + 50 * H - 90 * 24 * H).toISOString(),
  period_end: new Date(T0 + 50 * H).toISOString(),
  reports_received: 5,
  valid_reports: 3, // A, C triaged; D resolved
  valid_open: 2,
  valid_open_over_90_days: 0,
  median_seconds_to_first_response: 12.5 * 3600, // 2, 5, 20, 30 h
  median_seconds_to_triage: 20 * 3600, // 2, 20, 30 h
  median_seconds_to_resolve: 40 * 3600, // D
  // acknowledge: A, B on time; C, D late; E breached. triage: all four met in time, E pending. resolve: D.
  deadlines_met_on_time: {
    acknowledge: 0.4,
    triage: 1,
    resolve: 1,
    disclosure: null,
    // None of the five is actively exploited.
    cra_early_warning: null,
    cra_notification: null,
    cra_final_report: null,
  },
};

describe("GET /v1/metrics", () => {
  it("gives an organization BOD 20-01's seven figures and the share of deadlines met on time, as computed by hand", async () => {
    const { org } = await morning();
    const res = await get("/v1/metrics", org.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(res.body.data).toEqual({ type: "metrics", id: org.id, attributes: BY_HAND, relationships: {}, links: { self: "/v1/metrics" } });
  });

  it("answers the same figures as CSV, with a header row, to Accept: text/csv (read by a CSV parser)", async () => {
    const { org } = await morning();
    const res = await browse("GET", "/v1/metrics", { headers: { Authorization: `Bearer ${org.key}`, Accept: "text/csv" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8; header=present");
    expect(res.headers.get("Vary")).toContain("Accept");
    // A file to keep, named for whose figures and which period (no colon, which some systems refuse in a name).
    expect(res.headers.get("Content-Disposition")).toBe(
      `attachment; filename="metrics-${org.id}-${BY_HAND.period_start.slice(0, 10)}-${BY_HAND.period_end.slice(0, 10)}.csv"`,
    );
    const parsed = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([
      {
        scope: org.id,
        period_start: BY_HAND.period_start,
        period_end: BY_HAND.period_end,
        reports_received: "5",
        valid_reports: "3",
        valid_open: "2",
        valid_open_over_90_days: "0",
        median_seconds_to_first_response: "45000",
        median_seconds_to_triage: "72000",
        median_seconds_to_resolve: "144000",
        acknowledge_met_on_time: "0.4",
        triage_met_on_time: "1",
        resolve_met_on_time: "1",
        disclosure_met_on_time: "",
        cra_early_warning_met_on_time: "",
        cra_notification_met_on_time: "",
        cra_final_report_met_on_time: "",
      },
    ]);
    // The parser can fail: a row with a cell too many is an error it reports.
    expect(Papa.parse(`${res.text.split("\r\n")[0]}\r\na,b\r\n`, { header: true }).errors.length).toBeGreaterThan(0);
  });

  it("covers the period asked for, lets an operator read any organization's or the platform's, and no organization another's", async () => {
    const { org } = await morning();
    const later = await get(`/v1/metrics?q[created_at_gteq]=${encodeURIComponent(new Date(T0 + H).toISOString())}`, org.key);
    expect(later.body.data.attributes).toMatchObject({
      reports_received: 0,
      median_seconds_to_triage: null,
      deadlines_met_on_time: { acknowledge: null },
    });
    const op = await operatorKey();
    const theirs = await get(`/v1/metrics?q[organization_id_eq]=${org.id}`, op);
    expect(theirs.body.data).toMatchObject({ id: org.id, attributes: BY_HAND });
    const platform = await get("/v1/metrics", op);
    expect(platform.body.data.id).toBe("platform");
    expect(platform.body.data.attributes.reports_received).toBeGreaterThanOrEqual(5);
    const other = await organization();
    const refused = await get(`/v1/metrics?q[organization_id_eq]=${org.id}`, other.key);
    expect([refused.status, refused.body.errors[0].code]).toEqual([403, "forbidden"]);
    expect((await get("/v1/metrics?q[created_at_gteq]=yesterday", org.key)).status).toBe(400);
  });

  it("refuses a period that ends before it starts, at the start's parameter", async () => {
    const { org } = await morning();
    const start = new Date(T0 + H).toISOString();
    const reversed = await get(
      `/v1/metrics?q[created_at_gteq]=${encodeURIComponent(start)}&q[created_at_lteq]=${encodeURIComponent(new Date(T0).toISOString())}`,
      org.key,
    );
    expect([reversed.status, reversed.body.errors.map((e: any) => [e.code, e.source])]).toEqual([
      400,
      [["bad_request", { parameter: "q[created_at_gteq]" }]],
    ]);
    // A start after now, the default end, is the same mistake.
    const future = await get(`/v1/metrics?q[created_at_gteq]=${encodeURIComponent(new Date(T0 + 60 * H).toISOString())}`, org.key);
    expect([future.status, future.body.errors[0].source]).toEqual([400, { parameter: "q[created_at_gteq]" }]);
    // A period of one instant is a period.
    const instant = await get(
      `/v1/metrics?q[created_at_gteq]=${encodeURIComponent(start)}&q[created_at_lteq]=${encodeURIComponent(start)}`,
      org.key,
    );
    expect(instant.status).toBe(200);
  });
});

// A policy's responsiveness, as researchers see it: the same morning, from the public side.
const RESPONSIVENESS = {
  period_days: 90,
  acknowledged_on_time: 0.4, // A and B acknowledged in time; C and D late; E past due
  median_seconds_to_acknowledge: 12.5 * 3600, // 2, 5, 20, 30 h
};

describe("a policy's responsiveness", () => {
  it("is meta.responsiveness of the policy in the public brief read, over its briefs' reports, and stays cached", async () => {
    const { shortcode, policyId } = await morning();
    const first = await get(`/v1/p/briefs/${shortcode}`);
    expect(first.status).toBe(200);
    const policyOf = (res: typeof first) => res.body.included.find((r: { type: string }) => r.type === "policy");
    expect(policyOf(first)).toMatchObject({ id: policyId, meta: { responsiveness: RESPONSIVENESS } });
    const again = await get(`/v1/p/briefs/${shortcode}`);
    expect([again.headers.get("X-Cache"), policyOf(again).meta]).toEqual(["HIT", { responsiveness: RESPONSIVENESS }]);
  });

  it("is null before the policy has 5 reports in the last 90 days (an older one does not count)", async () => {
    const org = await organization();
    const p = await policy(org, { published_at: PUBLISHED });
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    at(T0 - 91 * 24 * H);
    await vuln(org, b.id);
    at(T0);
    for (let i = 0; i < 4; i++) await vuln(org, b.id);
    const res = await get(`/v1/p/briefs/${b.attributes.shortcode}`);
    expect(res.body.included.find((r: { type: string }) => r.type === "policy").meta).toEqual({ responsiveness: null });
    // The fifth report of the period makes it shown (a fresh brief of the same policy: the first read is cached).
    await vuln(org, b.id);
    const b2 = await brief(org, { published_at: PUBLISHED }, p.id);
    const shown = await get(`/v1/p/briefs/${b2.attributes.shortcode}`);
    expect(shown.body.included.find((r: { type: string }) => r.type === "policy").meta.responsiveness).toEqual({
      period_days: 90,
      acknowledged_on_time: null, // none due yet
      median_seconds_to_acknowledge: null,
    });
  });

  it("is on each policy the public directory shows, and in words on the brief and directory pages", async () => {
    const { org, shortcode, policyId } = await morning();
    const op = await operatorKey();
    const d = await directory(op);
    const l = await listing(op, d.id, org.id);
    const item = await post(`/v1/directory_listings/${l.id}/items`, org.key, {
      data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: policyId } },
    });
    expect(item.status).toBe(201);
    const read = await get(`/v1/p/directories/${d.attributes.slug}`);
    expect(read.status).toBe(200);
    expect(read.body.included.find((r: { type: string; id: string }) => r.type === "policy" && r.id === policyId).meta).toEqual({
      responsiveness: RESPONSIVENESS,
    });
    const words =
      "Promises to acknowledge a report within 10 hours and to triage it within 100 hours. In the last 90 days: 40% of reports acknowledged on time; median time to acknowledge 13 hours.";
    for (const path of [`/b/${shortcode}`, `/d/${d.attributes.slug}`]) {
      const page = await browse("GET", path);
      expect([path, page.status]).toEqual([path, 200]);
      expect(page.text.replace(/\s+/g, " ")).toContain(words);
    }
  });
});
