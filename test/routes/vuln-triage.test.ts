import { beforeAll, describe, expect, it } from "vitest";
import { get, patch, type ApiResponse } from "../helpers/api";
import { eventsOf } from "../helpers/events";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

const CRITICAL = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"; // 9.8
const MEDIUM = "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N"; // 6.1
const HIGH_V4 = "CVSS:4.0/AV:L/AC:L/AT:N/PR:L/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"; // 8.5

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
}, 30_000);

const edit = (id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes } });
const triage = (a: Record<string, unknown>) => ({
  severity: a.severity,
  cvss_vector: a.cvss_vector,
  cvss_score: a.cvss_score,
  cvss_version: a.cvss_version,
  cwe_ids: a.cwe_ids,
});

describe("triage attributes", () => {
  it("a new vuln has none", async () => {
    const v = await vuln(org, briefId);
    expect(triage(v.attributes)).toEqual({ severity: null, cvss_vector: null, cvss_score: null, cvss_version: null, cwe_ids: [] });
  });

  it("a vector sets score, version and, unless given, the severity", async () => {
    expect(triage((await vuln(org, briefId, { cvss_vector: CRITICAL, cwe_ids: ["cwe-79", "CWE-79", "CWE-352"] })).attributes)).toEqual({
      severity: "critical",
      cvss_vector: CRITICAL,
      cvss_score: 9.8,
      cvss_version: "3.1",
      cwe_ids: ["CWE-79", "CWE-352"],
    });
    expect(triage((await vuln(org, briefId, { cvss_vector: HIGH_V4 })).attributes)).toMatchObject({
      severity: "high",
      cvss_score: 8.5,
      cvss_version: "4.0",
    });
    expect((await vuln(org, briefId, { cvss_vector: CRITICAL, severity: "low" })).attributes.severity).toBe("low");
  });

  it.each([
    ["cvss_vector", "CVSS:3.1/AV:N/AC:L", /lacks the base metrics/],
    ["cvss_vector", "AV:N/AC:L/Au:N/C:P/I:P/A:P", /CVSS 3.0, 3.1 or 4.0/],
    ["cvss_vector", "CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", /not valid CVSS 3.1/],
    ["severity", "severe", /./],
    ["cwe_ids", ["XSS"], /CWE id/],
    ["cwe_ids", Array.from({ length: 11 }, (_, i) => `CWE-${i + 1}`), /at most 10/],
    ["cvss_score", 5, /read-only|not a known member/],
    ["cvss_version", "3.1", /read-only|not a known member/],
  ])("422 at /data/attributes/%s for %j", async (member, value, detail) => {
    const v = await vuln(org, briefId);
    const res = await edit(v.id, { [member]: value });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toMatch(new RegExp(`^/data/attributes/${member}`));
    expect(res.body.errors[0].detail).toMatch(detail);
    expect(triage((await get(`/v1/vulns/${v.id}`, org.key)).body.data.attributes)).toEqual(triage(v.attributes));
  });
});

