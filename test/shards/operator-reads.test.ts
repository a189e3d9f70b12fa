import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { testClock } from "../helpers/clock";
import { get, type ListDoc, patch, walkLinks } from "../helpers/api";
import { brief, operatorKey, organization, policy, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";
import { shardOf } from "../helpers/shards";

// An operator's reads across organizations in a sharded deployment: every shard is read and the answers
// merged, so a list pages (by number and by cursor, both ways), counts and searches as one database
// holding every organization would, and the platform's metrics are the figures of all reports at once.

const H = 3_600_000;
const T0 = Date.parse("2026-05-04T00:00:00.000Z");
const { at } = testClock(T0);

const ids = (body: ListDoc) => body.data.map((r) => r.id);

let operator: string;
let a: TestOrganization;
let b: TestOrganization;
beforeAll(async () => {
  operator = await operatorKey();
  a = await organization();
  b = await organization();
});

const walk = (start: string, rel: "next" | "prev") => walkLinks(start, rel, operator);

/** Every policy any shard holds, in the list's default order (newest first, then by id), read inside. */
async function everyPolicy(): Promise<string[]> {
  const rows = await env.DB.prepare("SELECT id, created_at FROM policies").all<{ id: string; created_at: string }>();
  return rows.results
    .sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1))
    .map((r) => r.id);
}

describe("an operator's list across shards", () => {
  it("places the two organizations in different shards", async () => {
    expect(await shardOf(a.id)).not.toBe(await shardOf(b.id));
  });

  it("pages by number as one database would: every row once, in order, the totals summed", async () => {
    // Interleaved in time, and in pairs made at the same instant: their order across shards is by id.
    for (let i = 0; i < 4; i++) {
      at(T0 + i * H);
      await policy(a, { name: `A${i}` });
      await policy(b, { name: `B${i}` });
    }
    const expected = await everyPolicy();
    const first = await get("/v1/policies?page[size]=3", operator);
    expect(first.body.meta.page.total).toBe(expected.length);
    const pages: string[] = [];
    for (let n = 1; n <= Math.ceil(expected.length / 3); n++)
      pages.push(...ids((await get(`/v1/policies?page[size]=3&page[number]=${n}`, operator)).body));
    expect(pages).toEqual(expected);
    // The merge really spans: both organizations' rows, interleaved.
    const owners = (await get("/v1/policies?page[size]=100", operator)).body.data
      .filter((p: ListDoc["data"][number]) => /^[AB]\d$/.test(p.attributes.name as string))
      .map((p: ListDoc["data"][number]) => (p.attributes.name as string)[0]);
    expect(owners.join("")).toMatch(/^(AB|BA){4}$/);
  });

  it("pages by cursor forward and back with exact links, in every sort", async () => {
    const expected = await everyPolicy();
    const forward = await walk("/v1/policies?page[size]=3&page[after]=", "next");
    expect(forward.pages.flat()).toEqual(expected);
    expect(forward.bodies[0]!.links.prev).toBeNull();
    expect(forward.bodies.at(-1)!.links.next).toBeNull();
    expect(forward.bodies.every((body) => body.meta.page.total === expected.length)).toBe(true);
    // Back from the last page's end: the same rows, the same pages.
    const back = await walk(forward.bodies.at(-1)!.links.prev ?? "", "prev");
    expect([...back.pages].reverse().flat()).toEqual(expected.slice(0, expected.length - forward.pages.at(-1)!.length));
    expect(back.bodies.at(-1)!.links.prev).toBeNull();
    // Oldest first, by the other timestamp.
    const oldest = await walk("/v1/policies?page[size]=4&sort=updated_at&page[after]=", "next");
    const byUpdate = await env.DB.prepare("SELECT id, updated_at FROM policies").all<{ id: string; updated_at: string }>();
    expect(oldest.pages.flat()).toEqual(
      byUpdate.results
        .sort((x, y) => (x.updated_at === y.updated_at ? (x.id < y.id ? -1 : 1) : x.updated_at < y.updated_at ? -1 : 1))
        .map((r) => r.id),
    );
  });

  it("searches every shard, counts every match and pages them by cursor in a sort", async () => {
    const [ba, bb] = [await brief(a, { published_at: PUBLISHED }), await brief(b, { published_at: PUBLISHED })];
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      at(T0 + 10 * H + i * H);
      made.push((await vuln(a, ba.id, { title: `Wombat overflow ${i}` })).id);
      made.push((await vuln(b, bb.id, { title: `Wombat overflow ${i}` })).id);
    }
    const ranked = await get("/v1/vulns?q[search]=wombat&page[size]=100", operator);
    expect(ranked.status).toBe(200);
    expect(ranked.body.meta.page.total).toBe(6);
    expect(new Set(ids(ranked.body))).toEqual(new Set(made));
    const bySort = await walk("/v1/vulns?q[search]=wombat&sort=created_at&page[size]=4&page[after]=", "next");
    expect(bySort.pages.map((p) => p.length)).toEqual([4, 2]);
    expect(bySort.pages.flat()).toEqual(made);
    // Each organization still finds only its own.
    expect((await get("/v1/vulns?q[search]=wombat", a.key)).body.meta.page.total).toBe(3);
  });
});

