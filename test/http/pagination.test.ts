import { beforeAll, describe, expect, it } from "vitest";
import { get, patch } from "../helpers/api";
import { asset, organization, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
let created: string[];
beforeAll(async () => {
  org = await organization();
  created = [];
  for (let i = 0; i < 7; i++) created.push((await asset(org, { kind: "domain", value: `p${i}.example.com` })).id);
});

const ids = (body: { data: { id: string }[] }) => body.data.map((r) => r.id);

describe("pagination", () => {
  it("walks every page through the links, newest first by default", async () => {
    const seen: string[] = [];
    let next: string | null = "/v1/assets?page[size]=3";
    const pages: number[] = [];
    while (next) {
      const res: { status: number; body: any } = await get(next, org.key);
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
      pages.push(res.body.meta.page.number);
      expect(res.body.meta.page).toMatchObject({ size: 3, total: 7, total_pages: 3 });
      next = res.body.links.next;
    }
    expect(pages).toEqual([1, 2, 3]);
    expect(seen).toEqual([...created].reverse());
  });

  it("gives first, prev, next and last, null at the ends, keeping the other parameters", async () => {
    const res = await get("/v1/assets?page[number]=2&page[size]=3&q[kind_eq]=domain&sort=created_at", org.key);
    const decode = (link: string) => decodeURIComponent(link);
    expect(decode(res.body.links.self)).toBe("/v1/assets?page[number]=2&page[size]=3&q[kind_eq]=domain&sort=created_at");
    expect(decode(res.body.links.first)).toContain("page[number]=1");
    expect(decode(res.body.links.prev)).toContain("page[number]=1");
    expect(decode(res.body.links.next)).toContain("page[number]=3");
    expect(decode(res.body.links.last)).toContain("page[number]=3");
    expect(decode(res.body.links.next)).toContain("q[kind_eq]=domain");
    const first = await get("/v1/assets?page[size]=3", org.key);
    expect(first.body.links.prev).toBeNull();
    const last = await get("/v1/assets?page[size]=3&page[number]=3", org.key);
    expect(last.body.links.next).toBeNull();
    expect(ids(last.body)).toHaveLength(1);
  });

  it("defaults to page 1 of 25", async () => {
    const res = await get("/v1/assets", org.key);
    expect(res.body.meta.page).toEqual({ number: 1, size: 25, total: 7, total_pages: 1 });
  });

  it("answers a page past the last with 200 and no data", async () => {
    const res = await get("/v1/assets?page[number]=9&page[size]=3", org.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.page.total).toBe(7);
  });

  it("answers an empty collection with an empty array", async () => {
    const fresh = await organization();
    const res = await get("/v1/assets", fresh.key);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.page).toEqual({ number: 1, size: 25, total: 0, total_pages: 1 });
  });

  it("sorts by created_at and updated_at, both directions", async () => {
    expect(ids((await get("/v1/assets?sort=created_at", org.key)).body)).toEqual(created);
    expect(ids((await get("/v1/assets?sort=-created_at", org.key)).body)).toEqual([...created].reverse());
    await patch(`/v1/assets/${created[2]}`, org.key, { data: { type: "asset", attributes: { short_description: "touched" } } });
    expect(ids((await get("/v1/assets?sort=-updated_at", org.key)).body)[0]).toBe(created[2]);
    expect(ids((await get("/v1/assets?sort=updated_at", org.key)).body).at(-1)).toBe(created[2]);
  });

  it.each([
    ["page[number]=0", "page[number]"],
    ["page[number]=-1", "page[number]"],
    ["page[number]=1.5", "page[number]"],
    ["page[number]=abc", "page[number]"],
    ["page[size]=1e2", "page[size]"],
    ["page[size]=0x10", "page[size]"],
    ["page[number]=2.0", "page[number]"],
    ["page[number]=%20%202", "page[number]"],
    ["page[size]=%2B5", "page[size]"],
    ["page[number]=", "page[number]"],
    ["page[size]=0", "page[size]"],
    ["page[size]=101", "page[size]"],
    ["sort=name", "sort"],
    ["sort=-value", "sort"],
    ["colour=red", "colour"],
    ["q[name_eq]=x", "q[name_eq]"],
    ["filter[kind]=domain", "filter[kind]"],
  ])("answers 400 to ?%s with source.parameter %s", async (query, parameter) => {
    const res = await get(`/v1/assets?${query}`, org.key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: "400", code: "bad_request", source: { parameter } });
  });

  it.each(["/v1/policies", "/v1/briefs", "/v1/organizations", "/v1/assets"])("paginates %s", async (path) => {
    const res = await get(`${path}?page[size]=1`, org.key);
    expect(res.status).toBe(200);
    expect(res.body.meta.page.size).toBe(1);
    expect(res.body.links).toHaveProperty("last");
  });
});
