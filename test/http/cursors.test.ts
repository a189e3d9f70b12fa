import { beforeAll, describe, expect, it } from "vitest";
import { get, type ListDoc, post, walkLinks } from "../helpers/api";
import {
  asset,
  brief,
  directory,
  listing,
  organization,
  policy,
  PUBLISHED,
  vuln,
  webhook,
  type TestOrganization,
} from "../helpers/factories";

let org: TestOrganization;
let reporter: TestOrganization;
let assetIds: string[];
let vulnIds: string[];
let itemIds: string[];
let listingId: string;
beforeAll(async () => {
  org = await organization();
  assetIds = [];
  for (let i = 0; i < 7; i++) assetIds.push((await asset(org, { kind: "domain", value: `c${i}.example.com` })).id);
  // Vulns in an organization of their own: their domains become assets.
  reporter = await organization();
  const b = await brief(reporter, { published_at: PUBLISHED });
  vulnIds = [];
  for (let i = 0; i < 5; i++) vulnIds.push((await vuln(reporter, b.id, { domains: [`v${i}.example.com`] })).id);
  listingId = (await listing(org.operatorKey, (await directory(org.operatorKey)).id, org.id)).id;
  itemIds = [];
  for (let i = 0; i < 5; i++) {
    const p = await policy(org, { published_at: PUBLISHED });
    const item = await post(`/v1/directory_listings/${listingId}/items`, org.key, {
      data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: p.id } },
    });
    itemIds.push(item.body.data.id);
  }
});

const ids = (body: ListDoc) => body.data.map((r) => r.id);

/** Follows `rel` links from `start` to the end; returns every page's ids. */
const walk = (start: string, rel: "next" | "prev", key = org.key) => walkLinks(start, rel, key, 20);

describe.each([
  ["assets, newest first", "/v1/assets", () => [...assetIds].reverse(), () => org.key],
  ["assets, oldest first", "/v1/assets?sort=created_at", () => assetIds, () => org.key],
  ["vulns (with their domains)", "/v1/vulns", () => [...vulnIds].reverse(), () => reporter.key],
  ["directory listing items, by position", () => `/v1/directory_listings/${listingId}/items`, () => itemIds, () => org.key],
] as const)("cursor pages: %s", (_name, path, expected, key) => {
  const base = () => (typeof path === "function" ? path() : path);
  const join = (p: string, q: string) => `${p}${p.includes("?") ? "&" : "?"}${q}`;

  it("walks forward from page[after]= and back again by the links, the same rows in the same order", async () => {
    const forward = await walk(join(base(), "page[after]=&page[size]=2"), "next", key());
    expect(forward.pages.flat()).toEqual(expected());
    expect(forward.pages.every((p) => p.length <= 2)).toBe(true);
    const first = forward.bodies[0]!;
    expect(first.links.prev).toBeNull();
    expect(first.links.last).toBeUndefined();
    expect(first.meta.page).toEqual({ size: 2, total: expected().length });
    const lastBody = forward.bodies.at(-1)!;
    expect(lastBody.links.next).toBeNull();
    const backward = await walk(lastBody.links.self!, "prev", key());
    expect(backward.pages.reverse().flat()).toEqual(expected());
  });

  it("keeps the other parameters in the links and matches the pages by number", async () => {
    const byNumber = await get(join(base(), "page[size]=3&page[number]=2"), key());
    const firstByCursor = await get(join(base(), "page[after]=&page[size]=3"), key());
    const secondByCursor = await get(firstByCursor.body.links.next, key());
    expect(ids(secondByCursor.body)).toEqual(ids(byNumber.body));
    expect(decodeURIComponent(firstByCursor.body.links.next)).toContain("page[size]=3");
  });
});

describe("cursor pages: what they refuse", () => {
  it.each([
    ["page[after]=x&page[number]=2", "page[number]"],
    ["page[after]=&page[before]=abc", "page[before]"],
    ["page[after]=not-a-cursor", "page[after]"],
    ["page[before]=", "page[before]"],
    [`page[after]=${"A".repeat(1025)}`, "page[after]"],
  ])("answers %s with a 400 at source.parameter", async (query, parameter) => {
    const res = await get(`/v1/assets?${query}`, org.key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: "bad_request", source: { parameter } });
  });

  it("refuses a cursor of another sort, or of another list", async () => {
    const page = await get("/v1/assets?page[after]=&page[size]=1", org.key);
    const cursor = new URL(page.body.links.next, "https://x").searchParams.get("page[after]")!;
    const otherSort = await get(`/v1/assets?sort=updated_at&page[after]=${cursor}`, org.key);
    expect(otherSort.status).toBe(400);
    expect(otherSort.body.errors[0].source).toEqual({ parameter: "page[after]" });
    const otherList = await get(`/v1/directory_listings/${listingId}/items?page[after]=${cursor}`, org.key);
    expect(otherList.status).toBe(400);
  });

  it("refuses a forged cursor, well-formed but with a value of the wrong type for its sort, like a malformed one", async () => {
    const forge = (parts: unknown[]) => btoa(JSON.stringify(parts)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    const id = "01900000-0000-7000-8000-000000000000";
    for (const [path, cursor] of [
      ["/v1/assets", forge(["-created_at", 1_700_000_000_000, id])],
      ["/v1/assets?sort=updated_at", forge(["updated_at", 0, id])],
      [`/v1/vulns?sort=cvss_score`, forge(["cvss_score", "high", id])],
      [`/v1/directory_listings/${listingId}/items`, forge(["position", "1", id])],
    ] as const) {
      const res = await get(`${path}${path.includes("?") ? "&" : "?"}page[after]=${cursor}`, org.key);
      expect([path, res.status, res.body.errors?.[0]?.source]).toEqual([path, 400, { parameter: "page[after]" }]);
    }
  });

  it("pages the constant event types by cursor too", async () => {
    const all = await get("/v1/webhook_event_types", org.key);
    const walked = await walk("/v1/webhook_event_types?page[after]=&page[size]=3", "next");
    expect(walked.pages.flat()).toEqual(ids(all.body));
    const back = await walk(walked.bodies.at(-1)!.links.self!, "prev");
    expect(back.pages.reverse().flat()).toEqual(ids(all.body));
  });

  it("pages an organization's API keys by cursor", async () => {
    const all = await get(`/v1/organizations/${org.id}/api_keys`, org.operatorKey);
    const walked = await walk(`/v1/organizations/${org.id}/api_keys?page[after]=&page[size]=1`, "next", org.operatorKey);
    expect(walked.pages.flat()).toEqual(ids(all.body));
  });

  it("pages a webhook's deliveries by cursor", async () => {
    const hook = await webhook(org);
    for (let i = 0; i < 3; i++) expect((await post(`/v1/webhooks/${hook.id}/ping`, org.key, undefined)).status).toBe(202);
    const all = await get(`/v1/webhooks/${hook.id}/deliveries`, org.key);
    expect(all.body.data).toHaveLength(3);
    const walked = await walk(`/v1/webhooks/${hook.id}/deliveries?page[after]=&page[size]=2`, "next");
    expect(walked.pages.flat()).toEqual(ids(all.body));
  });
});
