import { beforeAll, describe, expect, it } from "vitest";
import { del, get, patch, untilLimited } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

const read = (shortcode: string, headers: Record<string, string> = {}) => get(`/v1/p/briefs/${shortcode}`, null, { headers });

async function publishedBrief(
  policyAttributes: Record<string, unknown> = { published_at: PUBLISHED, point_of_contact: "sec@example.com" },
) {
  const p = await policy(org, {
    ...policyAttributes,
    policy_url_status: "alive",
    creation_mode: "custom",
    // A domain is one policy's: each brief's policy names its own.
    custom_domain: `vdp-${crypto.randomUUID().slice(0, 8)}.example.com`,
  });
  const b = await brief(org, { published_at: PUBLISHED, in_scope_assets: [{ kind: "domain", value: "shop.example.com" }] }, p.id);
  return { p, b };
}

describe("GET /v1/p/briefs/{shortcode}", () => {
  it("refuses include, fields and any other parameter with a 400, cached or not; links only to what the reader may read", async () => {
    const { b } = await publishedBrief();
    const plain = await read(b.attributes.shortcode);
    expect(plain.status).toBe(200);
    // Nothing included points at a keyed route, which would answer 401 to this document's readers.
    for (const r of plain.body.included) expect([r.type, r.links?.self ?? null]).toEqual([r.type, null]);
    // The plain read is now in the edge cache; a query string must not be answered from it.
    expect((await read(b.attributes.shortcode)).headers.get("X-Cache")).toBe("HIT");
    for (const [query, parameter, detail] of [
      ["include=bogus", "include", /include is not supported/],
      ["include=organization", "include", /include is not supported/],
      ["fields[brief]=name", "fields[brief]", /takes no parameters/],
      ["page[size]=5", "page[size]", /not a known query parameter/],
    ] as const) {
      const res = await get(`/v1/p/briefs/${b.attributes.shortcode}?${query}`);
      expect([query, res.status, res.body.errors[0].source, res.body.errors[0].detail]).toEqual([
        query,
        400,
        { parameter },
        expect.stringMatching(detail),
      ]);
    }
  });

  it("serves a published brief with no key, its organization and policy included, nothing private", async () => {
    const { p, b } = await publishedBrief();
    const res = await read(b.attributes.shortcode);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(res.body.data).toMatchObject({
      type: "brief",
      id: b.id,
      attributes: { name: b.attributes.name, shortcode: b.attributes.shortcode },
    });
    expect(res.body.data.attributes.in_scope_assets[0].value).toBe("shop.example.com");
    const org_ = res.body.included.find((r: { type: string }) => r.type === "organization");
    expect(org_.attributes).toEqual({ name: `Org ${org.slug}`, slug: org.slug, website_url: "https://example.com", claimed: true });
    const pol = res.body.included.find((r: { type: string }) => r.type === "policy");
    expect(pol.id).toBe(p.id);
    expect(pol.attributes).toMatchObject({ point_of_contact: "sec@example.com", maturity_rating: 1 });
    for (const hidden of ["policy_url_status", "creation_mode", "hosting_mode", "custom_domain", "branding", "launch_date"]) {
      expect(pol.attributes).not.toHaveProperty(hidden);
    }
  });

  it("leaves out a policy that is not published", async () => {
    const { b } = await publishedBrief({ published_at: null });
    const res = await read(b.attributes.shortcode);
    expect(res.body.data.relationships.policy.data).toBeNull();
    expect(res.body.included.map((r: { type: string }) => r.type)).toEqual(["organization"]);
  });

  it("caches: a MISS queries D1, a HIT touches no database", async () => {
    const { b } = await publishedBrief();
    const miss = await read(b.attributes.shortcode);
    expect(miss.headers.get("X-Cache")).toBe("MISS");
    expect(miss.shardTrips).toBe(1);
    expect(miss.headers.get("Cache-Control")).toBe("public, max-age=60, s-maxage=60");
    const hit = await read(b.attributes.shortcode);
    expect(hit.headers.get("X-Cache")).toBe("HIT");
    expect(hit.roundTrips).toBe(0);
    expect(hit.text).toBe(miss.text);
    expect(hit.headers.get("ETag")).toBe(miss.headers.get("ETag"));
    expect(hit.headers.get("ETag")).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it("answers 304 to a matching If-None-Match, on a hit and on a miss", async () => {
    const { p, b } = await publishedBrief();
    const first = await read(b.attributes.shortcode);
    const etag = first.headers.get("ETag")!;
    const hit = await read(b.attributes.shortcode, { "If-None-Match": etag });
    expect(hit.status).toBe(304);
    expect(hit.text).toBe("");
    expect(hit.headers.get("ETag")).toBe(etag);
    expect(hit.roundTrips).toBe(0);
    expect((await read(b.attributes.shortcode, { "If-None-Match": '"other"' })).status).toBe(200);
    // A change to a private policy field evicts but leaves the public document as it was:
    // the miss rebuilds the same bytes, so the client's ETag still matches.
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", attributes: { policy_url_status: "dead" } } });
    const afterEvict = await read(b.attributes.shortcode, { "If-None-Match": etag });
    expect(afterEvict.headers.get("X-Cache")).toBe("MISS");
    expect(afterEvict.status).toBe(304);
    expect(afterEvict.shardTrips).toBe(1);
  });

  it("evicts when the brief changes", async () => {
    const { b } = await publishedBrief();
    await read(b.attributes.shortcode);
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", attributes: { name: "Renamed brief" } } });
    const res = await read(b.attributes.shortcode);
    expect(res.headers.get("X-Cache")).toBe("MISS");
    expect(res.body.data.attributes.name).toBe("Renamed brief");
  });

  it("evicts when the brief's policy changes", async () => {
    const { p, b } = await publishedBrief();
    await read(b.attributes.shortcode);
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", attributes: { name: "New policy name" } } });
    const res = await read(b.attributes.shortcode);
    expect(res.headers.get("X-Cache")).toBe("MISS");
    expect(res.body.included.find((r: { type: string }) => r.type === "policy").attributes.name).toBe("New policy name");
    // Unpublishing the policy removes it from the page at once.
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", attributes: { published_at: null } } });
    expect((await read(b.attributes.shortcode)).body.included.map((r: { type: string }) => r.type)).toEqual(["organization"]);
  });

  it("evicts when the policy is deleted, and when the brief is unpublished or deleted", async () => {
    const { p, b } = await publishedBrief();
    await read(b.attributes.shortcode);
    await del(`/v1/policies/${p.id}`, org.key);
    expect((await read(b.attributes.shortcode)).body.data.relationships.policy.data).toBeNull();
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", attributes: { published_at: null } } });
    expect((await read(b.attributes.shortcode)).status).toBe(404);
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", attributes: { published_at: PUBLISHED } } });
    expect((await read(b.attributes.shortcode)).status).toBe(200);
    await del(`/v1/briefs/${b.id}`, org.key);
    expect((await read(b.attributes.shortcode)).status).toBe(404);
  });

  it.each([
    ["a draft", { published_at: null }],
    ["a brief scheduled for the future", { published_at: "2999-01-01T00:00:00Z" }],
  ])("answers 404 Brief not found for %s, and caches no 404", async (_name, attributes) => {
    const b = await brief(org, attributes);
    const res = await read(b.attributes.shortcode);
    expect(res.status).toBe(404);
    expect(res.body.errors[0]).toMatchObject({ status: "404", code: "brief_not_found", title: "Brief not found" });
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", attributes: { published_at: PUBLISHED } } });
    expect((await read(b.attributes.shortcode)).status).toBe(200);
  });

  it("answers 404 for an unknown shortcode, and for one that cannot be a shortcode without asking D1", async () => {
    expect((await read("ZZZZ-ZZZZ")).body.errors[0].code).toBe("brief_not_found");
    const junk = await read("not-a-shortcode");
    expect(junk.status).toBe(404);
    expect(junk.body.errors[0].code).toBe("brief_not_found");
    expect(junk.roundTrips).toBe(0);
  });

  it("reads a shortcode as a person types it: any case, I and L for 1, O for 0", async () => {
    const { b } = await publishedBrief();
    const code: string = b.attributes.shortcode;
    const typed = code.toLowerCase().replaceAll("1", "l").replaceAll("0", "o");
    const res = await read(typed);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(b.id);
    // One cache entry for every spelling.
    expect((await read(code)).headers.get("X-Cache")).toBe("HIT");
  });

  it("evicts for every hostname the Worker answers on", async () => {
    const { b } = await publishedBrief();
    const path = `/v1/p/briefs/${b.attributes.shortcode}`;
    await get(path, null, { origin: "https://second-domain.example" });
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", attributes: { name: "Seen everywhere" } } });
    const res = await get(path, null, { origin: "https://second-domain.example" });
    expect(res.headers.get("X-Cache")).toBe("MISS");
    expect(res.body.data.attributes.name).toBe("Seen everywhere");
  });

  it("evicts when the organization changes, since the page shows its name", async () => {
    const { b } = await publishedBrief();
    await read(b.attributes.shortcode);
    await patch(`/v1/organizations/${org.id}`, org.operatorKey, { data: { type: "organization", attributes: { name: "Renamed Org" } } });
    const res = await read(b.attributes.shortcode);
    expect(res.headers.get("X-Cache")).toBe("MISS");
    expect(res.body.included.find((r: { type: string }) => r.type === "organization").attributes.name).toBe("Renamed Org");
  });

  it("answers 429 past 300 reads a minute from one address, hits included", async () => {
    const { b } = await publishedBrief();
    const ip = { "CF-Connecting-IP": "203.0.113.77" };
    const { ok, limited } = await untilLimited(300, () => read(b.attributes.shortcode, ip));
    expect(ok).toBeGreaterThanOrEqual(300);
    expect(limited?.headers.get("Retry-After")).toBe("60");
    expect((await read(b.attributes.shortcode, { "CF-Connecting-IP": "203.0.113.78" })).status).toBe(200);
  });
});
