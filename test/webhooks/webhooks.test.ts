import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/events/types";
import { api, del, get, patch, post } from "../helpers/api";
import { EVENT_TYPE_ID, webhookDoc } from "../helpers/endpoints";
import { organization, webhook, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

const ids = (names: string[]) => names.map((n) => ({ type: "trigger_event_type", id: EVENT_TYPES.find((t) => t.short_name === n)!.id }));

describe("GET /v1/webhook_event_types", () => {
  it("lists the eight original types, then Vuln::Comment::Created, Vuln::Triage::Changed, the two deadline alerts and Advisory::Published, with constant ids, in a fixed order, paginated", async () => {
    const res = await get("/v1/webhook_event_types", org.key);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(res.body.data.map((t: { attributes: { short_name: string } }) => t.attributes.short_name)).toEqual([
      "Vuln::Created",
      "Vuln::Updated",
      "Vuln::Read",
      "Vuln::Destroyed",
      "Vuln::Inbox::Received",
      "Vuln::Inbox::Stored",
      "Vuln::Processing::Closed",
      "Vuln::Processing::Reopened",
      "Vuln::Comment::Created",
      "Vuln::Triage::Changed",
      "Vuln::Deadline::Approaching",
      "Vuln::Deadline::Breached",
      "Advisory::Published",
    ]);
    expect(res.body.data[8]).toMatchObject({
      id: "0b1e7f1a-5c52-5d7e-9a01-000000000009",
      attributes: { name: "Events::Vuln::Comment::Created" },
    });
    expect(res.body.data[9]).toMatchObject({
      id: "0b1e7f1a-5c52-5d7e-9a01-000000000010",
      attributes: { name: "Events::Vuln::Triage::Changed" },
    });
    expect(res.body.data.slice(10).map((t: { id: string; attributes: { name: string } }) => [t.id, t.attributes.name])).toEqual([
      ["0b1e7f1a-5c52-5d7e-9a01-000000000011", "Events::Vuln::Deadline::Approaching"],
      ["0b1e7f1a-5c52-5d7e-9a01-000000000012", "Events::Vuln::Deadline::Breached"],
      ["0b1e7f1a-5c52-5d7e-9a01-000000000013", "Events::Advisory::Published"],
    ]);
    expect(res.body.data[0]).toMatchObject({
      type: "trigger_event_type",
      id: "0b1e7f1a-5c52-5d7e-9a01-000000000001",
      attributes: { name: "Events::Vuln::Created", short_name: "Vuln::Created" },
    });
    const page2 = await get("/v1/webhook_event_types?page[size]=3&page[number]=2", org.key);
    expect(page2.body.data.map((t: { attributes: { short_name: string } }) => t.attributes.short_name)).toEqual([
      "Vuln::Destroyed",
      "Vuln::Inbox::Received",
      "Vuln::Inbox::Stored",
    ]);
    expect(page2.body.meta.page).toEqual({ number: 2, size: 3, total: 13, total_pages: 5 });
    const one = await get(`/v1/webhook_event_types/${EVENT_TYPE_ID}`, org.key);
    expect(one.body.data.attributes.short_name).toBe("Vuln::Created");
    expect((await get("/v1/webhook_event_types?sort=created_at", org.key)).status).toBe(400);
  });
});

describe("webhooks", () => {
  it("creates a webhook and shows its secret once", async () => {
    const res = await post("/v1/webhooks", org.key, {
      data: {
        type: "webhook",
        attributes: { name: "SIEM", url: "https://hooks.example.com/siem", short_description: "to Splunk" },
        relationships: { trigger_event_types: { data: ids(["Vuln::Created", "Vuln::Processing::Closed"]) } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      name: "SIEM",
      url: "https://hooks.example.com/siem",
      enabled: true,
      disabled_reason: null,
      short_description: "to Splunk",
    });
    expect(res.body.data.attributes.secret).toMatch(/^whsec_/);
    expect(res.body.data.relationships.trigger_event_types.data).toEqual(ids(["Vuln::Created", "Vuln::Processing::Closed"]));
    expect(res.body.data.relationships).toMatchObject({
      organization: { data: { type: "organization", id: org.id } },
      tunnel_endpoint: { data: null },
      local_app: { data: null },
    });
    const shown = await get(`/v1/webhooks/${res.body.data.id}`, org.key);
    expect(shown.body.data.attributes.secret).toBeUndefined();
    expect(shown.text).not.toContain(res.body.data.attributes.secret);
    expect((await get("/v1/webhooks", org.key)).text).not.toContain(res.body.data.attributes.secret);
  });

  it.each([
    ["http://hooks.example.com/", "/data/attributes/url"],
    ["https://127.0.0.1/", "/data/attributes/url"],
    ["https://user:pw@hooks.example.com/", "/data/attributes/url"],
    ["https://metadata.google.internal/", "/data/attributes/url"],
  ])("refuses the URL %s with 422 at %s", async (url, pointer) => {
    const res = await post("/v1/webhooks", org.key, webhookDoc({ url }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe(pointer);
  });

  it("refuses loopback unless the development variable allows it", async () => {
    const doc = webhookDoc({ url: "http://127.0.0.1:9000/hook" });
    expect((await api("POST", "/v1/webhooks", { key: org.key, body: doc, env: { DEV_ALLOW_LOOPBACK_WEBHOOKS: "" } })).status).toBe(422);
    expect((await api("POST", "/v1/webhooks", { key: org.key, body: doc, env: { DEV_ALLOW_LOOPBACK_WEBHOOKS: "true" } })).status).toBe(201);
  });

  it("answers 422 at the pointer of an unknown event type id, and for missing members", async () => {
    const res = await post("/v1/webhooks", org.key, {
      data: {
        type: "webhook",
        attributes: { name: "X", url: "https://hooks.example.com/" },
        relationships: {
          trigger_event_types: {
            data: [...ids(["Vuln::Read"]), { type: "trigger_event_type", id: "01900000-0000-7000-8000-00000000beef" }],
          },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe("/data/relationships/trigger_event_types/data/1/id");
    const missing = await post("/v1/webhooks", org.key, { data: { type: "webhook", attributes: { url: "https://hooks.example.com/" } } });
    expect(missing.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
      "/data/attributes/name",
      "/data/relationships",
    ]);
    const long = await post("/v1/webhooks", org.key, webhookDoc({ name: "x".repeat(101) }));
    expect(long.body.errors[0].source.pointer).toBe("/data/attributes/name");
    const readOnly = await post("/v1/webhooks", org.key, webhookDoc({ secret: "whsec_mine" }));
    expect(readOnly.body.errors[0]).toMatchObject({ detail: "secret is read-only.", source: { pointer: "/data/attributes/secret" } });
  });

  it("allows 20 webhooks per organization; the 21st is a 422 that writes nothing", async () => {
    const fresh = await organization();
    for (let i = 0; i < 20; i++) await webhook(fresh);
    const res = await post("/v1/webhooks", fresh.key, webhookDoc());
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe("validation_error");
    expect((await get("/v1/webhooks?page[size]=100", fresh.key)).body.meta.page.total).toBe(20);
  });

  it("updates, replaces subscriptions, and filters by q[enabled_eq]", async () => {
    const fresh = await organization();
    const w = await webhook(fresh);
    await webhook(fresh, { enabled: false });
    const res = await patch(`/v1/webhooks/${w.id}`, fresh.key, {
      data: {
        type: "webhook",
        id: w.id,
        attributes: { name: "Renamed", url: "https://other.example.com/hook" },
        relationships: { trigger_event_types: { data: ids(["Vuln::Destroyed"]) } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ name: "Renamed", url: "https://other.example.com/hook" });
    expect(res.body.data.relationships.trigger_event_types.data).toEqual(ids(["Vuln::Destroyed"]));
    expect((await get("/v1/webhooks?q[enabled_eq]=true", fresh.key)).body.data.map((h: { id: string }) => h.id)).toEqual([w.id]);
    expect((await get("/v1/webhooks?q[enabled_eq]=false", fresh.key)).body.data).toHaveLength(1);
    const bad = await patch(`/v1/webhooks/${w.id}`, fresh.key, { data: { type: "webhook", attributes: { url: "https://10.0.0.1/" } } });
    expect(bad.status).toBe(422);
    expect((await get(`/v1/webhooks/${w.id}`, fresh.key)).body.data.attributes.url).toBe("https://other.example.com/hook");
  });

  it("rotates the secret: 200 with a new one", async () => {
    const res = await post("/v1/webhooks", org.key, webhookDoc());
    const rotated = await post(`/v1/webhooks/${res.body.data.id}/rotate_secret`, org.key, undefined);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.attributes.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.attributes.secret).not.toBe(res.body.data.attributes.secret);
  });

  it("deletes with 204, then 404", async () => {
    const w = await webhook(org);
    expect((await del(`/v1/webhooks/${w.id}`, org.key)).status).toBe(204);
    expect((await get(`/v1/webhooks/${w.id}`, org.key)).status).toBe(404);
    expect((await del(`/v1/webhooks/${w.id}`, org.key)).status).toBe(404);
  });
});
