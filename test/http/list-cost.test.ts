import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/db/pagination";
import { del, get, patch, post } from "../helpers/api";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";
import { asReporter, submitReport } from "../helpers/reporter";
import { databaseOf, tenantBindings } from "../helpers/shards";

// What a list costs D1 (rows read, as D1 bills them) must not grow with the organization.
const SMALL = 100;
const LARGE = 20_000;

/** `n` vulns written straight into the organization's database in one statement: oldest first, one second apart. */
async function seedVulns(org: TestOrganization, n: number, prefix: string): Promise<void> {
  await (await databaseOf(org.id))
    .prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1 - 1)
     INSERT INTO vulns (id, organization_id, brief_id, shortcode, title, description, contact_email, tags, inbox_state, processing_state, read_at, revision, submission, severity, cvss_score, follow_up_token_hash, created_at, updated_at)
     SELECT printf('%s-0000-7000-8000-%012d', ?2, i), ?3, NULL, printf('%s-%d', ?2, i), 'Seeded', 'Seeded report', NULL, '[]',
            CASE i % 3 WHEN 0 THEN 'dispatching' WHEN 1 THEN 'received' ELSE 'stored' END,
            CASE i % 2 WHEN 0 THEN 'open' ELSE 'closed' END,
            CASE i % 4 WHEN 1 THEN strftime('%Y-%m-%dT%H:%M:%S.000Z', 1600000000 + i, 'unixepoch') END, 0, '{}',
            CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 'low' WHEN 2 THEN 'high' ELSE 'critical' END,
            CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 3.1 WHEN 2 THEN 7.5 ELSE 9.8 END,
            CASE i % 5 WHEN 0 THEN NULL ELSE printf('%s-token-%d', ?2, i) END,
            strftime('%Y-%m-%dT%H:%M:%S.000Z', 1600000000 + i, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%S.000Z', 1600000000 + i, 'unixepoch')
     FROM seq`,
    )
    .bind(n, prefix, org.id)
    .run();
}

let small: TestOrganization;
let large: TestOrganization;
beforeAll(async () => {
  small = await organization();
  large = await organization();
  await seedVulns(small, SMALL, "0190aaaa");
  await seedVulns(large, LARGE, "0190bbbb");
}, 60_000);

describe("list cost at any size", () => {
  it.each([
    "",
    "?q[processing_state_eq]=open",
    "?q[inbox_state_eq]=stored",
    "?q[severity_eq]=high",
    "?sort=updated_at",
    "?sort=-cvss_score",
    "?sort=cvss_score&page[after]=",
    "?page[after]=",
    "?q[read_eq]=false",
    "?q[read_eq]=true&page[after]=",
    "?sort=-last_activity_at",
    "?q[last_activity_by_eq]=reporter&sort=-last_activity_at",
    // A page the small organization fills too (it has 20 of them), so the two compare.
    "?q[last_activity_by_eq]=organization&page[size]=10",
  ])("GET /v1/vulns%s reads fewer than 200 rows, the same at 100 vulns and at 20,000, with an exact total", async (query) => {
    const a = await get(`/v1/vulns${query}`, small.key);
    const b = await get(`/v1/vulns${query}`, large.key);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.rowsRead).toBeLessThan(200);
    expect(b.rowsRead).toBeLessThanOrEqual(a.rowsRead + 5);
    const shares: [string, number][] = [
      ["read_eq]=false", 3 / 4],
      ["read_eq]=true", 1 / 4],
      ["by_eq]=reporter", 4 / 5],
      ["by_eq]=organization", 1 / 5],
      ["processing", 1 / 2],
      ["inbox", 1 / 3],
      ["severity", 1 / 4],
    ];
    const expected = Math.floor(LARGE * (shares.find(([s]) => query.includes(s))?.[1] ?? 1));
    expect(b.body.meta.page.total).toBe(expected);
  });

  it("a search reads in proportion to its matches, not to the organization", async () => {
    for (const [org, prefix] of [
      [small, "0190aaaa"],
      [large, "0190bbbb"],
    ] as const) {
      await env.DB.prepare("UPDATE vulns SET title = 'Quokka in the profile' WHERE id = ?1")
        .bind(`${prefix}-0000-7000-8000-${String(7).padStart(12, "0")}`)
        .run();
      expect(org.id).toBeTruthy();
    }
    const a = await get("/v1/vulns?q[search]=quokka&q[processing_state_eq]=closed", small.key);
    const b = await get("/v1/vulns?q[search]=quokka&q[processing_state_eq]=closed", large.key);
    expect([a.body.meta.page.total, b.body.meta.page.total]).toEqual([1, 1]);
    expect(b.rowsRead).toBeLessThan(200);
    expect(b.rowsRead).toBeLessThanOrEqual(a.rowsRead + 5);
  });

  it("costs the same for the last page by cursor as for the first", async () => {
    const first = await get("/v1/vulns?page[after]=", large.key);
    // The cursor of the 26th oldest vuln: the page after it, newest first, is the last one.
    const at = {
      sort: "-created_at",
      value: new Date((1600000000 + 25) * 1000).toISOString(),
      id: `0190bbbb-0000-7000-8000-${String(25).padStart(12, "0")}`,
    };
    const last = await get(`/v1/vulns?page[after]=${encodeCursor(at)}`, large.key);
    expect(last.status).toBe(200);
    expect(last.body.data).toHaveLength(25);
    expect(last.body.links.next).toBeNull();
    expect(last.rowsRead).toBeLessThan(200);
    expect(last.rowsRead).toBeLessThanOrEqual(first.rowsRead + 30);
  });

  it("lets an operator list every organization's vulns at the same cost", async () => {
    const res = await get("/v1/vulns", large.operatorKey);
    expect(res.status).toBe(200);
    // One page from each tenant database (sharded, the pages are merged): about 110 rows each, at any size.
    expect(res.rowsRead).toBeLessThan(120 * Object.keys(tenantBindings()).length);
    const { total } = (await env.DB.prepare("SELECT count(*) AS total FROM vulns").first<{ total: number }>())!;
    expect(res.body.meta.page.total).toBe(total);
  });
});

describe("the counts behind the totals", () => {
  async function countsMatch(orgId: string) {
    const db = await databaseOf(orgId);
    const kept = await db
      .prepare("SELECT bucket, count FROM vuln_counts WHERE organization_id = ?1 AND count <> 0 ORDER BY bucket")
      .bind(orgId)
      .all();
    // Counted from the rows, one bucket kind at a time (D1 refuses long compound SELECTs).
    const kinds = [
      "'all'",
      "'processing_state:' || processing_state",
      "'triage_state:' || triage_state",
      "'overdue:' || overdue",
      "'inbox_state:' || inbox_state",
      "'severity:' || severity",
      "'unread:' || (read_at IS NULL)",
      "'last_activity_by:' || last_activity_by",
    ];
    const real = [];
    for (const kind of kinds) {
      const rows = await db
        .prepare(`SELECT ${kind} AS bucket, count(*) AS count FROM vulns WHERE organization_id = ?1 AND ${kind} IS NOT NULL GROUP BY 1`)
        .bind(orgId)
        .all<{ bucket: string; count: number }>();
      real.push(...rows.results);
    }
    real.sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
    expect(kept.results).toEqual(real);
  }

  it("stay exact through concurrent creates, closes, reopens, re-ratings, reads, replies, deletes and intake moves", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const made = await Promise.all(Array.from({ length: 12 }, () => vuln(org, b.id)));
    const reports = [
      await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode }),
      await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode }),
    ];
    const say = (body: string) => ({ data: { type: "comment", attributes: { body, visibility: "reporter" } } });
    const doc = (id: string, processing_state: string) => ({ data: { type: "vuln", id, attributes: { processing_state } } });
    const rate = (id: string, severity: string | null) => ({ data: { type: "vuln", id, attributes: { severity } } });
    const results = await Promise.all([
      ...made.slice(0, 6).map((v) => patch(`/v1/vulns/${v.id}`, org.key, doc(v.id, "closed"))),
      ...made.slice(9, 12).map((v, i) => patch(`/v1/vulns/${v.id}`, org.key, rate(v.id, ["high", "low", "critical"][i]!))),
      ...made.slice(6, 9).map((v) => del(`/v1/vulns/${v.id}`, org.key)),
      ...made.slice(0, 4).map((v) => get(`/v1/vulns/${v.id}`, org.key)),
      ...reports.map((r) => get(`/v1/vulns/${r.id}`, org.key)),
      post(`/v1/vulns/${reports[0]!.id}/comments`, org.key, say("On it.")),
      asReporter("POST", "/v1/p/report/comments", reports[1]!.token, { body: say("Any news?"), contentType: "application/json" }),
      ...Array.from({ length: 4 }, (_, i) =>
        post("/v1/vulns", org.key, {
          data: {
            type: "vuln",
            attributes: { title: `Racing ${i}`, description: "d" },
            relationships: { brief: { data: { type: "brief", id: b.id } } },
          },
        }),
      ),
    ]);
    expect(results.map((r) => r.status).filter((s) => s >= 500)).toEqual([]);
    await patch(`/v1/vulns/${made[0]!.id}`, org.key, doc(made[0]!.id, "open"));
    await env.DB.prepare("UPDATE vulns SET inbox_state = 'stored' WHERE id = ?1").bind(made[1]!.id).run();
    await patch(`/v1/vulns/${made[9]!.id}`, org.key, rate(made[9]!.id, "medium"));
    await patch(`/v1/vulns/${made[10]!.id}`, org.key, rate(made[10]!.id, null));
    await countsMatch(org.id);
    expect((await get("/v1/vulns", org.key)).body.meta.page.total).toBe(12 - 3 + 4 + 2);
  });

  it("are exact for the seeded organizations too", async () => {
    await countsMatch(small.id);
    await countsMatch(large.id);
  });
});
