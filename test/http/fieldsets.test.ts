import { beforeAll, describe, expect, it } from "vitest";
import { get } from "../helpers/api";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

// Sparse fieldsets (JSON:API's fields[TYPE]) on every keyed list and show.

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
  for (let i = 0; i < 3; i++) await vuln(org, briefId, { description: "x".repeat(20_000), severity: "low" });
}, 30_000);

const keys = (r: { attributes: object; relationships: object }) => [Object.keys(r.attributes), Object.keys(r.relationships)];

describe("fields[TYPE]", () => {
  it("keeps only the members asked for on a list, the links keeping the parameter, and the answer small", async () => {
    const full = await get("/v1/vulns?page[size]=2", org.key);
    const res = await get("/v1/vulns?fields[vuln]=title,severity,brief&page[size]=2", org.key);
    expect(res.status).toBe(200);
    for (const v of res.body.data) expect(keys(v)).toEqual([["title", "severity"], ["brief"]]);
    expect(res.body.data.map((v: { id: string }) => v.id)).toEqual(full.body.data.map((v: { id: string }) => v.id));
    expect(new URL(res.body.links.next, "https://x").searchParams.get("fields[vuln]")).toBe("title,severity,brief");
    expect((await get(res.body.links.next, org.key)).body.data[0].attributes).toEqual({ title: expect.any(String), severity: "low" });
    expect(res.text.length * 20).toBeLessThan(full.text.length);
  });

  it("works with filters, sorts and cursors, on a show, and an empty list of members keeps none", async () => {
    const page = await get("/v1/vulns?fields[vuln]=shortcode&q[severity_eq]=low&sort=created_at&page[after]=", org.key);
    expect(page.body.data.map(keys)).toEqual(Array(3).fill([["shortcode"], []]));
    const id = page.body.data[0].id;
    expect(keys((await get(`/v1/vulns/${id}?fields[vuln]=read_at`, org.key)).body.data)).toEqual([["read_at"], []]);
    expect(keys((await get(`/v1/vulns/${id}?fields[vuln]=`, org.key)).body.data)).toEqual([[], []]);
    // A type the answer does not hold is a parameter the read does not know.
    const other = await get(`/v1/vulns/${id}?fields[brief]=name`, org.key);
    expect([other.status, other.body.errors[0].source]).toEqual([400, { parameter: "fields[brief]" }]);
  });

  it("a show refuses a parameter it does not know, as a list does", async () => {
    const v = await vuln(org, briefId);
    const res = await get(`/v1/vulns/${v.id}?include=brief`, org.key);
    expect([res.status, res.body.errors[0].source]).toEqual([400, { parameter: "include" }]);
  });

  it("works on the other resources' lists and shows", async () => {
    const briefs = await get("/v1/briefs?fields[brief]=name,shortcode", org.key);
    expect(keys(briefs.body.data[0])).toEqual([["name", "shortcode"], []]);
    const own = await get(`/v1/organizations/${org.id}?fields[organization]=name`, org.key);
    expect(keys(own.body.data)).toEqual([["name"], []]);
  });

  it.each([
    ["fields[vuln]=title,bogus", "fields[vuln]", /must be vuln members separated by commas .*title, description/],
    ["fields[vuln]=title,%20severity", "fields[vuln]", /no spaces/],
    ["fields[vuln]=title,,severity", "fields[vuln]", /must be vuln members/],
    ["fields[nothing]=title", "fields[nothing]", /holds no resource of that type/],
    ["fields[]=title", "fields[]", /holds no resource of that type/],
    ["fields=title", "fields", /not a known query parameter/],
  ])("%s is a 400 at %s, and a refused show marks nothing read", async (query, parameter, detail) => {
    const v = await vuln(org, briefId);
    for (const path of ["/v1/vulns", `/v1/vulns/${v.id}`]) {
      const res = await get(`${path}?${query}`, org.key);
      expect([res.status, res.body.errors[0].source, res.body.errors[0].detail]).toEqual([
        400,
        { parameter },
        expect.stringMatching(detail),
      ]);
    }
    const listed = await get(`/v1/vulns?q[shortcode_eq]=${v.attributes.shortcode}`, org.key);
    expect(listed.body.data[0].attributes.read_at).toBeNull();
  });
});
