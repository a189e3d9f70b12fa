import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { sweepOutbox, MAX_SWEEP_SENDS } from "../../src/events/outbox";
import { api, del, get, patch, post } from "../helpers/api";
import { failingBatch, interleaved } from "../helpers/d1-faults";
import { expectedErrorLogs } from "../helpers/logs";
import { count, eventsOf, eventTypes, fakeQueue } from "../helpers/events";
import { runQueue } from "../helpers/queue";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

// What review of the vuln pipeline found, each pinned by a test.

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
});

const doc = (attributes: Record<string, unknown> = {}) => ({
  data: {
    type: "vuln",
    attributes: { title: "CSRF on settings", description: "No token on POST /settings", ...attributes },
    relationships: { brief: { data: { type: "brief", id: briefId } } },
  },
});

describe("PATCH and the intake running at the same time", () => {
  it("succeeds when the intake moves the inbox between the PATCH's read and its write", async () => {
    const q = fakeQueue();
    const v = (await post("/v1/vulns", org.key, doc(), { env: { EVENTS: q.queue } })).body.data;
    const db = interleaved(2, () => runQueue(q.ids()));
    const res = await api("PATCH", `/v1/vulns/${v.id}`, { key: org.key, body: doc({ processing_state: "closed" }), env: { DB: db } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.processing_state).toBe("closed");
    expect(await eventTypes(v.id)).toEqual([
      "Vuln::Created",
      "Vuln::Inbox::Received",
      "Vuln::Inbox::Stored",
      "Vuln::Updated",
      "Vuln::Processing::Closed",
      "Vuln::Triage::Changed",
    ]);
  });

  it("answers 409 and writes nothing, events and assets included, when another edit won the race", async () => {
    const v = await vuln(org, briefId);
    const assetsBefore = await count("assets");
    const db = interleaved(2, () =>
      env.DB.prepare("UPDATE vulns SET revision = revision + 1, title = 'Edited elsewhere' WHERE id = ?").bind(v.id).run(),
    );
    const res = await api("PATCH", `/v1/vulns/${v.id}`, {
      key: org.key,
      body: doc({ processing_state: "closed", domains: ["race-a.example.com", "race-b.example.com"] }),
      env: { DB: db },
    });
    expect(res.status).toBe(409);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created"]);
    expect(await count("assets")).toBe(assetsBefore);
    const shown = (await get(`/v1/vulns/${v.id}`, org.operatorKey)).body.data.attributes;
    expect(shown).toMatchObject({ title: "Edited elsewhere", processing_state: "open", domains: [] });
  });
});

describe("Idempotency-Key when D1 fails after committing", () => {
  it("keeps the key done, so the retry the 503 invites gets the replay, not a second vuln", async () => {
    const logs = expectedErrorLogs();
    const vulns = (await get("/v1/vulns", org.key)).body.meta.page.total;
    // The second batch (the vuln, its event and the sealed key) commits, then the answer is lost.
    const db = failingBatch(2, "D1_ERROR: Network connection lost.", "after");
    const first = await api("POST", "/v1/vulns", {
      key: org.key,
      body: doc(),
      headers: { "Idempotency-Key": "after-commit" },
      env: { DB: db },
    });
    expect(first.status).toBe(503);
    expect(logs).toEqual([
      expect.objectContaining({ request_id: first.headers.get("X-Request-Id"), error: expect.stringContaining("Network connection lost") }),
    ]);
    const retry = await api("POST", "/v1/vulns", { key: org.key, body: doc(), headers: { "Idempotency-Key": "after-commit" } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await get("/v1/vulns", org.key)).body.meta.page.total).toBe(vulns + 1);
  });

  it("frees the key when the answer to the reservation itself was lost", async () => {
    const logs = expectedErrorLogs();
    const db = failingBatch(1, "D1_ERROR: Network connection lost.", "after");
    expect(
      (await api("POST", "/v1/vulns", { key: org.key, body: doc(), headers: { "Idempotency-Key": "lost-reservation" }, env: { DB: db } }))
        .status,
    ).toBe(503);
    expect(logs).toEqual([expect.objectContaining({ level: "error", error: expect.stringContaining("Network connection lost") })]);
    const retry = await api("POST", "/v1/vulns", { key: org.key, body: doc(), headers: { "Idempotency-Key": "lost-reservation" } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("replays with the request's own headers: X-Request-Id, and CORS on public routes", async () => {
    const first = await api("POST", "/v1/vulns", { key: org.key, body: doc(), headers: { "Idempotency-Key": "headers" } });
    const replay = await api("POST", "/v1/vulns", { key: org.key, body: doc(), headers: { "Idempotency-Key": "headers" } });
    expect(replay.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(replay.headers.get("X-Request-Id")).not.toBe(first.headers.get("X-Request-Id"));
    expect(replay.headers.get("Cache-Control")).toBe("no-store");
    const code = (await brief(org, { published_at: PUBLISHED })).attributes.shortcode;
    const body = { data: { type: "vuln", attributes: { title: "T", description: "D" } } };
    const headers = { "Idempotency-Key": "pub-headers", Origin: "https://researcher.example", "CF-Connecting-IP": "192.0.2.77" };
    await api("POST", `/v1/p/briefs/${code}/vulns`, { body, headers, contentType: "application/json" });
    const pub = await api("POST", `/v1/p/briefs/${code}/vulns`, { body, headers, contentType: "application/json" });
    expect(pub.headers.get("Idempotent-Replayed")).toBe("true");
    expect(pub.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });
});

describe("the submission exactly as received", () => {
  it("keeps the raw title and domains in the record while the vuln shows them normalized", async () => {
    const q = fakeQueue();
    const v = (
      await post("/v1/vulns", org.key, doc({ title: "  Padded  ", domains: ["EXAMPLE.com.", "example.com"] }), { env: { EVENTS: q.queue } })
    ).body.data;
    expect(v.attributes).toMatchObject({ title: "Padded", domains: ["example.com"] });
    await runQueue(q.ids());
    const record = await env.DB.prepare("SELECT title, domains FROM vuln_records WHERE vuln_id = ?")
      .bind(v.id)
      .first<{ title: string; domains: string }>();
    expect(record).toEqual({ title: "  Padded  ", domains: JSON.stringify(["EXAMPLE.com.", "example.com"]) });
  });

  it("refuses strings that are not well-formed Unicode, at their pointer, and writes nothing", async () => {
    const before = await count("vulns");
    const rawBody = JSON.stringify(doc({ title: "A\ud800B", domains: ["ok.example.com"] }));
    const res = await api("POST", "/v1/vulns", { key: org.key, rawBody });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe("/data/attributes/title");
    expect(await count("vulns")).toBe(before);
  });
});

describe("changes that reach vulns through their domain assets", () => {
  it("fires Vuln::Updated for each vuln when a domain asset is deleted or renamed", async () => {
    const v = await vuln(org, briefId, { domains: ["linked.example.com", "other.example.com"] });
    const assets = (await get("/v1/assets?q[kind_eq]=domain&page[size]=100", org.key)).body.data;
    const linked = assets.find((a: { attributes: { value: string } }) => a.attributes.value === "linked.example.com");
    await patch(`/v1/assets/${linked.id}`, org.key, { data: { type: "asset", attributes: { value: "renamed.example.com" } } });
    const other = assets.find((a: { attributes: { value: string } }) => a.attributes.value === "other.example.com");
    expect((await del(`/v1/assets/${other.id}`, org.key)).status).toBe(204);
    const events = await eventsOf(v.id);
    expect(events.map((e) => e.type)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Updated"]);
    expect(
      JSON.parse(events[1]!.payload)
        .vuln.assets.map((a: { value: string }) => a.value)
        .sort(),
    ).toEqual(["other.example.com", "renamed.example.com"]);
    expect(JSON.parse(events[2]!.payload).vuln.assets.map((a: { value: string }) => a.value)).toEqual(["renamed.example.com"]);
    // A short_description is not in the payload: no event.
    await patch(`/v1/assets/${linked.id}`, org.key, { data: { type: "asset", attributes: { short_description: "note" } } });
    expect(await eventTypes(v.id)).toHaveLength(3);
  });
});

describe("intake and the outbox under redelivery", () => {
  it("finishes a vuln left received by an interrupted intake, without a second Received", async () => {
    const q = fakeQueue();
    const v = (await post("/v1/vulns", org.key, doc(), { env: { EVENTS: q.queue } })).body.data;
    // Half an intake: received, with its event, but not stored.
    await env.DB.prepare("UPDATE vulns SET inbox_state = 'received' WHERE id = ?").bind(v.id).run();
    await runQueue(q.ids());
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Inbox::Stored"]);
    expect((await get(`/v1/vulns/${v.id}`, org.operatorKey)).body.data.attributes.inbox_state).toBe("stored");
  });

  it("re-sends an unprocessed event with growing gaps, and gives up after a bounded number of sends", async () => {
    const v = await vuln(org, briefId, {});
    const [created] = await eventsOf(v.id);
    const db = createDb(env.DB);
    let now = Date.parse(
      (await env.DB.prepare("SELECT created_at FROM events WHERE id = ?").bind(created!.id).first<{ created_at: string }>())!.created_at,
    );
    const sendsAt: number[] = [];
    // Advance a minute at a time for a day; count when this event goes out.
    for (let minute = 1; minute <= 24 * 60; minute++) {
      now += 60_000;
      const q = fakeQueue();
      await sweepOutbox(db, q.queue, now);
      if (q.ids().includes(created!.id)) sendsAt.push(minute);
    }
    expect(sendsAt.length).toBe(MAX_SWEEP_SENDS);
    const gaps = sendsAt.slice(1).map((m, i) => m - sendsAt[i]!);
    expect(gaps.slice(0, 5)).toEqual([1, 2, 4, 8, 16]);
    expect(gaps.every((g, i) => i === 0 || g >= gaps[i - 1]!)).toBe(true);
  });
});
