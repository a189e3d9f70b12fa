import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { shardCatalog } from "../../src/db/catalog";
import { shardsOf } from "../../src/db/shards";
import { forgetName } from "../../src/http/shard-lookup";
import { checkCustomDomainClaims } from "../../src/services/custom-domains";
import { PLATFORM_CALLER } from "../../src/services/context";
import { api, del, get, patch, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { fakeDns } from "../helpers/dns";
import { fakeQueue } from "../helpers/events";
import { asReporter, submitReport } from "../helpers/reporter";
import { databaseOf, shardOf } from "../helpers/shards";

// The names public routes find a shard by are unique across shards, like the tenant's own unique indexes,
// and go back to the catalog when what they named goes: another organization, in any shard, may take them.

const holder = (kind: string, name: string) =>
  env.CATALOG.prepare("SELECT organization_id AS id FROM catalog_names WHERE kind = ? AND name = ?").bind(kind, name).first<string>("id");

/** Two organizations in different shards. */
async function apart(): Promise<[TestOrganization, TestOrganization]> {
  const a = await organization();
  const b = await organization();
  expect(await shardOf(a.id)).not.toBe(await shardOf(b.id));
  return [a, b];
}

const named = (org: TestOrganization, domain: string | null, id?: string) =>
  id
    ? patch(`/v1/policies/${id}`, org.key, { data: { type: "policy", id, attributes: { custom_domain: domain } } })
    : post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "VDP", custom_domain: domain } } });

const taken = (res: { status: number; body: any }) => [res.status, res.body?.errors?.[0]?.source?.pointer];

let dns: ReturnType<typeof fakeDns> | undefined;
afterEach(() => dns?.restore());

describe("names across shards", () => {
  it("keeps a custom domain one policy's on the whole platform, whatever its case, and frees it when the policy names another", async () => {
    const [a, b] = await apart();
    const host = `vdp-${a.slug}.example.org`;
    const first = await named(a, host);
    expect(first.status).toBe(201);
    expect(await holder("domain", host)).toBe(a.id);
    // Neither a new policy nor a change of one in the other shard takes it.
    expect(taken(await named(b, host.toUpperCase()))).toEqual([422, "/data/attributes/custom_domain"]);
    const other = await named(b, null);
    expect(taken(await named(b, host, other.body.data.id))).toEqual([422, "/data/attributes/custom_domain"]);
    // a moves on: the domain is b's to take, and a's new one is a's.
    expect((await named(a, `new-${host}`, first.body.data.id)).status).toBe(200);
    expect(await holder("domain", host)).toBeNull();
    expect((await named(b, host, other.body.data.id)).status).toBe(200);
    expect([await holder("domain", host), await holder("domain", `new-${host}`)]).toEqual([b.id, a.id]);
    // Named no more, or deleted with its policy: free again.
    expect((await named(b, null, other.body.data.id)).status).toBe(200);
    expect((await del(`/v1/policies/${first.body.data.id}`, a.key)).status).toBe(204);
    expect([await holder("domain", host), await holder("domain", `new-${host}`)]).toEqual([null, null]);
  });

  it("keeps an organization's domain when its own second policy is refused it", async () => {
    dns = fakeDns();
    const org = await organization();
    const host = `vdp-${org.slug}.example.org`;
    const p = await policy(org, { name: "Acme VDP", custom_domain: host, published_at: PUBLISHED });
    const { custom_domain_verification: v } = (await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes;
    dns.publish(v.record_name, v.record_value);
    expect((await post(`/v1/policies/${p.id}/verify_custom_domain`, org.key, undefined)).status).toBe(200);
    // The tenant's unique index refuses the second policy; the catalog keeps the name the first holds.
    expect(taken(await named(org, host))).toEqual([422, "/data/attributes/custom_domain"]);
    expect(await holder("domain", host)).toBe(org.id);
    const txt = await api("GET", "/.well-known/security.txt", { origin: `https://${host}` });
    expect([txt.status, txt.text.includes(`/p/${p.attributes.shortcode}`)]).toEqual([200, true]);
  });

  it("gives a claim never proven back to the catalog when the cron releases it", async () => {
    dns = fakeDns();
    const [a, b] = await apart();
    const host = `late-${a.slug}.example.org`;
    expect((await named(a, host)).status).toBe(201);
    expect(await holder("domain", host)).toBe(a.id);
    const shards = shardsOf(env);
    const platform = {
      db: createDb((await databaseOf(a.id)).withSession("first-primary")),
      caller: PLATFORM_CALLER,
      queue: fakeQueue().queue,
      defer: () => {},
      catalog: shardCatalog(shards, forgetName),
    };
    await checkCustomDomainClaims(platform, async () => ({ ok: true, values: [] }), new Date(Date.now() + 8 * 86_400_000));
    expect(await holder("domain", host)).toBeNull();
    expect((await named(b, host)).status).toBe(201);
  });

  it("names a policy's shortcode and an advisory's id where they were made, and forgets them when they go", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Acme VDP", published_at: PUBLISHED });
    expect(await holder("policy", p.attributes.shortcode)).toBe(org.id);
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    const report = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
    const draft = await post("/v1/advisories", org.key, {
      data: {
        type: "advisory",
        attributes: {
          title: "Draft",
          summary: "S",
          affected: [{ vendor: "Acme", product: "Web", versions: [{ version: "1", status: "affected" }] }],
        },
        relationships: { vulns: { data: [{ type: "vuln", id: report.id }] } },
      },
    });
    expect(draft.status).toBe(201);
    expect(await holder("advisory", draft.body.data.id)).toBe(org.id);
    expect((await del(`/v1/advisories/${draft.body.data.id}`, org.key)).status).toBe(204);
    expect((await del(`/v1/policies/${p.id}`, org.key)).status).toBe(204);
    expect([await holder("advisory", draft.body.data.id), await holder("policy", p.attributes.shortcode)]).toEqual([null, null]);
    expect((await api("GET", `/v1/p/policies/${p.attributes.shortcode}/versions/1`)).status).toBe(404);
  });

  it("keeps a deleted report's token in the catalog: its reporter is told it was deleted, from its own shard", async () => {
    const [, b] = await apart();
    const report = await submitReport(b);
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(report.token)))]
      .map((x) => x.toString(16).padStart(2, "0"))
      .join("");
    expect(await holder("report_token", hash)).toBe(b.id);
    expect((await del(`/v1/vulns/${report.id}`, b.key)).status).toBe(204);
    const gone = await asReporter("GET", "/v1/p/report", report.token);
    expect([gone.status, gone.body.errors[0].detail]).toEqual([
      404,
      "The organization deleted this report; the follow-up token reaches nothing any more.",
    ]);
  });
});
