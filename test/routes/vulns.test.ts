import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, patch, post } from "../helpers/api";
import { count, eventsOf, eventTypes, fakeQueue } from "../helpers/events";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
let briefId: string;
const q = fakeQueue();
const quiet = { env: { EVENTS: q.queue } };

beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
});

const vulnDoc = (attributes: Record<string, unknown>, brief = briefId, extra: Record<string, unknown> = {}) => ({
  data: {
    type: "vuln",
    attributes: { title: "XSS in search", description: "Steps: ...", ...attributes },
    relationships: { brief: { data: { type: "brief", id: brief } } },
    ...extra,
  },
});

describe("POST /v1/vulns", () => {
  it("creates a vuln through the organization's brief: dispatching, open, application/json", async () => {
    const res = await post(
      "/v1/vulns",
      org.key,
      vulnDoc({
        contact_email: "r@example.org",
        domains: ["Shop.Example.com", "api.example.com", "shop.example.com"],
        tags: ["xss", "xss", "web"],
      }),
      quiet,
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("Location")).toBe(`/v1/vulns/${res.body.data.id}`);
    expect(res.body.data.attributes).toMatchObject({
      title: "XSS in search",
      description: "Steps: ...",
      inbox_state: "dispatching",
      processing_state: "open",
      contact_email: "r@example.org",
      domains: ["api.example.com", "shop.example.com"],
      tags: ["xss", "web"],
      read_at: null,
    });
    expect(res.body.data.attributes.shortcode).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(res.body.data.relationships).toEqual({
      organization: { data: { type: "organization", id: org.id } },
      brief: { data: { type: "brief", id: briefId } },
      duplicate_of: { data: null },
      assignee: { data: null },
      possible_duplicate_of: { data: null },
    });
    // The organization's own entry passes no gate.
    expect(res.body.data.attributes).toMatchObject({
      gate: "not_required",
      evidence: {},
      evidence_complete: true,
      ai_use: null,
      reporter_key: null,
      release_expected_on: null,
      possible_duplicate_score: null,
    });
  });

  it("writes Vuln::Created with the webhook payload in the same batch, and queues its id", async () => {
    const before = q.sent.length;
    const res = await post("/v1/vulns", org.key, vulnDoc({ domains: ["pay.example.com"], tags: ["a"] }), quiet);
    const v = res.body.data;
    const [created] = await eventsOf(v.id);
    expect(created!.type).toBe("Vuln::Created");
    const assets = (await get("/v1/assets?q[kind_eq]=domain&page[size]=100", org.key)).body.data;
    const asset = assets.find((a: { attributes: { value: string } }) => a.attributes.value === "pay.example.com");
    // Exactly the payload's members, in their documented order.
    expect(created!.payload).toBe(
      JSON.stringify({
        vuln: {
          id: v.id,
          shortcode: v.attributes.shortcode,
          title: "XSS in search",
          description: "Steps: ...",
          inbox_state: "dispatching",
          processing_state: "open",
          organization_id: org.id,
          tags: ["a"],
          assets: [{ id: asset.id, kind: "domain", value: "pay.example.com" }],
          created_at: v.attributes.created_at,
          updated_at: v.attributes.updated_at,
        },
      }),
    );
    expect(q.ids().slice(before)).toEqual([created!.id]);
  });

  it("takes 50 domains, more than D1 binds in one statement", async () => {
    const domains = Array.from({ length: 50 }, (_, i) => `host${i}.many.example.com`);
    const res = await post("/v1/vulns", org.key, vulnDoc({ domains }), quiet);
    expect(res.status).toBe(201);
    expect((await get(`/v1/vulns/${res.body.data.id}`, org.key, quiet)).body.data.attributes.domains).toEqual([...domains].sort());
    expect(JSON.parse((await eventsOf(res.body.data.id))[0]!.payload).vuln.assets).toHaveLength(50);
  });

  it("keeps domains as the organization's domain assets, reusing one that exists", async () => {
    const existing = await post("/v1/assets", org.key, {
      data: { type: "asset", attributes: { kind: "domain", value: "reuse.example.com" } },
    });
    const res = await post("/v1/vulns", org.key, vulnDoc({ domains: ["reuse.example.com"] }), quiet);
    const [created] = await eventsOf(res.body.data.id);
    expect(JSON.parse(created!.payload).vuln.assets).toEqual([{ id: existing.body.data.id, kind: "domain", value: "reuse.example.com" }]);
  });

  it.each([
    [{ title: undefined }, "/data/attributes/title"],
    [{ title: "   " }, "/data/attributes/title"],
    [{ title: "x".repeat(301) }, "/data/attributes/title"],
    [{ description: "" }, "/data/attributes/description"],
    [{ description: "x".repeat(100_001) }, "/data/attributes/description"],
    [{ contact_email: "not-an-email" }, "/data/attributes/contact_email"],
    [{ domains: ["not a domain"] }, "/data/attributes/domains/0"],
    [{ domains: Array.from({ length: 51 }, (_, i) => `d${i}.example.com`) }, "/data/attributes/domains"],
    [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "/data/attributes/tags"],
    [{ tags: [""] }, "/data/attributes/tags/0"],
    [{ inbox_state: "stored" }, "/data/attributes/inbox_state"],
    [{ shortcode: "AAAA-AAAA-AAAA" }, "/data/attributes/shortcode"],
    [{ processing_state: "closed" }, "/data/attributes/processing_state"],
    [{ title: 42 }, "/data/attributes/title"],
  ])("answers 422 to %j at %s and writes nothing", async (attributes, pointer) => {
    const [vulns, events] = [await count("vulns"), await count("events")];
    const res = await post("/v1/vulns", org.key, vulnDoc(attributes), quiet);
    expect(res.status).toBe(422);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain(pointer);
    expect([await count("vulns"), await count("events")]).toEqual([vulns, events]);
  });

  it("answers 422 at the brief for a missing, draft, or other organization's brief", async () => {
    const other = await organization();
    const foreign = (await brief(other, { published_at: PUBLISHED })).id;
    const draft = (await brief(org)).id;
    const scheduled = (await brief(org, { published_at: "2999-01-01T00:00:00Z" })).id;
    for (const id of [foreign, draft, scheduled, "01900000-0000-7000-8000-00000000beef"]) {
      const res = await post("/v1/vulns", org.key, vulnDoc({}, id), quiet);
      expect([id, res.status, res.body.errors[0].source.pointer]).toEqual([id, 422, "/data/relationships/brief/data/id"]);
    }
    const missing = await post("/v1/vulns", org.key, { data: { type: "vuln", attributes: { title: "T", description: "D" } } }, quiet);
    expect(missing.body.errors[0].source.pointer).toBe("/data/relationships");
  });
});

