import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { rewritingSql } from "../helpers/d1-faults";
import { expectedErrorLogs } from "../helpers/logs";
import { operatorKey } from "../helpers/factories";
import { shardOf, tenantBindings } from "../helpers/shards";

// An operator's POST /v1/organizations reads the catalog (it names no organization yet) and writes the new
// organization in the shard with most room: its Idempotency-Key record is kept in the catalog, where the
// replay, unrouted as well, looks for it.

const create = (operator: string, key: string, slug: string) =>
  api("POST", "/v1/organizations", {
    key: operator,
    headers: { "Idempotency-Key": key },
    body: { data: { type: "organization", attributes: { name: `Org ${slug}`, slug } } },
  });

const records = (d1: D1Database, key: string) =>
  d1.prepare("SELECT state FROM idempotency_keys WHERE key = ?").bind(key).all<{ state: string }>();

describe("an operator's Idempotency-Key on a new organization", () => {
  it("replays the stored 201 whichever shard the organization went to, from the record the catalog keeps", async () => {
    const operator = await operatorKey();
    const shards = new Set<string>();
    // Placement alternates between the two empty shards: two organizations, one in each.
    for (const n of [1, 2]) {
      const slug = `idem-shard-${n}`;
      const first = await create(operator, `k-shard-${n}`, slug);
      expect(first.status).toBe(201);
      const replay = await create(operator, `k-shard-${n}`, slug);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
      const shard = await shardOf(first.body.data.id);
      shards.add(shard);
      expect((await records(env.CATALOG, `k-shard-${n}`)).results).toEqual([{ state: "done" }]);
      for (const d1 of Object.values(tenantBindings())) expect((await records(d1, `k-shard-${n}`)).results).toEqual([]);
      const own = tenantBindings()[shard]!;
      expect(await own.prepare("SELECT count(*) AS n FROM organizations WHERE slug = ?").bind(slug).first("n")).toBe(1);
    }
    expect(shards).toEqual(new Set(["TENANT_1", "TENANT_2"]));
  });

  it("answers another body with the same key 422 before it claims or places anything", async () => {
    const operator = await operatorKey();
    expect((await create(operator, "k-other", "idem-other-1")).status).toBe(201);
    const other = await create(operator, "k-other", "idem-other-2");
    expect(other.status).toBe(422);
    expect(other.body.errors[0]).toMatchObject({ code: "idempotency_key_reused", source: { header: "Idempotency-Key" } });
    // Its slug never reached the catalog, nor its organization any database.
    expect(await env.CATALOG.prepare("SELECT count(*) AS n FROM catalog_names WHERE name = 'idem-other-2'").first("n")).toBe(0);
    for (const d1 of [env.CATALOG, ...Object.values(tenantBindings())])
      expect(await d1.prepare("SELECT count(*) AS n FROM organizations WHERE slug = 'idem-other-2'").first("n")).toBe(0);
  });

  it("answers the replay from the catalog alone: no shard is read", async () => {
    const operator = await operatorKey();
    await create(operator, "k-trips", "idem-trips");
    const replay = await create(operator, "k-trips", "idem-trips");
    expect(replay.status).toBe(201);
    expect(replay.shardTrips).toBe(0);
  });

  it("keeps the organization when its record cannot be sealed after it: 201, a warning, and the retry waits on the record in flight", async () => {
    const operator = await operatorKey();
    const logs = expectedErrorLogs();
    const failing = rewritingSql((sql) => sql.replace(/update "idempotency_keys"/i, 'update "no_such_table"'));
    const first = await api("POST", "/v1/organizations", {
      key: operator,
      headers: { "Idempotency-Key": "k-unsealed" },
      body: { data: { type: "organization", attributes: { name: "Org idem-unsealed", slug: "idem-unsealed" } } },
      env: { DB: failing },
    });
    expect(first.status).toBe(201);
    expect(logs).toEqual([expect.objectContaining({ level: "warn", message: "idempotency key not sealed after its change" })]);
    expect(await shardOf(first.body.data.id)).toMatch(/^TENANT_/);
    const retry = await create(operator, "k-unsealed", "idem-unsealed");
    expect(retry.status).toBe(409);
    expect(retry.body.errors[0]).toMatchObject({ code: "conflict", source: { header: "Idempotency-Key" } });
  });
});
