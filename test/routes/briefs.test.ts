import { beforeAll, describe, expect, it } from "vitest";
import { del, get, patch, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

describe("briefs", () => {
  it("creates a brief linked to a policy, and shows it as { data: resource }", async () => {
    const p = await policy(org);
    const res = await post("/v1/briefs", org.key, {
      data: {
        type: "brief",
        attributes: {
          name: "Web",
          short_description: "Our web apps",
          published_at: PUBLISHED,
          in_scope_assets: [{ kind: "domain", value: "app.example.com" }],
        },
        relationships: { policy: { data: { type: "policy", id: p.id } } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      name: "Web",
      short_description: "Our web apps",
      published_at: PUBLISHED,
      in_scope_assets: [{ kind: "domain", value: "app.example.com", short_description: null, id: expect.any(String) }],
      out_of_scope_assets: [],
    });
    expect(res.body.data.relationships).toEqual({
      organization: { data: { type: "organization", id: org.id } },
      policy: { data: { type: "policy", id: p.id } },
    });
    const shown = await get(`/v1/briefs/${res.body.data.id}`, org.key);
    expect(shown.body.data).toEqual(res.body.data);
    expect(shown.body.data.data).toBeUndefined();
  });

  it("creates a brief without a policy", async () => {
    const res = await post("/v1/briefs", org.key, { data: { type: "brief", attributes: { name: "Standalone" } } });
    expect(res.status).toBe(201);
    expect(res.body.data.relationships.policy.data).toBeNull();
  });

  it("answers 422 for a missing name, a bad scope entry, a bad date and a missing policy", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown> | undefined, string][] = [
      [{}, undefined, "/data/attributes/name"],
      [{ name: "  " }, undefined, "/data/attributes/name"],
      [{ name: "B", in_scope_assets: [{ kind: "cidr", value: "10.0.0.0" }] }, undefined, "/data/attributes/in_scope_assets/0/value"],
      [{ name: "B", published_at: "soon" }, undefined, "/data/attributes/published_at"],
      [{ name: "B", published_at: "9999-12-31T23:59:59-12:00" }, undefined, "/data/attributes/published_at"],
      [
        { name: "B" },
        { policy: { data: { type: "policy", id: "01900000-0000-7000-8000-00000000beef" } } },
        "/data/relationships/policy/data/id",
      ],
      [
        { name: "B" },
        { policy: { data: { type: "asset", id: "01900000-0000-7000-8000-00000000beef" } } },
        "/data/relationships/policy/data/type",
      ],
    ];
    for (const [attributes, relationships, pointer] of cases) {
      const res = await post("/v1/briefs", org.key, { data: { type: "brief", attributes, ...(relationships ? { relationships } : {}) } });
      expect([pointer, res.status]).toEqual([pointer, 422]);
      expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain(pointer);
    }
  });

  it("updates attributes and the policy link, and detaches with data: null", async () => {
    const p1 = await policy(org);
    const p2 = await policy(org);
    const b = await brief(org, { name: "Before" }, p1.id);
    const moved = await patch(`/v1/briefs/${b.id}`, org.key, {
      data: { type: "brief", id: b.id, attributes: { name: "After" }, relationships: { policy: { data: { type: "policy", id: p2.id } } } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.attributes.name).toBe("After");
    expect(moved.body.data.relationships.policy.data.id).toBe(p2.id);
    const detached = await patch(`/v1/briefs/${b.id}`, org.key, {
      data: { type: "brief", attributes: {}, relationships: { policy: { data: null } } },
    });
    expect(detached.body.data.relationships.policy.data).toBeNull();
    expect(detached.body.data.attributes.name).toBe("After");
  });

  it("filters by q[policy_id_eq]", async () => {
    const fresh = await organization();
    const p = await policy(fresh);
    const linked = await brief(fresh, {}, p.id);
    await brief(fresh);
    const res = await get(`/v1/briefs?q[policy_id_eq]=${p.id}`, fresh.key);
    expect(res.body.data.map((b: { id: string }) => b.id)).toEqual([linked.id]);
  });

  it("answers 404 brief_not_found for an unknown brief", async () => {
    const id = "01900000-0000-7000-8000-00000000beef";
    for (const res of [
      await get(`/v1/briefs/${id}`, org.key),
      await patch(`/v1/briefs/${id}`, org.key, { data: { type: "brief", attributes: {} } }),
      await del(`/v1/briefs/${id}`, org.key),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ status: "404", code: "brief_not_found", title: "Brief not found" });
    }
  });

  it("deletes with 204", async () => {
    const b = await brief(org);
    expect((await del(`/v1/briefs/${b.id}`, org.key)).status).toBe(204);
    expect((await get(`/v1/briefs/${b.id}`, org.key)).status).toBe(404);
  });
});