describe("GET /v1/vulns", () => {
  it("lists only the caller's vulns, with the documented filters", async () => {
    const fresh = await organization();
    const b1 = (await brief(fresh, { published_at: PUBLISHED })).id;
    const b2 = (await brief(fresh, { published_at: PUBLISHED })).id;
    const v1 = await vuln(fresh, b1);
    const v2 = await vuln(fresh, b2);
    await patch(`/v1/vulns/${v2.id}`, fresh.key, vulnDoc({ processing_state: "closed" }, b2), quiet);
    const ids = async (query: string) => (await get(`/v1/vulns${query}`, fresh.key)).body.data.map((v: { id: string }) => v.id);
    expect(await ids("")).toEqual([v2.id, v1.id]);
    expect(await ids("?q[processing_state_eq]=closed")).toEqual([v2.id]);
    expect(await ids("?q[processing_state_eq]=open")).toEqual([v1.id]);
    expect(await ids(`?q[brief_id_eq]=${b1}`)).toEqual([v1.id]);
    expect(await ids(`?q[created_at_gteq]=${encodeURIComponent(v2.attributes.created_at)}`)).toEqual([v2.id]);
    expect(await ids(`?q[created_at_lteq]=${encodeURIComponent(v1.attributes.created_at)}`)).toEqual([v1.id]);
    expect(await ids("?sort=created_at")).toEqual([v1.id, v2.id]);
    const inbox = await get("/v1/vulns?q[inbox_state_eq]=dispatching", fresh.key);
    expect(inbox.status).toBe(200);
    const list = await get("/v1/vulns", fresh.key);
    expect(list.headers.get("Content-Type")).toBe("application/json");
    expect(list.body.meta.page.total).toBe(2);
  });

  it.each(["q[processing_state_eq]=pending", "q[inbox_state_eq]=lost", "q[created_at_gteq]=yesterday", "q[title_eq]=x"])(
    "answers 400 to ?%s",
    async (query) => {
      const res = await get(`/v1/vulns?${query}`, org.key);
      expect(res.status).toBe(400);
      expect(res.headers.get("Content-Type")).toBe("application/json");
      expect(res.body.errors[0].source.parameter).toBe(query.split("=")[0]);
    },
  );
});