describe("PATCH: every member optional", () => {
  it("closes a report with processing_state alone as resolved, changing nothing else", async () => {
    const v = await vuln(org, briefId, { contact_email: "r@example.org", tags: ["xss"], cvss_vector: MEDIUM });
    const res = await patch(`/v1/vulns/${v.id}`, org.key, { data: { type: "vuln", id: v.id, attributes: { processing_state: "closed" } } });
    expect(res.status).toBe(200);
    // Closing is said to the reporter: it is the organization's activity, at the change's time.
    const { processing_state, triage_state, acknowledged_at, closed_at, closed_by, deadlines, updated_at, last_activity_at, ...rest } =
      res.body.data.attributes;
    const changed = [
      "processing_state",
      "triage_state",
      "acknowledged_at",
      "closed_at",
      "closed_by",
      "deadlines",
      "updated_at",
      "last_activity_at",
    ];
    const before = Object.fromEntries(Object.entries(v.attributes).filter(([k]) => !changed.includes(k)));
    expect({ processing_state, triage_state, closed_by }).toEqual({
      processing_state: "closed",
      triage_state: "resolved",
      closed_by: "organization",
    });
    // Moving out of new acknowledges the report; all three times are the change's.
    expect([last_activity_at, acknowledged_at, closed_at]).toEqual([updated_at, updated_at, updated_at]);
    expect(rest).toEqual(before);
    // The close meets the triage and resolve deadlines.
    expect([deadlines.triage.state, deadlines.resolve.met_at]).toEqual(["met", updated_at]);
    expect(res.body.data.relationships.brief.data.id).toBe(briefId);
  });

  it("still takes every member, as the original draft of PATCH drew it", async () => {
    const v = await vuln(org, briefId);
    const res = await patch(`/v1/vulns/${v.id}`, org.key, {
      data: {
        type: "vuln",
        id: v.id,
        attributes: { title: "New title", description: "New", processing_state: "closed" },
        relationships: { brief: { data: { type: "brief", id: briefId } } },
      },
    });
    expect(res.body.data.attributes).toMatchObject({ title: "New title", description: "New", processing_state: "closed" });
  });

  it("a vector alone re-rates; a severity alone keeps the vector; null clears", async () => {
    const v = await vuln(org, briefId, { cvss_vector: MEDIUM });
    expect(triage((await edit(v.id, { cvss_vector: CRITICAL })).body.data.attributes)).toMatchObject({
      severity: "critical",
      cvss_score: 9.8,
    });
    expect(triage((await edit(v.id, { severity: "high" })).body.data.attributes)).toMatchObject({
      severity: "high",
      cvss_score: 9.8,
      cvss_vector: CRITICAL,
    });
    expect(triage((await edit(v.id, { cvss_vector: null })).body.data.attributes)).toEqual({
      severity: "high",
      cvss_vector: null,
      cvss_score: null,
      cvss_version: null,
      cwe_ids: [],
    });
    expect((await edit(v.id, { severity: null, contact_email: null })).body.data.attributes).toMatchObject({
      severity: null,
      contact_email: null,
    });
  });

  it("a triage change fires Vuln::Updated whose body carries only the original members", async () => {
    const v = await vuln(org, briefId);
    await edit(v.id, { cvss_vector: CRITICAL, cwe_ids: ["CWE-89"] });
    const events = await eventsOf(v.id);
    const updated = events.filter((e) => e.type === "Vuln::Updated");
    expect(updated).toHaveLength(1);
    const body = JSON.parse(updated[0]!.payload).vuln;
    expect(Object.keys(body).sort()).toEqual([
      "assets",
      "created_at",
      "description",
      "id",
      "inbox_state",
      "organization_id",
      "processing_state",
      "shortcode",
      "tags",
      "title",
      "updated_at",
    ]);
    await edit(v.id, { severity: "critical" });
    expect((await eventsOf(v.id)).filter((e) => e.type === "Vuln::Updated")).toHaveLength(1);
  });

  it("an empty attributes object changes nothing", async () => {
    const v = await vuln(org, briefId);
    const res = await patch(`/v1/vulns/${v.id}`, org.key, { data: { type: "vuln", id: v.id, attributes: {} } });
    expect([res.status, res.body.data.attributes.updated_at]).toEqual([200, v.attributes.updated_at]);
  });
});

