import { beforeAll, describe, expect, it } from "vitest";
import { api, get, patch, untilLimited } from "../helpers/api";
import { eventTypes, fakeQueue } from "../helpers/events";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
let shortcode: string;
let briefId: string;
let ipCounter = 0;
const nextIp = () => `198.51.100.${++ipCounter}`;

beforeAll(async () => {
  org = await organization();
  const b = await brief(org, { published_at: PUBLISHED });
  shortcode = b.attributes.shortcode;
  briefId = b.id;
});

const submission = (attributes: Record<string, unknown> = {}) => ({
  data: {
    type: "vuln",
    attributes: { title: "IDOR on /orders", description: "Change the id in /orders/123 to see others' orders.", ...attributes },
  },
});

function submit(body: unknown, opts: { code?: string; ip?: string; headers?: Record<string, string> } = {}) {
  return api("POST", `/v1/p/briefs/${opts.code ?? shortcode}/vulns`, {
    body,
    contentType: "application/json",
    headers: { "CF-Connecting-IP": opts.ip ?? nextIp(), ...opts.headers },
    env: { EVENTS: fakeQueue().queue },
  });
}

describe("POST /v1/p/briefs/{shortcode}/vulns", () => {
  it("takes a report with no key and answers only its shortcode receipt", async () => {
    const res = await submit(submission({ contact_email: "researcher@example.org", domains: ["shop.example.com"] }));
    expect(res.status).toBe(201);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.body).toEqual({
      jsonapi: { version: "1.1" },
      data: {
        type: "vuln",
        id: expect.any(String),
        attributes: {
          shortcode: expect.stringMatching(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/),
          title: "IDOR on /orders",
          inbox_state: "dispatching",
          release_expected_on: null,
          created_at: expect.any(String),
          follow_up_token: expect.stringMatching(/^vdpr_[0-9A-Za-z]{43}$/),
        },
      },
    });
    expect(res.text).not.toContain(org.id);
    expect(res.shardTrips).toBe(2);
  });

  it("makes the same vuln as an authenticated create: it is in the organization's inbox with its event", async () => {
    const res = await submit(submission({ contact_email: "r@example.org", domains: ["Api.Example.com"] }));
    const shown = await get(`/v1/vulns/${res.body.data.id}`, org.operatorKey);
    expect(shown.body.data.attributes).toMatchObject({
      title: "IDOR on /orders",
      contact_email: "r@example.org",
      domains: ["api.example.com"],
      tags: [],
      inbox_state: "dispatching",
      processing_state: "open",
      shortcode: res.body.data.attributes.shortcode,
    });
    expect(shown.body.data.relationships.brief.data.id).toBe(briefId);
    expect(await eventTypes(res.body.data.id)).toEqual(["Vuln::Created"]);
  });

  it("reads the shortcode as typed", async () => {
    expect((await submit(submission(), { code: shortcode.toLowerCase() })).status).toBe(201);
  });

  it.each([
    [{ title: "" }, "/data/attributes/title"],
    [{ description: "x".repeat(100_001) }, "/data/attributes/description"],
    [{ contact_email: "nope" }, "/data/attributes/contact_email"],
    [{ domains: ["http://x"] }, "/data/attributes/domains/0"],
    [{ tags: ["internal"] }, "/data/attributes/tags"],
    [{ processing_state: "closed" }, "/data/attributes/processing_state"],
  ])("answers 422 to %j at %s, in application/json", async (attributes, pointer) => {
    const res = await submit(submission(attributes));
    expect(res.status).toBe(422);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.body.errors[0].source.pointer).toBe(pointer);
  });

  it("refuses relationships: the brief is the one in the path", async () => {
    const res = await submit({
      ...submission(),
      data: { ...submission().data, relationships: { brief: { data: { type: "brief", id: briefId } } } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe("/data/relationships/brief");
  });

  it("answers 404 Brief not found for drafts, scheduled briefs and unknown shortcodes", async () => {
    const draft = await brief(org);
    const scheduled = await brief(org, { published_at: "2999-01-01T00:00:00Z" });
    for (const code of [draft.attributes.shortcode, scheduled.attributes.shortcode, "ZZZZ-ZZZZ", "nonsense"]) {
      const res = await submit(submission(), { code });
      expect([code, res.status, res.body.errors[0].code]).toEqual([code, 404, "brief_not_found"]);
    }
    // Publishing it opens it for reports.
    await patch(`/v1/briefs/${draft.id}`, org.key, { data: { type: "brief", attributes: { published_at: PUBLISHED } } });
    expect((await submit(submission(), { code: draft.attributes.shortcode })).status).toBe(201);
  });

  it("answers 429 with Retry-After past 5 submissions a minute from one address", async () => {
    const ip = "203.0.113.200";
    const { ok, limited } = await untilLimited(5, () => submit(submission(), { ip }));
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(limited?.headers.get("Retry-After")).toBe("60");
    expect(limited?.body.errors[0].code).toBe("rate_limited");
    expect((await submit(submission(), { ip: "203.0.113.201" })).status).toBe(201);
  });

  it("scopes Idempotency-Key to the client address", async () => {
    const ip = nextIp();
    const first = await submit(submission(), { ip, headers: { "Idempotency-Key": "pub-1" } });
    const replay = await submit(submission(), { ip, headers: { "Idempotency-Key": "pub-1" } });
    // The same answer, but the follow-up token is shown once: the replay has null in its place.
    expect(replay.text).toBe(first.text.replace(/"vdpr_[0-9A-Za-z]+"/, "null"));
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    const elsewhere = await submit(submission(), { headers: { "Idempotency-Key": "pub-1" } });
    expect(elsewhere.body.data.id).not.toBe(first.body.data.id);
  });

  it("answers CORS preflights, as a brief's page in a browser would send them", async () => {
    const res = await api("OPTIONS", `/v1/p/briefs/${shortcode}/vulns`, {
      headers: {
        Origin: "https://researcher.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });
});