describe("GET /v1/vulns/{id}", () => {
  it("fires Vuln::Read and sets read_at on the organization's first read only", async () => {
    const v = await vuln(org, briefId);
    const first = await get(`/v1/vulns/${v.id}`, org.key, quiet);
    expect(first.body.data.attributes.read_at).toMatch(/Z$/);
    await get(`/v1/vulns/${v.id}`, org.key, quiet);
    await get("/v1/vulns", org.key, quiet);
    await get(`/v1/vulns/${v.id}`, org.operatorKey, quiet);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Read"]);
    const read = (await eventsOf(v.id))[1]!;
    expect(JSON.parse(read.payload).vuln.id).toBe(v.id);
    expect((await get(`/v1/vulns/${v.id}`, org.key)).body.data.attributes.read_at).toBe(first.body.data.attributes.read_at);
  });

  it("does not mark the vuln read on a HEAD, which answers the headers alone", async () => {
    const v = await vuln(org, briefId);
    const head = await api("HEAD", `/v1/vulns/${v.id}`, { key: org.key });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created"]);
    expect((await get(`/v1/vulns/${v.id}`, org.key, quiet)).body.data.attributes.read_at).toMatch(/Z$/);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Read"]);
  });

  it("does not fire Read when an operator reads first", async () => {
    const v = await vuln(org, briefId);
    await get(`/v1/vulns/${v.id}`, org.operatorKey, quiet);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created"]);
  });

  it("answers 404 Vuln not found, in application/json", async () => {
    const res = await get("/v1/vulns/01900000-0000-7000-8000-00000000beef", org.key);
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.body.errors[0]).toMatchObject({ status: "404", code: "vuln_not_found", title: "Vuln not found" });
  });
});

