import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { del, get, patch, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { organization, type TestOrganization } from "../helpers/factories";

const T0 = Date.parse("2026-11-20T09:00:00.000Z");
const HOUR = 3_600_000;
const { at } = testClock(T0);

const ALL = ["read", "vulns", "advisories", "settings", "members"];

/** A key made by `key` for its own organization (POST /v1/api_keys). */
const mint = (key: string, attributes: Record<string, unknown>) => post("/v1/api_keys", key, { data: { type: "api_key", attributes } });

/** A key an operator makes for the organization, with these attributes. */
async function operatorMade(org: TestOrganization, attributes: Record<string, unknown>) {
  const res = await post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, { data: { type: "api_key", attributes } });
  expect(res.status).toBe(201);
  return { id: res.body.data.id as string, key: res.body.data.attributes.key as string, attributes: res.body.data.attributes };
}

// Two refusals are the same but for their request ids.
const sameAnswer = (body: { errors: { meta?: unknown }[] }) => body.errors.map(({ meta: _meta, ...error }) => error);

const policyChange = { data: { type: "policy", attributes: { name: "Renamed" } } };

describe("scopes", () => {
  it("shows every key's scopes and expiry; a key made before scopes existed has every scope", async () => {
    const org = await organization();
    const shown = (await get(`/v1/api_keys/${org.keyId}`, org.key)).body.data.attributes;
    expect(shown).toMatchObject({ scopes: ALL, expires_at: null });
    const narrow = await operatorMade(org, { name: "CI", scopes: ["vulns", "read"], expires_at: "2026-12-01T10:00:00+01:00" });
    // In the scopes' own order, the expiry in UTC.
    expect(narrow.attributes).toMatchObject({ scopes: ["read", "vulns"], expires_at: "2026-12-01T09:00:00.000Z" });
    expect(narrow.attributes.key).toMatch(/^vdp_/);
    const listed = (await get("/v1/api_keys", org.key)).body.data;
    expect(listed.map((k: { id: string }) => k.id).sort()).toEqual([org.keyId, narrow.id].sort());
    expect(listed.find((k: { id: string }) => k.id === narrow.id).attributes).toMatchObject({ scopes: ["read", "vulns"] });
  });

  it("a key with the members scope makes a narrower key, which does what its scopes allow and nothing else", async () => {
    const org = await organization();
    const admin = await operatorMade(org, { scopes: ["read", "members", "vulns"] });
    const made = await mint(admin.key, { name: "Triage bot", scopes: ["read", "vulns"] });
    expect(made.status).toBe(201);
    expect(made.body.data.attributes).toMatchObject({
      name: "Triage bot",
      scopes: ["read", "vulns"],
      expires_at: null,
      kind: "organization",
    });
    expect(made.body.data.relationships.organization.data.id).toBe(org.id);
    const key = made.body.data.attributes.key as string;
    expect((await get("/v1/vulns", key)).status).toBe(200);
    const policy = (await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "P" } } })).body.data;
    const refused = await patch(`/v1/policies/${policy.id}`, key, policyChange);
    expect([refused.status, refused.body.errors[0].code]).toEqual([403, "insufficient_scope"]);
    expect(refused.headers.get("WWW-Authenticate")).toBe('Bearer error="insufficient_scope", scope="settings"');
    expect((await get(`/v1/policies/${policy.id}`, org.key)).body.data.attributes.name).toBe("P");
    // Omitted scopes are the maker's own.
    const same = await mint(admin.key, {});
    expect(same.body.data.attributes.scopes).toEqual(["read", "vulns", "members"]);
    // The maker revokes it: it stops working at once, like any revoked key.
    expect((await del(`/v1/api_keys/${made.body.data.id}`, admin.key)).status).toBe(204);
    expect((await get("/v1/vulns", key)).status).toBe(401);
    expect((await get(`/v1/api_keys/${made.body.data.id}`, admin.key)).body.data.attributes.revoked_at).toEqual(expect.any(String));
  });

  it("a key cannot make a key with a scope it does not hold: 403 naming it, and no key is made", async () => {
    const org = await organization();
    const admin = await operatorMade(org, { scopes: ["read", "members"] });
    const before = (await get("/v1/api_keys", org.key)).body.meta;
    for (const scopes of [["read", "settings"], ["members", "vulns"], undefined]) {
      const res = await mint(admin.key, scopes ? { scopes } : {});
      if (scopes === undefined) {
        // Omitted: the maker's own scopes, never more.
        expect(res.body.data.attributes.scopes).toEqual(["read", "members"]);
        await del(`/v1/api_keys/${res.body.data.id}`, org.key);
        continue;
      }
      expect([res.status, res.body.errors[0].code]).toEqual([403, "insufficient_scope"]);
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", scope="${scopes[1]}"`);
    }
    const after = (await get("/v1/api_keys", org.key)).body.meta;
    expect(after.page.total).toBe(before.page.total + 1);
    const live = (await get("/v1/api_keys", org.key)).body.data.filter((k: any) => k.attributes.revoked_at === null);
    expect(live.map((k: any) => k.attributes.scopes)).not.toContainEqual(["read", "settings"]);
  });

  it("refuses scopes that are unknown, repeated or none, at their pointer", async () => {
    const org = await organization();
    for (const [scopes, pointer] of [
      [["read", "admin"], "/data/attributes/scopes/1"],
      [["read", "read"], "/data/attributes/scopes"],
      [[], "/data/attributes/scopes"],
    ] as const) {
      const res = await mint(org.key, { scopes });
      expect([res.status, res.body.errors[0].source.pointer]).toEqual([422, pointer]);
    }
  });

  it("only the organization's keys: another organization's key is not found, and lists show none of them", async () => {
    const mine = await organization();
    const other = await organization();
    expect((await get(`/v1/api_keys/${mine.keyId}`, other.key)).status).toBe(404);
    expect((await del(`/v1/api_keys/${mine.keyId}`, other.key)).status).toBe(404);
    expect((await get("/v1/policies", mine.key)).status).toBe(200);
    const listed = (await get("/v1/api_keys", other.key)).body.data;
    expect(listed.map((k: any) => k.relationships.organization.data.id)).toEqual([other.id]);
    // The neighbour organization of every test world has keys too.
    const { results } = await env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE organization_id <> ?")
      .bind(other.id)
      .all<{ n: number }>();
    expect(results[0]!.n).toBeGreaterThan(listed.length);
  });
});

