import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, post } from "../helpers/api";
import { interleaved } from "../helpers/d1-faults";
import { count, fakeQueue } from "../helpers/events";
import { asset, brief, directory, listing, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

// A write reads what it depends on, then commits in a later batch. Another request can delete that
// record in between; these tests put the delete exactly there (before the write's second batch) and
// expect a 422 at the member that named it, with nothing written, never a 500 or an orphan row.

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

const rel = (type: string, id: string) => ({ data: { type, id } });
const MISSING_ORG = "01900000-0000-7000-8000-00000000beef";

describe("a record deleted between a write's read and its commit", () => {
  it("vuln create vs brief delete: 422 at the brief, no vuln and no event", async () => {
    const b = await brief(org, { published_at: PUBLISHED });
    const [vulnsBefore, eventsBefore] = [await count("vulns"), await count("events")];
    const q = fakeQueue();
    const db = interleaved(2, async () => expect((await del(`/v1/briefs/${b.id}`, org.key)).status).toBe(204));
    const res = await api("POST", "/v1/vulns", {
      key: org.key,
      body: {
        data: {
          type: "vuln",
          attributes: { title: "T", description: "D", domains: ["race.example.com"] },
          relationships: { brief: rel("brief", b.id) },
        },
      },
      env: { DB: db, EVENTS: q.queue },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "validation_error", source: { pointer: "/data/relationships/brief/data/id" } });
    expect([await count("vulns"), await count("events"), q.ids()]).toEqual([vulnsBefore, eventsBefore, []]);
  });

  it("vuln update vs brief delete: 422 at the brief, the vuln unchanged", async () => {
    const keep = await brief(org, { published_at: PUBLISHED });
    const gone = await brief(org, { published_at: PUBLISHED });
    const v = (
      await post(
        "/v1/vulns",
        org.key,
        { data: { type: "vuln", attributes: { title: "T", description: "D" }, relationships: { brief: rel("brief", keep.id) } } },
        { env: { EVENTS: fakeQueue().queue } },
      )
    ).body.data;
    const db = interleaved(2, async () => expect((await del(`/v1/briefs/${gone.id}`, org.key)).status).toBe(204));
    const res = await api("PATCH", `/v1/vulns/${v.id}`, {
      key: org.key,
      body: { data: { type: "vuln", attributes: { title: "Moved", description: "D" }, relationships: { brief: rel("brief", gone.id) } } },
      env: { DB: db, EVENTS: fakeQueue().queue },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source).toEqual({ pointer: "/data/relationships/brief/data/id" });
    const shown = (await get(`/v1/vulns/${v.id}`, org.operatorKey)).body.data;
    expect([shown.attributes.title, shown.relationships.brief.data.id]).toEqual(["T", keep.id]);
  });

  it.each(["POST", "PATCH"] as const)("policy %s vs asset delete: 422 at that asset, nothing written", async (method) => {
    const [kept, gone] = [await asset(org), await asset(org)];
    const existing = method === "PATCH" ? await policy(org, { name: "Before" }) : null;
    const policiesBefore = await count("policies");
    const db = interleaved(2, async () => expect((await del(`/v1/assets/${gone.id}`, org.key)).status).toBe(204));
    const body = {
      data: {
        type: "policy",
        attributes: { name: "After" },
        relationships: {
          assets: {
            data: [
              { type: "asset", id: kept.id },
              { type: "asset", id: gone.id },
            ],
          },
        },
      },
    };
    const res = await api(method, existing ? `/v1/policies/${existing.id}` : "/v1/policies", { key: org.key, body, env: { DB: db } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ source: { pointer: "/data/relationships/assets/data/1/id" } })]);
    expect(await count("policies")).toBe(policiesBefore);
    if (existing) expect((await get(`/v1/policies/${existing.id}`, org.key)).body.data.attributes.name).toBe("Before");
  });

  it("brief create vs policy delete: 422 at the policy, no brief", async () => {
    const p = await policy(org);
    const briefsBefore = await count("briefs");
    const db = interleaved(2, async () => expect((await del(`/v1/policies/${p.id}`, org.key)).status).toBe(204));
    const res = await api("POST", "/v1/briefs", {
      key: org.key,
      body: { data: { type: "brief", attributes: { name: "B" }, relationships: { policy: rel("policy", p.id) } } },
      env: { DB: db },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source).toEqual({ pointer: "/data/relationships/policy/data/id" });
    expect(await count("briefs")).toBe(briefsBefore);
  });
});

describe("an organization that does not exist", () => {
  it.each([
    ["/v1/policies", { type: "policy", attributes: { name: "P" } }],
    ["/v1/assets", { type: "asset", attributes: { kind: "domain", value: "nobody.example.com" } }],
    ["/v1/briefs", { type: "brief", attributes: { name: "B" } }],
  ])("an operator creating at %s gets 422 at the organization", async (path, data) => {
    const res = await post(path, org.operatorKey, { data: { ...data, relationships: { organization: rel("organization", MISSING_ORG) } } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source).toEqual({ pointer: "/data/relationships/organization/data/id" });
  });

  it("an operator creating a webhook gets 403 (operators never write webhooks), not a 500", async () => {
    const res = await post("/v1/webhooks", org.operatorKey, {
      data: {
        type: "webhook",
        attributes: { name: "H", url: "https://hooks.example.com/x" },
        relationships: {
          organization: rel("organization", MISSING_ORG),
          trigger_event_types: { data: [{ type: "trigger_event_type", id: "0b1e7f1a-5c52-5d7e-9a01-000000000001" }] },
        },
      },
    });
    expect(res.status).toBe(403);
  });
});

describe("a directory item added while its listable is deleted", () => {
  it.each(["Policy", "Brief"] as const)("%s: the add is a 422 and leaves no orphan item", async (type) => {
    const o = await organization();
    const l = await listing(o.operatorKey, (await directory(o.operatorKey)).id, o.id);
    const listable = type === "Policy" ? await policy(o, { published_at: PUBLISHED }) : await brief(o, { published_at: PUBLISHED });
    const path = type === "Policy" ? `/v1/policies/${listable.id}` : `/v1/briefs/${listable.id}`;
    const db = interleaved(2, async () => expect((await del(path, o.key)).status).toBe(204));
    const res = await api("POST", `/v1/directory_listings/${l.id}/items`, {
      key: o.key,
      body: { data: { type: "directory_listing_item", attributes: { listable_type: type, listable_id: listable.id } } },
      env: { DB: db },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "unprocessable_entity", source: { pointer: "/data/attributes/listable_id" } });
    expect((await get(`/v1/directory_listings/${l.id}/items`, o.key)).body.data).toEqual([]);
    expect((await get(`/v1/directory_listings/${l.id}`, o.key)).body.data.attributes.customized).toBe(false);
  });

  it("a listable unpublished between the read and the insert is not added either", async () => {
    const o = await organization();
    const l = await listing(o.operatorKey, (await directory(o.operatorKey)).id, o.id);
    const p = await policy(o, { published_at: PUBLISHED });
    const db = interleaved(2, () =>
      api("PATCH", `/v1/policies/${p.id}`, { key: o.key, body: { data: { type: "policy", attributes: { published_at: null } } } }),
    );
    const res = await api("POST", `/v1/directory_listings/${l.id}/items`, {
      key: o.key,
      body: { data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: p.id } } },
      env: { DB: db },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toMatch(/not published/);
    expect((await get(`/v1/directory_listings/${l.id}/items`, o.key)).body.data).toEqual([]);
  });
});
