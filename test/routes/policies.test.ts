import { beforeAll, describe, expect, it } from "vitest";
import { del, get, patch, post } from "../helpers/api";
import { asset, brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

const FULL = {
  name: "Acme VDP",
  short_description: "How to report to Acme",
  point_of_contact: "security@acme.example",
  cvd_timeline: 90,
  safe_harbor: "full",
  offers_bounty: false,
  offers_swag: true,
  hall_of_fame: true,
  contact_url: "https://acme.example/security",
  securitytxt_url: "https://acme.example/.well-known/security.txt",
  hosted_policy_url: "https://acme.example/vdp",
  public_disclosure: true,
  launch_date: "2026-03-01T10:00:00+02:00",
  policy_url_status: "alive",
  creation_mode: "template",
  hosting_mode: "custom_domain",
  custom_domain: "Security.Acme.Example",
  published_at: PUBLISHED,
  branding: {
    primary_color: "#112233",
    secondary_color: "#445566",
    accent_color: "#AABBCC",
    font_heading: "Inter",
    font_body: "Inter",
    google_fonts: ["Inter"],
  },
  in_scope_assets: [
    { kind: "domain", value: "Acme.Example", short_description: "Main" },
    { kind: "wildcard_domain", value: "*.acme.example" },
  ],
  out_of_scope_assets: [{ kind: "url", value: "https://status.acme.example/" }],
};

describe("policies", () => {
  it("stores every policy attribute and answers them back, normalized", async () => {
    const res = await post("/v1/policies", org.key, { data: { type: "policy", attributes: FULL } });
    expect(res.status).toBe(201);
    const a = res.body.data.attributes;
    expect(a).toMatchObject({
      ...FULL,
      launch_date: "2026-03-01T08:00:00.000Z",
      custom_domain: "security.acme.example",
      maturity_rating: 5,
      in_scope_assets: [
        { id: expect.any(String), kind: "domain", value: "acme.example", short_description: "Main" },
        { id: expect.any(String), kind: "wildcard_domain", value: "*.acme.example", short_description: null },
      ],
      out_of_scope_assets: [{ id: expect.any(String), kind: "url", value: "https://status.acme.example/", short_description: null }],
    });
    expect(a.shortcode).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(res.body.data.relationships).toEqual({
      organization: { data: { type: "organization", id: org.id } },
      policy_template: { data: null },
      assets: { data: [] },
      briefs: { data: [] },
    });
    const shown = await get(`/v1/policies/${res.body.data.id}`, org.key);
    expect(shown.body.data).toEqual(res.body.data);
  });

  it("creates a draft from an empty attributes object", async () => {
    const res = await post("/v1/policies", org.key, { data: { type: "policy", attributes: {} } });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ published_at: null, maturity_rating: 0, in_scope_assets: [], name: null });
  });

  it.each([
    ["safe_harbor", "sometimes"],
    ["policy_url_status", "up"],
    ["creation_mode", "magic"],
    ["hosting_mode", "cloud"],
    ["cvd_timeline", 366],
    ["cvd_timeline", -1],
    ["cvd_timeline", 1.5],
    ["cvd_timeline", "90"],
    ["contact_url", "not a url"],
    ["securitytxt_url", "ftp://acme.example/security.txt"],
    ["hosted_policy_url", "javascript:alert(1)"],
    ["custom_domain", "not a host"],
    ["published_at", "yesterday"],
    ["published_at", "9999-12-31T23:59:59-12:00"],
    ["launch_date", "+010000-01-01T00:00:00Z"],
    ["launch_date", "2026-13-01T00:00:00Z"],
    ["offers_bounty", "true"],
    ["name", "x".repeat(201)],
    ["short_description", "x".repeat(1001)],
    ["branding", { primary_color: "red" }],
    ["branding", { logo: "x" }],
    ["in_scope_assets", [{ kind: "domain", value: "not a domain" }]],
    ["in_scope_assets", [{ kind: "planet", value: "mars" }]],
    ["in_scope_assets", [{ kind: "domain", value: "a.example", id: "x" }]],
    ["in_scope_assets", "acme.example"],
  ])("answers 422 to %s = %j and writes nothing", async (attribute, value) => {
    const before = (await get("/v1/policies", org.key)).body.meta.page.total;
    const res = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { [attribute]: value } } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe("validation_error");
    expect(res.body.errors[0].source.pointer.startsWith(`/data/attributes/${attribute}`)).toBe(true);
    // JSON:API: the errors are unique (each problem once, however many checks it failed).
    expect(new Set(res.body.errors.map((e: unknown) => JSON.stringify(e))).size).toBe(res.body.errors.length);
    expect((await get("/v1/policies", org.key)).body.meta.page.total).toBe(before);
  });

  it("names a bad nested member once", async () => {
    const res = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { branding: { primary_color: "red" } } } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => [e.source.pointer, e.detail])).toEqual([
      ["/data/attributes/branding/primary_color", "data.attributes.branding.primary_color: must be a color like #1a2b3c"],
    ]);
  });

  it("points at the exact scope entry that is wrong", async () => {
    const res = await post("/v1/policies", org.key, {
      data: {
        type: "policy",
        attributes: {
          in_scope_assets: [
            { kind: "domain", value: "ok.example" },
            { kind: "ip_address", value: "999.1.1.1" },
          ],
        },
      },
    });
    expect(res.body.errors).toEqual([expect.objectContaining({ source: { pointer: "/data/attributes/in_scope_assets/1/value" } })]);
  });

  it("updates only what is sent, clears with null, and keeps scope ids of unchanged entries", async () => {
    const created = (
      await post("/v1/policies", org.key, { data: { type: "policy", attributes: { ...FULL, custom_domain: "security-2.acme.example" } } })
    ).body.data;
    const kept = created.attributes.in_scope_assets[0];
    const res = await patch(`/v1/policies/${created.id}`, org.key, {
      data: {
        type: "policy",
        id: created.id,
        attributes: {
          name: "Renamed",
          hosted_policy_url: null,
          in_scope_assets: [
            { kind: "domain", value: "acme.example", short_description: "Main" },
            { kind: "domain", value: "new.acme.example" },
          ],
        },
      },
    });
    expect(res.status).toBe(200);
    const a = res.body.data.attributes;
    expect(a.name).toBe("Renamed");
    expect(a.hosted_policy_url).toBeNull();
    expect(a.point_of_contact).toBe(FULL.point_of_contact);
    expect(a.in_scope_assets[0]).toEqual(kept);
    expect(a.in_scope_assets[1].id).not.toBe(created.attributes.in_scope_assets[1].id);
    expect(a.out_of_scope_assets).toEqual(created.attributes.out_of_scope_assets);
    expect(a.shortcode).toBe(created.attributes.shortcode);
    expect(a.created_at).toBe(created.attributes.created_at);
  });

  it("recomputes maturity_rating when the policy changes", async () => {
    const created = (
      await post("/v1/policies", org.key, { data: { type: "policy", attributes: { ...FULL, custom_domain: "security-3.acme.example" } } })
    ).body.data;
    expect(created.attributes.maturity_rating).toBe(5);
    const steps: [Record<string, unknown>, number][] = [
      [{ cvd_timeline: 120 }, 4],
      [{ safe_harbor: "partial" }, 3],
      [{ safe_harbor: "none" }, 2],
      [{ in_scope_assets: [] }, 1],
      [{ point_of_contact: null, contact_url: null, securitytxt_url: null }, 0],
      [{ contact_url: "https://acme.example/c", published_at: "2999-01-01T00:00:00Z" }, 0],
      [{ published_at: PUBLISHED }, 1],
    ];
    for (const [attributes, rating] of steps) {
      const res = await patch(`/v1/policies/${created.id}`, org.key, { data: { type: "policy", attributes } });
      expect([attributes, res.body.data.attributes.maturity_rating]).toEqual([attributes, rating]);
    }
  });

  it("links organization assets through the assets relationship", async () => {
    const a1 = await asset(org);
    const a2 = await asset(org);
    const created = await post("/v1/policies", org.key, {
      data: {
        type: "policy",
        attributes: {},
        relationships: {
          assets: {
            data: [
              { type: "asset", id: a1.id },
              { type: "asset", id: a1.id },
            ],
          },
        },
      },
    });
    expect(created.body.data.relationships.assets.data).toEqual([{ type: "asset", id: a1.id }]);
    const res = await patch(`/v1/policies/${created.body.data.id}`, org.key, {
      data: {
        type: "policy",
        attributes: {},
        relationships: {
          assets: {
            data: [
              { type: "asset", id: a2.id },
              { type: "asset", id: a1.id },
            ],
          },
        },
      },
    });
    expect(res.body.data.relationships.assets.data).toEqual([a1.id, a2.id].sort().map((id) => ({ type: "asset", id })));
    const shown = await get(`/v1/policies/${created.body.data.id}`, org.key);
    expect(shown.body.data.relationships.assets).toEqual(res.body.data.relationships.assets);
    // Deleting an asset removes it from the relationship.
    await del(`/v1/assets/${a1.id}`, org.key);
    expect((await get(`/v1/policies/${created.body.data.id}`, org.key)).body.data.relationships.assets.data).toEqual([
      { type: "asset", id: a2.id },
    ]);
  });

  it("links up to 500 assets (more than D1 binds in one statement)", async () => {
    const fresh = await organization();
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await post("/v1/assets", fresh.key, { data: { type: "asset", attributes: { kind: "other", value: `asset ${i}` } } });
      ids.push(res.body.data.id);
    }
    const res = await post("/v1/policies", fresh.key, {
      data: { type: "policy", attributes: {}, relationships: { assets: { data: ids.map((id) => ({ type: "asset", id })) } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.relationships.assets.data).toHaveLength(120);
    const shown = await get(`/v1/policies/${res.body.data.id}`, fresh.key);
    expect(shown.body.data.relationships.assets.data).toHaveLength(120);
    const tooMany = await post("/v1/policies", fresh.key, {
      data: {
        type: "policy",
        attributes: {},
        relationships: { assets: { data: Array.from({ length: 501 }, () => ({ type: "asset", id: ids[0] })) } },
      },
    });
    expect(tooMany.status).toBe(422);
  });

  it("keeps scope ids when the scope is sent back as read, even with an edited value", async () => {
    const created = (
      await post("/v1/policies", org.key, {
        data: {
          type: "policy",
          attributes: {
            in_scope_assets: [
              { kind: "domain", value: "a.example.com" },
              { kind: "domain", value: "b.example.com" },
            ],
          },
        },
      })
    ).body.data;
    const [a, b] = created.attributes.in_scope_assets;
    const res = await patch(`/v1/policies/${created.id}`, org.key, {
      data: {
        type: "policy",
        attributes: {
          in_scope_assets: [
            { ...a, short_description: "edited" },
            { ...b, value: "c.example.com" },
          ],
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.in_scope_assets).toEqual([
      { ...a, short_description: "edited" },
      { ...b, value: "c.example.com" },
    ]);
  });

  it("shows the briefs that use it, and deleting it detaches them", async () => {
    const p = await policy(org);
    const b = await brief(org, {}, p.id);
    expect((await get(`/v1/policies/${p.id}`, org.key)).body.data.relationships.briefs.data).toEqual([{ type: "brief", id: b.id }]);
    const deleted = await del(`/v1/policies/${p.id}`, org.key);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await get(`/v1/policies/${p.id}`, org.key)).status).toBe(404);
    expect((await get(`/v1/briefs/${b.id}`, org.key)).body.data.relationships.policy.data).toBeNull();
  });

  it("answers 404 not_found for an unknown policy on show, update and delete", async () => {
    const id = "01900000-0000-7000-8000-00000000beef";
    for (const res of [
      await get(`/v1/policies/${id}`, org.key),
      await patch(`/v1/policies/${id}`, org.key, { data: { type: "policy", attributes: {} } }),
      await del(`/v1/policies/${id}`, org.key),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ code: "not_found", title: "Not found" });
    }
  });

  it("lets an operator create a policy for an unclaimed organization it names", async () => {
    const unclaimed = await organization({ claimed: false });
    const res = await post("/v1/policies", org.operatorKey, {
      data: {
        type: "policy",
        attributes: { name: "From public analysis" },
        relationships: { organization: { data: { type: "organization", id: unclaimed.id } } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.relationships.organization.data.id).toBe(unclaimed.id);
    const missing = await post("/v1/policies", org.operatorKey, { data: { type: "policy", attributes: {} } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].source.pointer).toBe("/data/relationships/organization");
  });
});