describe("PATCH /v1/vulns/{id}", () => {
  it("leaves out what it does not name: every member is optional, but a named one is still checked", async () => {
    const v = await vuln(org, briefId, { title: "Kept" });
    const noTitle = await patch(`/v1/vulns/${v.id}`, org.key, {
      data: { type: "vuln", attributes: { description: "D" }, relationships: { brief: { data: { type: "brief", id: briefId } } } },
    });
    expect(noTitle.status).toBe(200);
    expect(noTitle.body.data.attributes).toMatchObject({ title: "Kept", description: "D" });
    const noBrief = await patch(`/v1/vulns/${v.id}`, org.key, { data: { type: "vuln", attributes: { title: "T" } } });
    expect([noBrief.status, noBrief.body.data.relationships.brief.data.id]).toEqual([200, briefId]);
    const emptyTitle = await patch(`/v1/vulns/${v.id}`, org.key, { data: { type: "vuln", attributes: { title: "" } } });
    expect([emptyTitle.status, emptyTitle.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/title"]);
    const nullTitle = await patch(`/v1/vulns/${v.id}`, org.key, { data: { type: "vuln", attributes: { title: null } } });
    expect([nullTitle.status, nullTitle.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/title"]);
  });

  it("fires Updated on a change, and nothing on a PATCH that changes nothing", async () => {
    const v = await vuln(org, briefId, { title: "Before" });
    const res = await patch(`/v1/vulns/${v.id}`, org.key, vulnDoc({ title: "After", description: v.attributes.description }), quiet);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.title).toBe("After");
    expect(res.body.data.attributes.updated_at > v.attributes.updated_at).toBe(true);
    await patch(`/v1/vulns/${v.id}`, org.key, vulnDoc({ title: "After", description: v.attributes.description }), quiet);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated"]);
    expect(JSON.parse((await eventsOf(v.id))[1]!.payload).vuln.title).toBe("After");
  });

  it("closes and reopens, firing Updated with Closed, then Updated with Reopened", async () => {
    const v = await vuln(org, briefId);
    const body = (state: string) => vulnDoc({ title: v.attributes.title, description: v.attributes.description, processing_state: state });
    expect((await patch(`/v1/vulns/${v.id}`, org.key, body("closed"), quiet)).body.data.attributes.processing_state).toBe("closed");
    expect((await patch(`/v1/vulns/${v.id}`, org.key, body("closed"), quiet)).status).toBe(200);
    expect((await patch(`/v1/vulns/${v.id}`, org.key, body("open"), quiet)).body.data.attributes.processing_state).toBe("open");
    expect(await eventTypes(v.id)).toEqual([
      "Vuln::Created",
      "Vuln::Updated",
      "Vuln::Processing::Closed",
      "Vuln::Triage::Changed",
      "Vuln::Updated",
      "Vuln::Processing::Reopened",
      "Vuln::Triage::Changed",
    ]);
    const closed = JSON.parse((await eventsOf(v.id))[2]!.payload);
    expect(closed.vuln.processing_state).toBe("closed");
  });

  it("replaces the domains and keeps the optional members not sent", async () => {
    const v = await vuln(org, briefId, { domains: ["one.example.com"], contact_email: "keep@example.org", tags: ["keep"] });
    const res = await patch(
      `/v1/vulns/${v.id}`,
      org.key,
      vulnDoc({ title: v.attributes.title, description: v.attributes.description, domains: ["two.example.com"] }),
      quiet,
    );
    expect(res.body.data.attributes).toMatchObject({ domains: ["two.example.com"], contact_email: "keep@example.org", tags: ["keep"] });
    expect((await get(`/v1/vulns/${v.id}`, org.key)).body.data.attributes.domains).toEqual(["two.example.com"]);
    const updated = JSON.parse((await eventsOf(v.id)).find((e) => e.type === "Vuln::Updated")!.payload);
    expect(updated.vuln.assets.map((a: { value: string }) => a.value)).toEqual(["two.example.com"]);
  });

  it("answers 422 to inbox_state and to another organization's brief, changing nothing", async () => {
    const v = await vuln(org, briefId);
    const inbox = await patch(`/v1/vulns/${v.id}`, org.key, vulnDoc({ inbox_state: "stored" }));
    expect(inbox.status).toBe(422);
    expect(inbox.body.errors[0].source.pointer).toBe("/data/attributes/inbox_state");
    const other = await organization();
    const foreign = (await brief(other, { published_at: PUBLISHED })).id;
    const res = await patch(`/v1/vulns/${v.id}`, org.key, vulnDoc({ title: "Changed" }, foreign));
    expect(res.body.errors[0].source.pointer).toBe("/data/relationships/brief/data/id");
    expect((await get(`/v1/vulns/${v.id}`, org.key)).body.data.attributes.title).toBe(v.attributes.title);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Read"]);
  });
});

describe("DELETE /v1/vulns/{id}", () => {
  it("answers 204, then 404, and fires Vuln::Destroyed with exactly {vuln: {id, destroyed: true}}", async () => {
    const v = await vuln(org, briefId, { domains: ["gone.example.com"] });
    const res = await del(`/v1/vulns/${v.id}`, org.key, quiet);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await get(`/v1/vulns/${v.id}`, org.key)).status).toBe(404);
    expect((await del(`/v1/vulns/${v.id}`, org.key)).body.errors[0].code).toBe("vuln_not_found");
    const events = await eventsOf(v.id);
    expect(events.map((e) => e.type)).toEqual(["Vuln::Created", "Vuln::Destroyed"]);
    expect(events[1]!.payload).toBe(JSON.stringify({ vuln: { id: v.id, destroyed: true } }));
  });

  it("keeps a brief that reports came through: deleting it is a 422, unpublishing closes it", async () => {
    const b = (await brief(org, { published_at: PUBLISHED })).id;
    const v = await vuln(org, b);
    const res = await del(`/v1/briefs/${b}`, org.key);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "unprocessable_entity", title: "Unprocessable entity" });
    expect((await get(`/v1/vulns/${v.id}`, org.key)).body.data.relationships.brief.data.id).toBe(b);
    // Another organization cannot learn that the brief has reports.
    const other = await organization();
    expect((await del(`/v1/briefs/${b}`, other.key)).status).toBe(404);
  });
});
