import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, get, post } from "../helpers/api";
import { countingD1 } from "../helpers/d1-counter";
import { directory, listing, organization, operatorKey } from "../helpers/factories";
import { NEIGHBOUR } from "../helpers/world";
import { databaseOf, shardOf, tenantBindings } from "../helpers/shards";

// The sharded world: a catalog and two tenant databases. Organizations are placed in the shard with most
// room, their names claimed in the catalog, and every request finds its shard before it reads.

const names = (organizationId: string) =>
  env.CATALOG.prepare("SELECT kind, name FROM catalog_names WHERE organization_id = ? ORDER BY kind")
    .bind(organizationId)
    .all<{ kind: string; name: string }>();

describe("a sharded deployment", () => {
  it("places organizations in both shards and keeps each one's rows in its own", async () => {
    const a = await organization();
    const b = await organization();
    expect(new Set([await shardOf(a.id), await shardOf(b.id)])).toEqual(new Set(["TENANT_1", "TENANT_2"]));
    for (const org of [a, b]) {
      const own = await databaseOf(org.id);
      const other = Object.values(tenantBindings()).find((d1) => d1 !== own)!;
      expect(await own.prepare("SELECT count(*) AS n FROM organizations WHERE id = ?").bind(org.id).first("n")).toBe(1);
      expect(await other.prepare("SELECT count(*) AS n FROM organizations WHERE id = ?").bind(org.id).first("n")).toBe(0);
      expect((await names(org.id)).results.map((r) => r.kind)).toEqual(["api_key", "organization_slug"]);
      // The catalog keeps a copy of the organization's row (operators' lists and directories read it), and nothing else of it.
      expect(await env.CATALOG.prepare("SELECT count(*) AS n FROM organizations WHERE id = ?").bind(org.id).first("n")).toBe(1);
      expect(await env.CATALOG.prepare("SELECT count(*) AS n FROM policies").first("n")).toBe(0);
    }
  });

  it("answers each key from its own shard, and a policy made with it lands there", async () => {
    const a = await organization();
    const b = await organization();
    for (const org of [a, b]) {
      const made = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: `Policy of ${org.slug}` } } });
      expect(made.status).toBe(201);
      const listed = await get("/v1/policies", org.key);
      expect(listed.body.data.map((p: { attributes: { name: string } }) => p.attributes.name)).toEqual([`Policy of ${org.slug}`]);
      expect(
        await (await databaseOf(org.id)).prepare("SELECT count(*) AS n FROM policies WHERE id = ?").bind(made.body.data.id).first("n"),
      ).toBe(1);
    }
  });

  it("keeps slugs unique across shards and gives a changed slug's old name back", async () => {
    const a = await organization();
    const b = await organization();
    expect(await shardOf(a.id)).not.toBe(await shardOf(b.id));
    const operator = await operatorKey();
    const taken = await post("/v1/organizations", operator, {
      data: { type: "organization", attributes: { name: "Copy", slug: a.slug, website_url: "https://example.com" } },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].source.pointer).toBe("/data/attributes/slug");
    // b moves to a fresh slug: its old one is free again, for an organization in any shard.
    const renamed = await api("PATCH", `/v1/organizations/${b.id}`, {
      key: operator,
      body: { data: { type: "organization", id: b.id, attributes: { slug: `${b.slug}-new` } } },
    });
    expect(renamed.status).toBe(200);
    const reused = await post("/v1/organizations", operator, {
      data: { type: "organization", attributes: { name: "Reuse", slug: b.slug, website_url: "https://example.com" } },
    });
    expect(reused.status).toBe(201);
  });

  it("looks a key up in the catalog once, then from the edge cache: a warm request reads only its shard", async () => {
    const a = await organization();
    await get("/v1/policies", a.key);
    const catalogReads = async () => {
      const counted = countingD1(env.CATALOG);
      const res = await get("/v1/policies", a.key, { env: { CATALOG: counted.db } as Partial<Env> });
      expect(res.status).toBe(200);
      return { catalog: counted.count(), all: res.roundTrips };
    };
    // Cold (a new key of the same organization): one catalog read, then the shard's.
    const spare = await post(`/v1/organizations/${a.id}/api_keys`, a.operatorKey, {
      data: { type: "api_key", attributes: { name: "cold" } },
    });
    const cold = countingD1(env.CATALOG);
    expect((await get("/v1/policies", spare.body.data.attributes.key, { env: { CATALOG: cold.db } as Partial<Env> })).status).toBe(200);
    expect(cold.count()).toBe(1);
    // Warm: the catalog is not read at all; the shard answers the key and the list in the same trips as one database.
    expect(await catalogReads()).toEqual({ catalog: 0, all: 2 });
  });

  it("refuses a revoked key and forgets it in the catalog", async () => {
    const a = await organization();
    const made = await post(`/v1/organizations/${a.id}/api_keys`, a.operatorKey, {
      data: { type: "api_key", attributes: { name: "spare" } },
    });
    expect(made.status).toBe(201);
    const spare = made.body.data.attributes.key as string;
    expect((await get("/v1/policies", spare)).status).toBe(200);
    expect((await api("DELETE", `/v1/api_keys/${made.body.data.id}`, { key: a.key })).status).toBe(204);
    expect((await get("/v1/policies", spare)).status).toBe(401);
    expect((await names(a.id)).results.filter((r) => r.kind === "api_key")).toHaveLength(1);
  });

  it("seeds the neighbour through the sharded API like any organization", async () => {
    const row = await env.CATALOG.prepare(
      "SELECT t.shard FROM catalog_names n JOIN tenants t ON t.organization_id = n.organization_id WHERE n.kind = 'organization_slug' AND n.name = ?",
    )
      .bind(NEIGHBOUR.slug)
      .first<{ shard: string }>();
    expect(row?.shard).toMatch(/^TENANT_[12]$/);
    const d1 = tenantBindings()[row!.shard]!;
    expect(await d1.prepare("SELECT count(*) AS n FROM vulns WHERE title = ?").bind(NEIGHBOUR.title).first("n")).toBe(3);
    expect(await d1.prepare("SELECT count(*) AS n FROM events WHERE processed_at IS NULL").first("n")).toBe(0);
  });

  it("writes an operator's change for an organization in that organization's shard, and keeps directories in every shard", async () => {
    const a = await organization();
    const b = await organization();
    const d = await directory(a.operatorKey);
    for (const org of [a, b]) {
      const l = await listing(org.operatorKey, d.id, org.id);
      const count = (d1: D1Database, table: string, id: string) =>
        d1.prepare(`SELECT count(*) AS n FROM ${table} WHERE id = ?`).bind(id).first("n");
      expect(await count(await databaseOf(org.id), "directory_listings", l.id)).toBe(1);
      expect(await count(env.CATALOG, "directory_listings", l.id)).toBe(0);
      for (const d1 of [env.CATALOG, ...Object.values(tenantBindings())]) expect(await count(d1, "directories", d.id)).toBe(1);
      // Read back by the operator by its id alone: the request finds the shard that holds it.
      expect((await get(`/v1/directory_listings/${l.id}`, org.operatorKey)).body.data.relationships.organization.data.id).toBe(org.id);
    }
  });
});