describe("filter and sort", () => {
  let rated: TestOrganization;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    rated = await organization();
    const b = await brief(rated, { published_at: PUBLISHED });
    // Created in this order; scores 6.1, none, 9.8, 8.5, none, 6.1.
    for (const [name, attributes] of [
      ["m1", { cvss_vector: MEDIUM }],
      ["n1", {}],
      ["c", { cvss_vector: CRITICAL }],
      ["h", { cvss_vector: HIGH_V4 }],
      ["n2", { severity: "low" }],
      ["m2", { cvss_vector: MEDIUM }],
    ] as const) {
      ids[name] = (await vuln(rated, b.id, attributes)).id;
    }
  }, 60_000);
  const names = (data: { id: string }[]) => data.map((v) => Object.keys(ids).find((k) => ids[k] === v.id));

  it("q[severity_eq] lists one severity, with its total from the counters", async () => {
    const res = await get("/v1/vulns?q[severity_eq]=medium", rated.key);
    expect(names(res.body.data)).toEqual(["m2", "m1"]);
    expect(res.body.meta.page.total).toBe(2);
    expect((await get("/v1/vulns?q[severity_eq]=low", rated.key)).body.meta.page.total).toBe(1);
  });

  it.each(["", "severe", "HIGH"])("q[severity_eq]=%s is a 400 at the parameter", async (value) => {
    const res = await get(`/v1/vulns?q[severity_eq]=${value}`, rated.key);
    expect([res.status, res.body.errors[0].source]).toEqual([400, { parameter: "q[severity_eq]" }]);
  });

  it("sorts by cvss_score both ways with the unscored last, ties by id", async () => {
    expect(names((await get("/v1/vulns?sort=-cvss_score", rated.key)).body.data)).toEqual(["c", "h", "m2", "m1", "n2", "n1"]);
    expect(names((await get("/v1/vulns?sort=cvss_score", rated.key)).body.data)).toEqual(["m1", "m2", "h", "c", "n1", "n2"]);
  });

  it.each([
    ["-cvss_score", ["c", "h", "m2", "m1", "n2", "n1"]],
    ["cvss_score", ["m1", "m2", "h", "c", "n1", "n2"]],
  ])("sort=%s by page number and by cursor, forwards and back, gives the same order", async (sort, order) => {
    const byNumber: (string | undefined)[] = [];
    for (const n of [1, 2, 3])
      byNumber.push(...names((await get(`/v1/vulns?sort=${sort}&page[size]=2&page[number]=${n}`, rated.key)).body.data));
    expect(byNumber).toEqual(order);
    const byCursor: (string | undefined)[] = [];
    let link: string | null = `/v1/vulns?sort=${sort}&page[size]=2&page[after]=`;
    let last: { links: { prev: string | null } } | undefined;
    while (link) {
      const page: ApiResponse = await get(link, rated.key);
      expect(page.status).toBe(200);
      byCursor.push(...names(page.body.data));
      last = page.body;
      link = page.body.links.next;
    }
    expect(byCursor).toEqual(order);
    const back = await get(last!.links.prev!, rated.key);
    expect(names(back.body.data)).toEqual(order.slice(2, 4));
  });

  it("sorts by severity both ways, none and the unrated last, by number and by cursor; q[severity_eq]=null lists the unrated", async () => {
    const o = await organization();
    const b = await brief(o, { published_at: PUBLISHED });
    const by: Record<string, string> = {};
    for (const [name, severity] of [
      ["L", "low"],
      ["C", "critical"],
      ["U", undefined],
      ["N", "none"],
      ["H", "high"],
      ["M", "medium"],
    ] as const) {
      by[name] = (await vuln(o, b.id, severity ? { severity } : {})).id;
    }
    const named = (data: { id: string }[]) => data.map((v) => Object.keys(by).find((k) => by[k] === v.id));
    for (const [sort, order] of [
      ["-severity", ["C", "H", "M", "L", "N", "U"]],
      ["severity", ["L", "M", "H", "C", "N", "U"]],
    ] as const) {
      expect([sort, named((await get(`/v1/vulns?sort=${sort}`, o.key)).body.data)]).toEqual([sort, order]);
      const byCursor: (string | undefined)[] = [];
      let link: string | null = `/v1/vulns?sort=${sort}&page[size]=4&page[after]=`;
      while (link) {
        const page: ApiResponse = await get(link, o.key);
        byCursor.push(...named(page.body.data));
        link = page.body.links.next;
      }
      expect([sort, byCursor]).toEqual([sort, order]);
    }
    const unrated = await get("/v1/vulns?q[severity_eq]=null", o.key);
    expect([named(unrated.body.data), unrated.body.meta.page.total]).toEqual([["U"], 1]);
  });

  it("a cursor of one sort is refused by another", async () => {
    const page = await get("/v1/vulns?sort=cvss_score&page[size]=2&page[after]=", rated.key);
    const cursor = new URL(page.body.links.next, "https://x").searchParams.get("page[after]");
    const res = await get(`/v1/vulns?sort=-cvss_score&page[after]=${cursor}`, rated.key);
    expect(res.status).toBe(400);
  });
});
