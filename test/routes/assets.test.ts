import { beforeAll, describe, expect, it } from "vitest";
import { del, get, patch, post } from "../helpers/api";
import { asset, organization, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

const assetDoc = (attributes: Record<string, unknown>) => ({ data: { type: "asset", attributes } });

describe("assets", () => {
  it.each([
    ["domain", "WWW.Example.COM.", "www.example.com"],
    ["wildcard_domain", "*.Example.com", "*.example.com"],
    ["url", "https://example.com/app", "https://example.com/app"],
    ["ip_address", "192.0.2.10", "192.0.2.10"],
    ["ip_address", "2001:DB8:0:0::1", "2001:db8::1"],
    ["cidr", "198.51.100.0/24", "198.51.100.0/24"],
    ["ios_app", "com.example.ios", "com.example.ios"],
    ["android_app", "com.example.android", "com.example.android"],
    ["source_code", "https://git.example.com/acme/app", "https://git.example.com/acme/app"],
    ["executable", "acme-agent 2.1 for Windows", "acme-agent 2.1 for Windows"],
    ["hardware", "Acme Router X1", "Acme Router X1"],
    ["other", "Anything else", "Anything else"],
  ])("creates a %s asset from %j, stored as %j", async (kind, value, stored) => {
    const res = await post("/v1/assets", org.key, assetDoc({ kind, value, short_description: "d" }));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ kind, value: stored, short_description: "d" });
    expect(res.body.data.relationships.organization.data.id).toBe(org.id);
  });

  it.each([
    ["domain", "localhost"],
    ["domain", "https://example.com"],
    ["wildcard_domain", "example.com"],
    ["url", "example.com"],
    ["ip_address", "256.1.1.1"],
    ["cidr", "10.0.0.0/33"],
    ["android_app", "not a package"],
    ["other", ""],
  ])("answers 422 to a %s of %j at /data/attributes/value", async (kind, value) => {
    const res = await post("/v1/assets", org.key, assetDoc({ kind, value }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe("/data/attributes/value");
  });

  it("answers 422 to an unknown kind and to missing members", async () => {
    expect((await post("/v1/assets", org.key, assetDoc({ kind: "planet", value: "mars" }))).body.errors[0].source.pointer).toBe(
      "/data/attributes/kind",
    );
    const missing = await post("/v1/assets", org.key, assetDoc({}));
    expect(missing.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
      "/data/attributes/kind",
      "/data/attributes/value",
    ]);
  });

  it("keeps (kind, value) unique per organization, after normalization", async () => {
    expect((await post("/v1/assets", org.key, assetDoc({ kind: "domain", value: "unique.example.com" }))).status).toBe(201);
    const dup = await post("/v1/assets", org.key, assetDoc({ kind: "domain", value: "UNIQUE.example.com." }));
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0].source.pointer).toBe("/data/attributes/value");
    // Another organization may own the same value.
    const other = await organization();
    expect((await post("/v1/assets", other.key, assetDoc({ kind: "domain", value: "unique.example.com" }))).status).toBe(201);
  });

  it("updates, re-checking the value against the kind it will have", async () => {
    const a = await asset(org, { kind: "domain", value: "change.example.com" });
    const ok = await patch(`/v1/assets/${a.id}`, org.key, {
      data: { type: "asset", id: a.id, attributes: { value: "Changed.example.com", short_description: "x" } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.attributes).toMatchObject({ kind: "domain", value: "changed.example.com", short_description: "x" });
    const badKind = await patch(`/v1/assets/${a.id}`, org.key, { data: { type: "asset", attributes: { kind: "ip_address" } } });
    expect(badKind.status).toBe(422);
    expect(badKind.body.errors[0].source.pointer).toBe("/data/attributes/kind");
    const both = await patch(`/v1/assets/${a.id}`, org.key, {
      data: { type: "asset", attributes: { kind: "ip_address", value: "192.0.2.1" } },
    });
    expect(both.body.data.attributes).toMatchObject({ kind: "ip_address", value: "192.0.2.1" });
  });

  it("accepts an update without attributes (nothing to change)", async () => {
    const a = await asset(org);
    const res = await patch(`/v1/assets/${a.id}`, org.key, { data: { type: "asset", id: a.id } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.value).toBe(a.attributes.value);
  });

  it("refuses an update that collides with another asset", async () => {
    await asset(org, { kind: "domain", value: "first.example.com" });
    const second = await asset(org, { kind: "domain", value: "second.example.com" });
    const res = await patch(`/v1/assets/${second.id}`, org.key, { data: { type: "asset", attributes: { value: "first.example.com" } } });
    expect(res.status).toBe(422);
    expect((await get(`/v1/assets/${second.id}`, org.key)).body.data.attributes.value).toBe("second.example.com");
  });

  it("filters by q[kind_eq] and refuses an unknown kind there with 400", async () => {
    const fresh = await organization();
    await asset(fresh, { kind: "domain", value: "a.example.com" });
    await asset(fresh, { kind: "ip_address", value: "192.0.2.44" });
    const res = await get("/v1/assets?q[kind_eq]=ip_address", fresh.key);
    expect(res.body.data.map((a: { attributes: { value: string } }) => a.attributes.value)).toEqual(["192.0.2.44"]);
    const bad = await get("/v1/assets?q[kind_eq]=planet", fresh.key);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source).toEqual({ parameter: "q[kind_eq]" });
  });

  it("deletes with 204 and an empty body, then answers 404", async () => {
    const a = await asset(org);
    const res = await del(`/v1/assets/${a.id}`, org.key);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await get(`/v1/assets/${a.id}`, org.key)).status).toBe(404);
    expect((await del(`/v1/assets/${a.id}`, org.key)).status).toBe(404);
  });

  it("lets an operator create an asset for a named unclaimed organization, 403s a claimed one and 422s an unknown one", async () => {
    const rel = (id: string) => ({ organization: { data: { type: "organization", id } } });
    const unclaimed = await organization({ claimed: false });
    const ok = await post("/v1/assets", org.operatorKey, {
      data: { type: "asset", attributes: { kind: "domain", value: "op.example.com" }, relationships: rel(unclaimed.id) },
    });
    expect(ok.status).toBe(201);
    const claimed = await post("/v1/assets", org.operatorKey, {
      data: { type: "asset", attributes: { kind: "domain", value: "op.example.com" }, relationships: rel(org.id) },
    });
    expect([claimed.status, claimed.body.errors[0].detail]).toEqual([
      403,
      "Operator keys may change the assets of unclaimed organizations only.",
    ]);
    const bad = await post("/v1/assets", org.operatorKey, {
      data: {
        type: "asset",
        attributes: { kind: "domain", value: "op.example.com" },
        relationships: rel("01900000-0000-7000-8000-00000000beef"),
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source.pointer).toBe("/data/relationships/organization/data/id");
  });
});