describe("expiry", () => {
  it("works until expires_at, then answers 401 exactly as a revoked key does", async () => {
    const org = await organization();
    const expiring = await operatorMade(org, { expires_at: new Date(T0 + HOUR).toISOString() });
    const revoked = await operatorMade(org, {});
    await del(`/v1/api_keys/${revoked.id}`, org.key);
    expect((await get("/v1/policies", expiring.key)).status).toBe(200);
    at(T0 + HOUR - 1);
    expect((await get("/v1/policies", expiring.key)).status).toBe(200);
    at(T0 + HOUR);
    const expired = await get("/v1/policies", expiring.key);
    const gone = await get("/v1/policies", revoked.key);
    expect(expired.status).toBe(401);
    expect(sameAnswer(expired.body)).toEqual(sameAnswer(gone.body));
    expect(expired.headers.get("WWW-Authenticate")).toBe(gone.headers.get("WWW-Authenticate"));
    // Still shown, as a revoked key is, with when it expired.
    expect((await get(`/v1/api_keys/${expiring.id}`, org.key)).body.data.attributes.expires_at).toBe(new Date(T0 + HOUR).toISOString());
  });

  it("must be in the future, and a key that expires makes keys that expire no later", async () => {
    const org = await organization();
    const past = await mint(org.key, { expires_at: new Date(T0 - 1000).toISOString() });
    expect([past.status, past.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/expires_at"]);
    const limit = new Date(T0 + 2 * HOUR).toISOString();
    const parent = await operatorMade(org, { scopes: ["read", "members"], expires_at: limit });
    const child = await mint(parent.key, {});
    expect(child.body.data.attributes.expires_at).toBe(limit);
    for (const expires_at of [new Date(T0 + 3 * HOUR).toISOString(), null]) {
      const res = await mint(parent.key, { expires_at });
      expect([res.status, res.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/expires_at"]);
    }
    const sooner = await mint(parent.key, { expires_at: new Date(T0 + HOUR).toISOString() });
    expect(sooner.status).toBe(201);
  });
});

describe("use from a new address", () => {
  const uses = async (keyId: string) =>
    (
      await env.DB.prepare("SELECT action, ip, actor_id, organization_id FROM audit_events WHERE target_id = ? AND action = ? ORDER BY id")
        .bind(keyId, "api_key.use_from_new_ip")
        .all()
    ).results;
  const from = (ip: string) => ({ headers: { "CF-Connecting-IP": ip } });

  it("is audited once per change of address, and a request from the same address costs no round trip for it", async () => {
    const org = await organization();
    const first = await get("/v1/policies", org.key, from("198.51.100.7"));
    expect(await uses(org.keyId)).toEqual([
      { action: "api_key.use_from_new_ip", ip: "198.51.100.7", actor_id: org.keyId, organization_id: org.id },
    ]);
    const same = await get("/v1/policies", org.key, from("198.51.100.7"));
    expect(same.shardTrips).toBe(first.shardTrips - 1);
    expect(await uses(org.keyId)).toHaveLength(1);
    await get("/v1/policies", org.key, from("203.0.113.9"));
    expect((await uses(org.keyId)).map((u) => u.ip)).toEqual(["198.51.100.7", "203.0.113.9"]);
  });
});
