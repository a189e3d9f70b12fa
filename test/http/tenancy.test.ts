import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, post } from "../helpers/api";
import { AUTHENTICATED, fixture, label, type Fixture } from "../helpers/endpoints";
import { organization } from "../helpers/factories";

// Two answers are the same but for their request ids, which every answer has its own of.
const sameAnswer = (body: { errors: { meta?: unknown }[] }) => body.errors.map(({ meta: _meta, ...error }) => error);

// The shared no-key / bad-key / revoked-key / other-organization generator, run against every endpoint.
let mine: Fixture;
let other: Fixture;
let revokedKey: string;
let sender = 0;

beforeAll(async () => {
  mine = await fixture();
  other = await fixture();
  const made = await post(`/v1/organizations/${mine.org.id}/api_keys`, mine.org.operatorKey, {
    data: { type: "api_key", attributes: { name: "to revoke" } },
  });
  revokedKey = made.body.data.attributes.key;
  expect((await get("/v1/policies", revokedKey)).status).toBe(200);
  expect((await del(`/v1/api_keys/${made.body.data.id}`, mine.org.operatorKey)).status).toBe(204);
});

const BAD_CREDENTIALS: [string, () => Record<string, string>][] = [
  ["no Authorization header", () => ({})],
  ["a non-Bearer scheme", () => ({ Authorization: "Basic dXNlcjpwYXNz" })],
  ["a malformed key", () => ({ Authorization: "Bearer not-a-key" })],
  ["an unknown key", () => ({ Authorization: `Bearer vdp_${"A".repeat(43)}` })],
  ["a revoked key", () => ({ Authorization: `Bearer ${revokedKey}` })],
];

describe.each(AUTHENTICATED.map((e) => [label(e), e] as const))("%s", (_name, endpoint) => {
  it.each(BAD_CREDENTIALS)("answers 401 to %s and changes nothing", async (_case, headers) => {
    // Each from its own address: requests without a valid key are limited to 60 a minute per address.
    const res = await api(endpoint.method, endpoint.path(mine), {
      headers: { ...headers(), "CF-Connecting-IP": `203.0.113.${++sender % 250}` },
      body: endpoint.body?.(mine),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect(res.body.errors[0]).toMatchObject({ status: "401", code: "unauthorized", title: "Unauthorized" });
    if (endpoint.owned) expect((await get(endpoint.path(mine), mine.org.key)).status).toBe(200);
    if (endpoint.ownedBy) expect((await get(endpoint.ownedBy(mine), mine.org.key)).status).toBe(200);
  });

  if (endpoint.operatorOnly) {
    it("answers 403 to an organization key", async () => {
      const res = await api(endpoint.method, endpoint.path(mine), { key: mine.org.key, body: endpoint.body?.(mine) });
      expect(res.status).toBe(403);
      expect(res.body.errors[0]).toMatchObject({ status: "403", code: "forbidden" });
    });
  }

  if (endpoint.ownedBy) {
    it("answers another organization's record like a missing one", async () => {
      const foreign = await api(endpoint.method, endpoint.path(mine), { key: other.org.key, body: endpoint.body?.(mine) });
      expect(foreign.status).toBe(404);
      expect(foreign.body.errors[0].code).toBe(endpoint.notFound ?? "not_found");
      expect((await get(endpoint.ownedBy!(mine), mine.org.key)).status).toBe(200);
    });
  }

  if (endpoint.owned) {
    it("answers another organization's id exactly like a missing one, and changes nothing", async () => {
      const foreign = await api(endpoint.method, endpoint.path(mine), { key: other.org.key, body: endpoint.body?.(mine) });
      const missing = await api(endpoint.method, endpoint.path(mine).replace(/[0-9a-f-]{36}$/, "01900000-0000-7000-8000-00000000dead"), {
        key: other.org.key,
        body: endpoint.body?.(mine),
      });
      expect(foreign.status).toBe(404);
      expect(sameAnswer(foreign.body)).toEqual(sameAnswer(missing.body));
      expect((await get(endpoint.path(mine), mine.org.key)).status).toBe(200);
    });
  }
});

describe("lists", () => {
  it.each(["/v1/policies", "/v1/assets", "/v1/briefs", "/v1/organizations"])("%s shows only the caller's organization", async (path) => {
    const res = await get(path, mine.org.key);
    expect(res.status).toBe(200);
    const ids = res.body.data.map((r: { id: string }) => r.id);
    const foreign = [other.org.id, other.policyId, other.assetId, other.briefId];
    expect(ids.filter((id: string) => foreign.includes(id))).toEqual([]);
    expect(ids.length).toBeGreaterThan(0);
  });

  it("lets an operator read across organizations", async () => {
    const res = await get("/v1/policies?page[size]=100", mine.org.operatorKey);
    const ids = res.body.data.map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining([mine.policyId, other.policyId]));
  });
});

describe("relationships", () => {
  it("treats another organization's policy in a brief like a missing one: 422 at the pointer", async () => {
    const body = (id: string) => ({
      data: { type: "brief", attributes: { name: "B" }, relationships: { policy: { data: { type: "policy", id } } } },
    });
    const foreign = await post("/v1/briefs", mine.org.key, body(other.policyId));
    const missing = await post("/v1/briefs", mine.org.key, body("01900000-0000-7000-8000-00000000dead"));
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0].source).toEqual({ pointer: "/data/relationships/policy/data/id" });
    expect(sameAnswer(foreign.body)).toEqual(sameAnswer(missing.body));
  });

  it("treats another organization's asset in a policy like a missing one", async () => {
    const foreign = await post("/v1/policies", mine.org.key, {
      data: {
        type: "policy",
        attributes: {},
        relationships: {
          assets: {
            data: [
              { type: "asset", id: mine.assetId },
              { type: "asset", id: other.assetId },
            ],
          },
        },
      },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ source: { pointer: "/data/relationships/assets/data/1/id" } })]);
  });

  it("refuses an organization key that names another organization as owner", async () => {
    const res = await post("/v1/assets", mine.org.key, {
      data: {
        type: "asset",
        attributes: { kind: "domain", value: "x.example.com" },
        relationships: { organization: { data: { type: "organization", id: other.org.id } } },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe("/data/relationships/organization/data/id");
  });

  it("a fresh organization sees nothing of others", async () => {
    const fresh = await organization();
    for (const path of ["/v1/policies", "/v1/assets", "/v1/briefs"]) {
      expect((await get(path, fresh.key)).body.data).toEqual([]);
    }
  });
});
