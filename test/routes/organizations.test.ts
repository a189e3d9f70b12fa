import { describe, expect, it } from "vitest";
import { del, get, patch, post } from "../helpers/api";
import { operatorKey, organization } from "../helpers/factories";

const orgDoc = (attributes: Record<string, unknown>) => ({ data: { type: "organization", attributes } });

describe("organizations", () => {
  it("lets an operator create, read and update an organization", async () => {
    const op = await operatorKey();
    const created = await post("/v1/organizations", op, orgDoc({ name: "Acme", slug: "acme-orgs-1", website_url: "https://acme.example" }));
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: "organization",
      attributes: { name: "Acme", slug: "acme-orgs-1", website_url: "https://acme.example", claimed: true },
    });
    const id = created.body.data.id;
    const updated = await patch(`/v1/organizations/${id}`, op, {
      data: { type: "organization", id, attributes: { claimed: false, name: "Acme Inc" } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ claimed: false, name: "Acme Inc", slug: "acme-orgs-1" });
    expect(updated.body.data.attributes.updated_at >= created.body.data.attributes.updated_at).toBe(true);
    expect((await get(`/v1/organizations/${id}`, op)).body.data.attributes.name).toBe("Acme Inc");
  });

  it("refuses a taken slug with 422 at the slug", async () => {
    const op = await operatorKey();
    await post("/v1/organizations", op, orgDoc({ name: "One", slug: "taken-slug" }));
    const res = await post("/v1/organizations", op, orgDoc({ name: "Two", slug: "taken-slug" }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe("/data/attributes/slug");
  });

  it.each([
    [{ slug: "ok-slug" }, "/data/attributes/name"],
    [{ name: "X" }, "/data/attributes/slug"],
    [{ name: "X", slug: "Not Valid" }, "/data/attributes/slug"],
    [{ name: "X", slug: "ok-slug-2", website_url: "javascript:alert(1)" }, "/data/attributes/website_url"],
    [{ name: "", slug: "ok-slug-3" }, "/data/attributes/name"],
    [{ name: "x".repeat(201), slug: "ok-slug-4" }, "/data/attributes/name"],
    [{ name: "X", slug: "ok-slug-5", claimed: "yes" }, "/data/attributes/claimed"],
  ])("answers 422 to %j at %s", async (attributes, pointer) => {
    const res = await post("/v1/organizations", await operatorKey(), orgDoc(attributes));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain(pointer);
  });

  it("shows an organization key its own organization only", async () => {
    const org = await organization();
    const list = await get("/v1/organizations", org.key);
    expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([org.id]);
    expect((await get(`/v1/organizations/${org.id}`, org.key)).status).toBe(200);
  });

  it("filters by q[claimed_eq]", async () => {
    const op = await operatorKey();
    const unclaimed = await post("/v1/organizations", op, orgDoc({ name: "Listed", slug: "unclaimed-filter", claimed: false }));
    const res = await get("/v1/organizations?q[claimed_eq]=false&page[size]=100", op);
    const ids = res.body.data.map((o: { id: string }) => o.id);
    expect(ids).toContain(unclaimed.body.data.id);
    expect(res.body.data.every((o: { attributes: { claimed: boolean } }) => o.attributes.claimed === false)).toBe(true);
  });

  it("answers 404 for an unknown organization", async () => {
    const op = await operatorKey();
    const res = await patch("/v1/organizations/01900000-0000-7000-8000-00000000beef", op, orgDoc({ name: "X" }));
    expect(res.status).toBe(404);
  });
});

describe("API keys", () => {
  it("shows a new key once, then never again, and the key works at once", async () => {
    const org = await organization();
    const made = await post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, {
      data: { type: "api_key", attributes: { name: "ci" } },
    });
    expect(made.status).toBe(201);
    const key = made.body.data.attributes.key as string;
    expect(key).toMatch(/^vdp_[0-9A-Za-z]{40,}$/);
    expect(made.body.data.attributes).toMatchObject({ name: "ci", kind: "organization", key_prefix: key.slice(0, 8), revoked_at: null });
    expect(made.body.data.relationships.organization.data).toEqual({ type: "organization", id: org.id });
    expect(made.headers.get("Location")).toBe(`/v1/api_keys/${made.body.data.id}`);

    const shown = await get(`/v1/api_keys/${made.body.data.id}`, org.operatorKey);
    expect(shown.body.data.attributes.key).toBeUndefined();
    const listed = await get(`/v1/organizations/${org.id}/api_keys`, org.operatorKey);
    expect(listed.text).not.toContain(key);
    expect(listed.body.data).toHaveLength(2);

    expect((await get("/v1/policies", key)).status).toBe(200);
  });

  it("accepts a body without attributes", async () => {
    const org = await organization();
    const made = await post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, { data: { type: "api_key" } });
    expect(made.status).toBe(201);
    expect(made.body.data.attributes.name).toBeNull();
  });

  it("revokes a key so it stops working at once, and keeps it visible as revoked", async () => {
    const org = await organization();
    expect((await get("/v1/policies", org.key)).status).toBe(200);
    expect((await del(`/v1/api_keys/${org.keyId}`, org.operatorKey)).status).toBe(204);
    const res = await get("/v1/policies", org.key);
    expect(res.status).toBe(401);
    const shown = await get(`/v1/api_keys/${org.keyId}`, org.operatorKey);
    expect(shown.body.data.attributes.revoked_at).toMatch(/Z$/);
    // Revoking twice keeps the first revocation time.
    await del(`/v1/api_keys/${org.keyId}`, org.operatorKey);
    expect((await get(`/v1/api_keys/${org.keyId}`, org.operatorKey)).body.data.attributes.revoked_at).toBe(
      shown.body.data.attributes.revoked_at,
    );
  });

  it("answers 404 for a key of an unknown organization and for an unknown key", async () => {
    const op = await operatorKey();
    expect((await post("/v1/organizations/01900000-0000-7000-8000-00000000beef/api_keys", op, { data: { type: "api_key" } })).status).toBe(
      404,
    );
    expect((await del("/v1/api_keys/01900000-0000-7000-8000-00000000beef", op)).status).toBe(404);
    expect((await get("/v1/organizations/01900000-0000-7000-8000-00000000beef/api_keys", op)).status).toBe(404);
  });
});