describe("the platform's metrics across shards", () => {
  const T1 = Date.parse("2026-06-01T00:00:00.000Z");
  const period = `q[created_at_gteq]=${encodeURIComponent(new Date(T1).toISOString())}&q[created_at_lteq]=${encodeURIComponent(new Date(T1 + H).toISOString())}`;
  const triageAt = async (org: TestOrganization, id: string, hours: number) => {
    at(T1 + hours * H);
    await patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes: { triage_state: "triaged" } } });
  };

  it("counts every shard's reports and finds the median of all, not of the shards' medians", async () => {
    const [ba, bb] = [await brief(a, { published_at: PUBLISHED }), await brief(b, { published_at: PUBLISHED })];
    at(T1);
    const inA = [await vuln(a, ba.id), await vuln(a, ba.id), await vuln(a, ba.id)];
    const inB = [await vuln(b, bb.id), await vuln(b, bb.id)];
    // Triaged after 1, 2, 3 hours in a's shard and 10, 20 in b's: the median of all is 3 h (a's alone: 2, b's: 15).
    for (const [i, hours] of [1, 2, 3].entries()) await triageAt(a, inA[i]!.id, hours);
    for (const [i, hours] of [10, 20].entries()) await triageAt(b, inB[i]!.id, hours);
    at(T1 + 30 * H);
    const odd = await get(`/v1/metrics?${period}`, operator);
    expect(odd.body.data.id).toBe("platform");
    expect(odd.body.data.attributes).toMatchObject({ reports_received: 5, valid_reports: 5, median_seconds_to_triage: 3 * 3600 });
    // One more in b's shard, at 30 h: an even count, the mean of the two middle ones (3 h and 10 h).
    at(T1);
    const sixth = await vuln(b, bb.id);
    await triageAt(b, sixth.id, 30);
    at(T1 + 40 * H);
    const even = await get(`/v1/metrics?${period}`, operator);
    expect(even.body.data.attributes).toMatchObject({ reports_received: 6, median_seconds_to_triage: 6.5 * 3600 });
    // Each organization's own, from its own shard.
    const ofA = await get(`/v1/metrics?${period}&q[organization_id_eq]=${a.id}`, operator);
    expect(ofA.body.data.attributes).toMatchObject({ reports_received: 3, median_seconds_to_triage: 2 * 3600 });
    const ofB = await get(`/v1/metrics?${period}`, b.key);
    expect(ofB.body.data.attributes).toMatchObject({ reports_received: 3, median_seconds_to_triage: 20 * 3600 });
  });
});

describe("the audit log across shards", () => {
  it("shows an operator every organization's changes, in time order, counted once", async () => {
    await policy(a, { name: "audited in a" });
    await policy(b, { name: "audited in b" });
    const all = await walk("/v1/audit_events?page[size]=5&page[after]=", "next");
    const rows = all.bodies.flatMap((body) => body.data) as unknown as {
      id: string;
      relationships: { organization: { data: { id: string } | null } };
    }[];
    const inside = await env.DB.prepare("SELECT count(*) AS n FROM audit_events").first<number>("n");
    expect(rows.length).toBe(inside);
    expect(all.bodies[0]!.meta.page.total).toBe(inside);
    // Newest first: the ids are time-ordered.
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort().reverse());
    const owners = new Set(rows.map((r) => r.relationships.organization.data?.id));
    expect(owners.has(a.id) && owners.has(b.id)).toBe(true);
  });
});
