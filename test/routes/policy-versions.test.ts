import canonicalize from "canonicalize";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { primaryDb } from "../../src/db";
import { versionUnversionedPolicies } from "../../src/services/policy-versions";
import { api, get, patch } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization, vuln } from "../helpers/factories";
import { runQueue } from "../helpers/queue";
import { NEIGHBOUR } from "../helpers/world";

// A policy's public terms, versioned: each change of them is a version that never changes, hashed over
// its RFC 8785 canonical JSON. The hash is checked with the canonicalize library and WebCrypto, never
// with the project's own code.

const sha256 = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

const versions = async (org: TestOrganization, id: string) =>
  (await get(`/v1/policies/${id}/versions?sort=created_at&page[size]=100`, org.key)).body.data as any[];
const change = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/policies/${id}`, org.key, { data: { type: "policy", id, attributes } });

describe("policy versions", () => {
  it("start at 1 with the terms as created, hashed over their canonical JSON", async () => {
    const org = await organization();
    const p = await policy(org, {
      name: "Web VDP",
      safe_harbor: "full",
      cvd_timeline: 90,
      response_targets: { acknowledge_hours: 24 },
      in_scope_assets: [{ kind: "domain", value: "shop.example.com", short_description: "The shop" }],
    });
    const [v1] = await versions(org, p.id);
    expect(v1.attributes.number).toBe(1);
    expect(v1.links.self).toBe(`/v1/policies/${p.id}/versions/1`);
    expect(v1.relationships.policy.data).toEqual({ type: "policy", id: p.id });
    expect(v1.attributes.terms).toMatchObject({
      name: "Web VDP",
      safe_harbor: "full",
      cvd_timeline: 90,
      // Every target, the defaults filled in: what a report is held to.
      response_targets: { acknowledge_hours: 24, triage_hours: 240 },
      in_scope_assets: [{ kind: "domain", value: "shop.example.com", short_description: "The shop" }],
      out_of_scope_assets: [],
    });
    expect(v1.attributes.sha256).toBe(await sha256(canonicalize(v1.attributes.terms)!));
    // The stored text is the canonical form itself.
    const stored = (await env.DB.prepare("SELECT terms FROM policy_versions WHERE policy_id = ?").bind(p.id).first<{ terms: string }>())!;
    expect(stored.terms).toBe(canonicalize(JSON.parse(stored.terms)));
    const shown = await get(`/v1/policies/${p.id}/versions/1`, org.key);
    expect(shown.body.data).toEqual(v1);
  });

  it("grow by one for each change of the terms, and by none for anything else", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP", safe_harbor: "partial" });
    expect((await change(org, p.id, { safe_harbor: "full" })).status).toBe(200);
    expect((await change(org, p.id, { response_targets: { triage_hours: 120 } })).status).toBe(200);
    // Not terms: publication, hosting, branding. And the same terms again.
    expect(
      (await change(org, p.id, { published_at: PUBLISHED, custom_domain: "vdp.example.com", branding: { primary_color: "#112233" } }))
        .status,
    ).toBe(200);
    expect((await change(org, p.id, { safe_harbor: "full", name: "VDP" })).status).toBe(200);
    const all = await versions(org, p.id);
    expect(all.map((v) => [v.attributes.number, v.attributes.terms.safe_harbor, v.attributes.terms.response_targets.triage_hours])).toEqual(
      [
        [1, "partial", 240],
        [2, "full", 240],
        [3, "full", 120],
      ],
    );
    for (const v of all) expect(v.attributes.sha256).toBe(await sha256(canonicalize(v.attributes.terms)!));
    expect(new Set(all.map((v) => v.attributes.sha256)).size).toBe(3);
  });

  it("come to a policy made before versions existed by the cron, once, as its terms stand", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Older", cvd_timeline: 45 });
    // As a policy from before the migration: no version.
    await env.DB.prepare("DELETE FROM policy_versions WHERE policy_id = ?").bind(p.id).run();
    expect((await get(`/v1/policies/${p.id}/versions`, org.key)).body.data).toEqual([]);
    expect(await versionUnversionedPolicies(primaryDb(env.DB))).toBeGreaterThanOrEqual(1);
    const [v1] = await versions(org, p.id);
    expect([v1.attributes.number, v1.attributes.terms.name, v1.attributes.terms.cvd_timeline]).toEqual([1, "Older", 45]);
    expect(v1.attributes.sha256).toBe(await sha256(canonicalize(v1.attributes.terms)!));
    expect(await versionUnversionedPolicies(primaryDb(env.DB))).toBe(0);
    expect(await versions(org, p.id)).toHaveLength(1);
  });

  it("never change: the database refuses an update of one", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP" });
    await expect(env.DB.prepare("UPDATE policy_versions SET terms = '{}' WHERE policy_id = ?").bind(p.id).run()).rejects.toThrow(
      /immutable/,
    );
    expect((await versions(org, p.id))[0].attributes.terms.name).toBe("VDP");
  });

  it("of a published policy are public by its shortcode; a draft's, another number or a bad one are 404", async () => {
    const org = await organization();
    const published = await policy(org, { name: "Open", published_at: PUBLISHED });
    const draft = await policy(org, { name: "Draft" });
    const res = await api("GET", `/v1/p/policies/${published.attributes.shortcode.toLowerCase()}/versions/1`);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.terms.name).toBe("Open");
    expect(res.body.links.self).toBe(`/v1/p/policies/${published.attributes.shortcode}/versions/1`);
    expect(res.body.data.attributes).toEqual((await get(`/v1/policies/${published.id}/versions/1`, org.key)).body.data.attributes);
    for (const path of [
      `/v1/p/policies/${draft.attributes.shortcode}/versions/1`,
      `/v1/p/policies/${published.attributes.shortcode}/versions/2`,
      `/v1/p/policies/${published.attributes.shortcode}/versions/0`,
      `/v1/p/policies/${published.attributes.shortcode}/versions/x`,
    ]) {
      const miss = await api("GET", path);
      expect([path, miss.status, miss.body.errors[0].code]).toEqual([path, 404, "not_found"]);
    }
    const other = await organization();
    expect((await get(`/v1/policies/${published.id}/versions/1`, other.key)).status).toBe(404);
    expect((await get(`/v1/policies/${published.id}/versions`, other.key)).status).toBe(404);
    expect((await get(`/v1/policies/${published.id}/versions/9`, org.key)).body.errors[0].detail).toBe(
      "The policy has no version with that number.",
    );
  });

  it("bind a report to its own brief's policy, at the version in force when it came, whoever changed a policy last", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP", safe_harbor: "partial", published_at: PUBLISHED });
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    // Another organization's policy changes last, and has the highest version numbers of the database.
    const neighbour = await neighbourPolicy();
    await env.DB.prepare("UPDATE policies SET updated_at = ? WHERE id = ?")
      .bind(new Date(Date.now() + 60_000).toISOString(), neighbour.id)
      .run();
    const v = await vuln(org, b.id);
    const row = await reportVersion(v.id);
    const [v1] = await versions(org, p.id);
    expect(row).toEqual({ id: v1.id, number: 1, sha256: v1.attributes.sha256 });
    expect(row.number).toBeLessThan(neighbour.number);
    expect((await get(`/v1/policies/${p.id}/versions/${row.number}`, org.key)).status).toBe(200);
    // A brief without a policy binds none.
    const bare = await brief(org, { published_at: PUBLISHED });
    expect(await reportVersion((await vuln(org, bare.id)).id)).toEqual({ id: null, number: null, sha256: null });
  });

  it("of reports bound to another policy's version are repaired by a migration, the as-received record too", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP", safe_harbor: "partial", published_at: PUBLISHED });
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    const early = await vuln(org, b.id);
    await change(org, p.id, { safe_harbor: "full" });
    const late = await vuln(org, b.id);
    const bare = await vuln(org, (await brief(org, { published_at: PUBLISHED })).id);
    const [v1, v2] = await versions(org, p.id);
    // As the defect wrote them: every report bound to the neighbour's newest version, its record too.
    const neighbour = await neighbourPolicy();
    const ids = [early.id, late.id, bare.id];
    for (const id of ids) {
      await env.DB.prepare("UPDATE vulns SET policy_version_id = ?, policy_version_number = ?, policy_version_sha256 = ? WHERE id = ?")
        .bind(neighbour.versionId, neighbour.number, neighbour.sha256, id)
        .run();
    }
    const created = await env.DB.prepare(
      `SELECT id FROM events WHERE type = 'Vuln::Created' AND vuln_id IN (SELECT value FROM json_each(?))`,
    )
      .bind(JSON.stringify(ids))
      .all<{ id: string }>();
    await runQueue(created.results.map((e) => e.id));
    expect((await recordVersion(early.id)).number).toBe(neighbour.number);

    const repair = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_report_policy_version_repair.sql"))!;
    await env.DB.batch(repair.queries.map((q) => env.DB.prepare(q)));

    expect(await reportVersion(early.id)).toEqual({ id: v1.id, number: 1, sha256: v1.attributes.sha256 });
    expect(await reportVersion(late.id)).toEqual({ id: v2.id, number: 2, sha256: v2.attributes.sha256 });
    expect(await reportVersion(bare.id)).toEqual({ id: null, number: null, sha256: null });
    expect(await recordVersion(early.id)).toEqual({ number: 1, sha256: v1.attributes.sha256 });
    expect(await recordVersion(late.id)).toEqual({ number: 2, sha256: v2.attributes.sha256 });
    expect(await recordVersion(bare.id)).toEqual({ number: null, sha256: null });
    // The neighbour's own reports kept their version, and the record is immutable again.
    const theirs = await env.DB.prepare(
      "SELECT DISTINCT policy_version_number AS n FROM vulns WHERE organization_id = (SELECT id FROM organizations WHERE slug = ?)",
    )
      .bind(NEIGHBOUR.slug)
      .all<{ n: number }>();
    expect(theirs.results).toEqual([{ n: neighbour.number }]);
    await expect(
      env.DB.prepare("UPDATE vuln_records SET policy_version_number = 9 WHERE vuln_id = ?").bind(early.id).run(),
    ).rejects.toThrow(/immutable/);
  });
});

async function neighbourPolicy() {
  return (await env.DB.prepare(
    `SELECT p.id, pv.id AS versionId, pv.number, pv.sha256 FROM policies p JOIN policy_versions pv ON pv.policy_id = p.id
     WHERE p.organization_id = (SELECT id FROM organizations WHERE slug = ?) ORDER BY pv.number DESC LIMIT 1`,
  )
    .bind(NEIGHBOUR.slug)
    .first<{ id: string; versionId: string; number: number; sha256: string }>())!;
}

const reportVersion = async (id: string) =>
  (await env.DB.prepare(
    "SELECT policy_version_id AS id, policy_version_number AS number, policy_version_sha256 AS sha256 FROM vulns WHERE id = ?",
  )
    .bind(id)
    .first<{ id: string | null; number: number | null; sha256: string | null }>())!;

const recordVersion = async (id: string) =>
  (await env.DB.prepare("SELECT policy_version_number AS number, policy_version_sha256 AS sha256 FROM vuln_records WHERE vuln_id = ?")
    .bind(id)
    .first<{ number: number | null; sha256: string | null }>())!;
