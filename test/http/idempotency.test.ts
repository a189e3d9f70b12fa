import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { idempotencyRequestHash } from "../../src/http/idempotency";
import { api, get } from "../helpers/api";
import { rewritingSql } from "../helpers/d1-faults";
import { count, fakeQueue } from "../helpers/events";
import { expectedErrorLogs } from "../helpers/logs";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
let briefId: string;
const quiet = { EVENTS: fakeQueue().queue };

beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
});

const vulnBody = (title = "Open redirect") => ({
  data: {
    type: "vuln",
    attributes: { title, description: "GET /login?next=//evil" },
    relationships: { brief: { data: { type: "brief", id: briefId } } },
  },
});

const send = (key: string, body: unknown, apiKey = org.key, path = "/v1/vulns") =>
  api("POST", path, { key: apiKey, body, headers: { "Idempotency-Key": key }, env: quiet });

const vulnCount = async (o: TestOrganization = org) => (await get("/v1/vulns", o.key)).body.meta.page.total;

describe("Idempotency-Key", () => {
  it("replays the first response byte for byte, and makes one vuln and one event", async () => {
    const [vulns, events] = [await vulnCount(), await count("events")];
    const first = await send("k-replay", vulnBody());
    const second = await send("k-replay", vulnBody());
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect(second.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(second.headers.get("Content-Type")).toBe("application/json");
    expect([await vulnCount(), await count("events")]).toEqual([vulns + 1, events + 1]);
  });

  it("costs no extra round trip: the reservation rides in the read batch", async () => {
    const first = await send("k-trips", vulnBody());
    expect(first.roundTrips).toBe(3);
    const replay = await send("k-trips", vulnBody());
    expect(replay.roundTrips).toBe(2);
  });

  it("answers 422 idempotency_key_reused to the same key with another body", async () => {
    await send("k-reuse", vulnBody("one"));
    const res = await send("k-reuse", vulnBody("two"));
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "idempotency_key_reused", source: { header: "Idempotency-Key" } });
  });

  it("scopes keys to the API key: another organization's identical key is its own", async () => {
    const other = await organization();
    const otherBrief = (await brief(other, { published_at: PUBLISHED })).id;
    await send("k-scope", vulnBody());
    const res = await api("POST", "/v1/vulns", {
      key: other.key,
      headers: { "Idempotency-Key": "k-scope" },
      body: { data: { ...vulnBody().data, relationships: { brief: { data: { type: "brief", id: otherBrief } } } } },
      env: quiet,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("answers 409 while the same request is in flight, and takes over one abandoned a minute ago", async () => {
    const body = JSON.stringify(vulnBody("in flight"));
    const hash = await idempotencyRequestHash("POST", "/v1/vulns", body);
    const insert = (key: string, createdAt: string) =>
      env.DB.prepare(
        "INSERT INTO idempotency_keys (scope, key, request_hash, state, token, created_at, expires_at) VALUES (?, ?, ?, 'in_flight', 'other', ?, ?)",
      )
        .bind(org.keyId, key, hash, createdAt, new Date(Date.now() + 86_400_000).toISOString())
        .run();
    await insert("k-flight", new Date().toISOString());
    const busy = await api("POST", "/v1/vulns", { key: org.key, rawBody: body, headers: { "Idempotency-Key": "k-flight" }, env: quiet });
    expect(busy.status).toBe(409);
    expect(busy.body.errors[0]).toMatchObject({ code: "conflict", source: { header: "Idempotency-Key" } });

    await insert("k-abandoned", new Date(Date.now() - 120_000).toISOString());
    const takeover = await api("POST", "/v1/vulns", {
      key: org.key,
      rawBody: body,
      headers: { "Idempotency-Key": "k-abandoned" },
      env: quiet,
    });
    expect(takeover.status).toBe(201);
  });

  it("forgets a key after 24 hours", async () => {
    const first = await send("k-expire", vulnBody());
    await env.DB.prepare("UPDATE idempotency_keys SET expires_at = ? WHERE key = 'k-expire'")
      .bind(new Date(Date.now() - 1000).toISOString())
      .run();
    const again = await send("k-expire", vulnBody());
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it("frees the key when the request fails, so the client can fix it and retry with the same key", async () => {
    const bad = await send("k-fix", { data: { ...vulnBody().data, attributes: { title: "", description: "x" } } });
    expect(bad.status).toBe(422);
    const fixed = await send("k-fix", vulnBody());
    expect(fixed.status).toBe(201);
  });

  it("stores nothing when the change's batch fails: the key stays free", async () => {
    const logs = expectedErrorLogs();
    const failing = rewritingSql((sql) => sql.replace(/insert into "events"/i, 'insert into "no_such_table"'));
    const failed = await api("POST", "/v1/vulns", {
      key: org.key,
      body: vulnBody(),
      headers: { "Idempotency-Key": "k-atomic" },
      env: { ...quiet, DB: failing },
    });
    expect(failed.status).toBe(500);
    expect(logs).toEqual([
      expect.objectContaining({ request_id: failed.headers.get("X-Request-Id"), error: expect.stringContaining("no_such_table") }),
    ]);
    const retried = await send("k-atomic", vulnBody());
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it.each(["", "x".repeat(256), "clé-1", "tab\there"])(
    "answers 400 at the header to a key that is empty, too long or not printable ASCII (%#)",
    async (key) => {
      const res = await api("POST", "/v1/vulns", { key: org.key, body: vulnBody(), headers: { "Idempotency-Key": key }, env: quiet });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: "bad_request", source: { header: "Idempotency-Key" } });
    },
  );

  it("accepts a key of 255 characters", async () => {
    expect((await send("k".repeat(255), vulnBody())).status).toBe(201);
  });

  describe.each([
    ["/v1/policies", () => ({ data: { type: "policy", attributes: { name: "Idem" } } })],
    ["/v1/assets", () => ({ data: { type: "asset", attributes: { kind: "domain", value: "idem.example.com" } } })],
    ["/v1/briefs", () => ({ data: { type: "brief", attributes: { name: "Idem" } } })],
  ])("on POST %s", (path, body) => {
    it("replays the first response and creates once", async () => {
      const fresh = await organization();
      const first = await send("k-each", body(), fresh.key, path);
      const second = await send("k-each", body(), fresh.key, path);
      expect(first.status).toBe(201);
      expect(second.text).toBe(first.text);
      expect(second.headers.get("Idempotent-Replayed")).toBe("true");
      expect((await get(path, fresh.key)).body.meta.page.total).toBe(1);
    });
  });

  it("on operator POSTs: organizations, and API keys (whose replay cannot show the key)", async () => {
    const op = org.operatorKey;
    const orgBody = { data: { type: "organization", attributes: { name: "Idem Org", slug: "idem-org" } } };
    const o1 = await send("k-org", orgBody, op, "/v1/organizations");
    const o2 = await send("k-org", orgBody, op, "/v1/organizations");
    expect(o2.text).toBe(o1.text);
    const keyBody = { data: { type: "api_key", attributes: { name: "idem" } } };
    const k1 = await send("k-key", keyBody, op, `/v1/organizations/${o1.body.data.id}/api_keys`);
    const k2 = await send("k-key", keyBody, op, `/v1/organizations/${o1.body.data.id}/api_keys`);
    expect(k1.body.data.attributes.key).toMatch(/^vdp_/);
    expect(k2.headers.get("Idempotent-Replayed")).toBe("true");
    expect(k2.body.data.id).toBe(k1.body.data.id);
    expect(k2.body.data.attributes.key).toBeNull();
    const stored = await env.DB.prepare("SELECT response_body FROM idempotency_keys WHERE key = 'k-key'").first<{
      response_body: string;
    }>();
    expect(stored!.response_body).not.toContain(k1.body.data.attributes.key);
  });

  it("on an operator's organization, the same key with another body answers 422 idempotency_key_reused and makes nothing", async () => {
    const op = org.operatorKey;
    const body = (slug: string) => ({ data: { type: "organization", attributes: { name: "Idem Reuse", slug } } });
    expect((await send("k-org-reuse", body("idem-reuse-1"), op, "/v1/organizations")).status).toBe(201);
    const other = await send("k-org-reuse", body("idem-reuse-2"), op, "/v1/organizations");
    expect(other.status).toBe(422);
    expect(other.body.errors[0]).toMatchObject({ code: "idempotency_key_reused", source: { header: "Idempotency-Key" } });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM organizations WHERE slug = 'idem-reuse-2'").first("n")).toBe(0);
  });

  it("on an operator's other POSTs: a directory, and a key naming its organization in the body", async () => {
    const op = org.operatorKey;
    const dirBody = { data: { type: "directory", attributes: { name: "Idem Directory", slug: "idem-directory" } } };
    const d1 = await send("k-dir", dirBody, op, "/v1/directories");
    const d2 = await send("k-dir", dirBody, op, "/v1/directories");
    expect(d1.status).toBe(201);
    expect(d2.text).toBe(d1.text);
    expect(d2.headers.get("Idempotent-Replayed")).toBe("true");
    const keyBody = {
      data: {
        type: "api_key",
        attributes: { name: "idem body" },
        relationships: { organization: { data: { type: "organization", id: org.id } } },
      },
    };
    const k1 = await send("k-body-key", keyBody, op, "/v1/api_keys");
    const k2 = await send("k-body-key", keyBody, op, "/v1/api_keys");
    expect(k1.status).toBe(201);
    expect(k2.headers.get("Idempotent-Replayed")).toBe("true");
    expect(k2.body.data.id).toBe(k1.body.data.id);
  });
});
