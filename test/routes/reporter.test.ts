import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { api, del, get, patch, post, untilLimited } from "../helpers/api";
import { eventsOf } from "../helpers/events";
import { brief, organization, PUBLISHED, vuln } from "../helpers/factories";
import { download } from "../helpers/factories";
import { asReporter, nextIp, reporterFixture, reporterUpload, submitReport } from "../helpers/reporter";
import { databaseText, deliverEvents, receiver } from "../helpers/webhooks";
import { sha256Hex } from "../../src/lib/crypto";

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const comment = (body: unknown, extra: Record<string, unknown> = {}) => ({ data: { type: "comment", attributes: { body, ...extra } } });
const commentsOf = async (vulnId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM comments WHERE vuln_id = ?").bind(vulnId).first<{ n: number }>())!.n;

describe("the follow-up token", () => {
  it("is in the submission's 201 only, as vdpr_ and 43 base62 characters; only its SHA-256 is stored; a replay shows null", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const send = () =>
      api("POST", `/v1/p/briefs/${b.attributes.shortcode}/vulns`, {
        body: { data: { type: "vuln", attributes: { title: "SSRF", description: "via the avatar URL" } } },
        headers: { "CF-Connecting-IP": "203.0.113.250", "Idempotency-Key": `k-${crypto.randomUUID()}` },
      });
    const key = `k-${crypto.randomUUID()}`;
    const first = await api("POST", `/v1/p/briefs/${b.attributes.shortcode}/vulns`, {
      body: { data: { type: "vuln", attributes: { title: "SSRF", description: "via the avatar URL" } } },
      headers: { "CF-Connecting-IP": "203.0.113.251", "Idempotency-Key": key },
    });
    expect(first.status).toBe(201);
    const token = first.body.data.attributes.follow_up_token as string;
    expect(token).toMatch(/^vdpr_[0-9A-Za-z]{43}$/);
    const again = await api("POST", `/v1/p/briefs/${b.attributes.shortcode}/vulns`, {
      body: { data: { type: "vuln", attributes: { title: "SSRF", description: "via the avatar URL" } } },
      headers: { "CF-Connecting-IP": "203.0.113.251", "Idempotency-Key": key },
    });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body.data).toMatchObject({ id: first.body.data.id, attributes: { follow_up_token: null } });
    const stored = await databaseText();
    expect(stored).not.toContain(token);
    expect(stored).toContain(await sha256Hex(token));
    // Two submissions, two tokens.
    expect((await send()).body.data.attributes.follow_up_token).not.toBe(token);
  });

  it("is not made for a vuln the organization creates through the API", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const v = await vuln(org, b.id);
    expect(v.attributes.follow_up_token).toBeUndefined();
    const row = await env.DB.prepare("SELECT follow_up_token_hash AS h FROM vulns WHERE id = ?").bind(v.id).first<{ h: string | null }>();
    expect(row!.h).toBeNull();
  });
});

describe("GET /v1/p/report", () => {
  it("shows the report's state and names, JSON:API, no-store, for one D1 query; closing shows at once", async () => {
    const r = await submitReport();
    const res = await asReporter("GET", "/v1/p/report", r.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.shardTrips).toBe(1);
    const b = await get(`/v1/briefs/${r.briefId}`, r.org.key);
    expect(res.body.data).toEqual({
      type: "report",
      id: r.id,
      attributes: {
        shortcode: r.shortcode,
        title: "Stored XSS in the profile name",
        inbox_state: "dispatching",
        release_expected_on: null,
        processing_state: "open",
        triage_state: "new",
        severity: null,
        expectations: {
          acknowledge: { due_at: expect.any(String), met_at: null, state: "pending" },
          triage: { due_at: expect.any(String), met_at: null, state: "pending" },
        },
        created_at: expect.any(String),
        updated_at: expect.any(String),
        brief_name: b.body.data.attributes.name,
        organization_name: expect.stringMatching(/^Org org-/),
        // The factory's brief has no policy.
        policy_version: null,
        // Not credited until the reporter says how.
        credit_name: null,
        credit_consent: false,
        credited_in: [],
      },
      relationships: {},
      links: { self: "/v1/p/report" },
    });
    expect(
      (
        await patch(`/v1/vulns/${r.id}`, r.org.key, {
          data: { type: "vuln", id: r.id, attributes: { processing_state: "closed", severity: "high" } },
        })
      ).status,
    ).toBe(200);
    const closed = await asReporter("GET", "/v1/p/report", r.token);
    expect(closed.body.data.attributes).toMatchObject({ processing_state: "closed", triage_state: "resolved", severity: "high" });
    // A closed report still takes the reporter's comments.
    expect((await asReporter("POST", "/v1/p/report/comments", r.token, { body: comment("Thanks for the fix!") })).status).toBe(201);
  });
});

describe("the conversation", () => {
  it("shows the reporter the organization's replies, never its internal notes, keys or key names, oldest first", async () => {
    const f = await reporterFixture();
    const { token } = f.report;
    const answer = await asReporter("POST", "/v1/p/report/comments", token, { body: comment("It also works on /settings.") });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("Location")).toBe(answer.body.data.links.self);
    expect(answer.body.data.attributes).toMatchObject({ author: "reporter", visibility: "reporter", body: "It also works on /settings." });
    const list = await asReporter("GET", "/v1/p/report/comments", token);
    expect(list.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(list.headers.get("Cache-Control")).toBe("no-store");
    expect(list.body.data.map((c: { attributes: { author: string; body: string } }) => [c.attributes.author, c.attributes.body])).toEqual([
      ["organization", "Thanks, we are looking."],
      ["reporter", "It also works on /settings."],
    ]);
    expect(list.body.meta.page.total).toBe(2);
    expect((await asReporter("GET", `/v1/p/report/comments/${f.internalId}`, token)).status).toBe(404);
    expect((await asReporter("GET", `/v1/p/report/comments/${f.commentId}`, token)).body.data.attributes.body).toBe(
      "Thanks, we are looking.",
    );
    // The organization sees the whole thread, with which side wrote what.
    const thread = await get(`/v1/vulns/${f.report.id}/comments`, f.report.org.key);
    expect(thread.headers.get("Content-Type")).toBe("application/json");
    expect(
      thread.body.data.map(
        (c: { attributes: { author: string; visibility: string } }) => `${c.attributes.author}/${c.attributes.visibility}`,
      ),
    ).toEqual(["organization/reporter", "organization/internal", "reporter/reporter"]);
    const everything = [
      list.text,
      answer.text,
      (await asReporter("GET", "/v1/p/report", token)).text,
      (await asReporter("GET", "/v1/p/report/attachments", token)).text,
      (await asReporter("GET", `/v1/p/report/comments/${f.commentId}`, token)).text,
    ].join("\n");
    for (const secret of ["INTERNAL", f.internalId, f.report.org.key, f.report.org.keyId, f.report.org.key.slice(0, 8)])
      expect(everything).not.toContain(secret);
  });

  it("defaults the organization's comments to internal and fires Vuln::Comment::Created for each side, built from the row", async () => {
    const r = await submitReport();
    const note = await post(`/v1/vulns/${r.id}/comments`, r.org.key, comment("Triage: P2"));
    expect(note.status).toBe(201);
    expect(note.body.data.attributes).toMatchObject({ visibility: "internal", author: "organization" });
    const mine = await asReporter("POST", "/v1/p/report/comments", r.token, { body: comment("Hello") });
    const events = (await eventsOf(r.id)).filter((e) => e.type === "Vuln::Comment::Created");
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([
      {
        comment: {
          id: note.body.data.id,
          vuln_id: r.id,
          author: "organization",
          visibility: "internal",
          body: "Triage: P2",
          created_at: note.body.data.attributes.created_at,
        },
      },
      {
        comment: {
          id: mine.body.data.id,
          vuln_id: r.id,
          author: "reporter",
          visibility: "reporter",
          body: "Hello",
          created_at: mine.body.data.attributes.created_at,
        },
      },
    ]);
  });

  it("delivers the reporter's comment to the organization's webhook, signed and logged", async () => {
    const r = await submitReport();
    const hook = await post("/v1/webhooks", r.org.key, {
      data: {
        type: "webhook",
        attributes: { name: "Inbox", url: "https://hooks.example.com/vdp" },
        relationships: { trigger_event_types: { data: [{ type: "trigger_event_type", id: "0b1e7f1a-5c52-5d7e-9a01-000000000009" }] } },
      },
    });
    expect(hook.status).toBe(201);
    await asReporter("POST", "/v1/p/report/comments", r.token, { body: comment("Any update?") });
    const event = (await eventsOf(r.id)).find((e) => e.type === "Vuln::Comment::Created")!;
    const rec = receiver();
    restore = rec.restore;
    const run = await deliverEvents([event.id]);
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0]!.headers["webhook-id"]).toBe(event.id);
    expect(rec.sent[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
    expect(JSON.parse(rec.sent[0]!.body).comment).toMatchObject({ author: "reporter", body: "Any update?" });
    const log = await get(`/v1/webhooks/${hook.body.data.id}/deliveries/${run.deliveryIds[0]}`, r.org.key);
    expect(log.body.data.attributes).toMatchObject({ status: "succeeded", event_type: "Vuln::Comment::Created" });
  });

  it("lets the organization show and delete a comment; a deleted reply leaves the reporter's view", async () => {
    const f = await reporterFixture();
    const path = `/v1/vulns/${f.report.id}/comments/${f.commentId}`;
    expect((await get(path, f.report.org.key)).body.data.attributes.body).toBe("Thanks, we are looking.");
    expect((await del(path, f.report.org.key)).status).toBe(204);
    expect((await get(path, f.report.org.key)).status).toBe(404);
    expect((await del(path, f.report.org.key)).status).toBe(404);
    expect((await asReporter("GET", "/v1/p/report/comments", f.report.token)).body.data).toEqual([]);
  });
});

describe("a reply nobody can read", () => {
  it("is refused with a 422 at visibility on a report the organization entered itself (no reporter), and stores nothing", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const v = await vuln(org, b.id);
    const res = await post(`/v1/vulns/${v.id}/comments`, org.key, comment("Can you confirm?", { visibility: "reporter" }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "validation_error", source: { pointer: "/data/attributes/visibility" } });
    expect(res.body.errors[0].detail).toContain("no reporter");
    expect((await get(`/v1/vulns/${v.id}/comments`, org.key)).body.meta.page.total).toBe(0);
    expect((await post(`/v1/vulns/${v.id}/comments`, org.key, comment("Our own note."))).status).toBe(201);
    // Another organization's vuln still answers exactly like one that does not exist.
    const other = await organization();
    const theirs = await post(`/v1/vulns/${v.id}/comments`, other.key, comment("Hi", { visibility: "reporter" }));
    expect(theirs.body.errors[0].code).toBe("vuln_not_found");
  });
});

describe("bad input writes nothing", () => {
  it.each([
    ["a body over 20,000 characters", comment("x".repeat(20_001)), 422, "/data/attributes/body"],
    ["an empty body", comment(""), 422, "/data/attributes/body"],
    ["a body of white space", comment("  \n\t "), 422, "/data/attributes/body"],
    ["no body", { data: { type: "comment", attributes: {} } }, 422, "/data/attributes/body"],
    ["a body that is not text", comment(42), 422, "/data/attributes/body"],
    ["the author named", comment("hi", { author: "organization" }), 422, "/data/attributes/author"],
    ["a visibility from the reporter", comment("hi", { visibility: "internal" }), 422, "/data/attributes/visibility"],
    ["another type", { data: { type: "vuln", attributes: { body: "hi" } } }, 409, "/data/type"],
  ])("reporter: %s", async (_, body, status, pointer) => {
    const r = await submitReport();
    const res = await asReporter("POST", "/v1/p/report/comments", r.token, { body });
    expect(res.status).toBe(status);
    expect(res.body.errors[0].source.pointer).toBe(pointer);
    expect(await commentsOf(r.id)).toBe(0);
    expect((await eventsOf(r.id)).map((e) => e.type)).toEqual(["Vuln::Created"]);
  });

  it("takes exactly 20,000 characters, and the organization has the same bounds", async () => {
    const r = await submitReport();
    expect((await asReporter("POST", "/v1/p/report/comments", r.token, { body: comment("y".repeat(20_000)) })).status).toBe(201);
    expect((await post(`/v1/vulns/${r.id}/comments`, r.org.key, comment("y".repeat(20_001)))).status).toBe(422);
    expect((await post(`/v1/vulns/${r.id}/comments`, r.org.key, comment("", { visibility: "reporter" }))).status).toBe(422);
    expect((await post(`/v1/vulns/${r.id}/comments`, r.org.key, comment("hi", { visibility: "public" }))).status).toBe(422);
    expect(await commentsOf(r.id)).toBe(1);
  });

  it("a deleted vuln: its token answers 404 on every route and writes nothing; the organization's comment on it is a 404", async () => {
    const r = await submitReport();
    expect((await del(`/v1/vulns/${r.id}`, r.org.key)).status).toBe(204);
    for (const [method, path] of [
      ["GET", "/v1/p/report"],
      ["GET", "/v1/p/report/comments"],
      ["POST", "/v1/p/report/comments"],
      ["GET", "/v1/p/report/attachments"],
      ["POST", "/v1/p/report/attachments"],
    ] as const) {
      const res = await asReporter(method, path, r.token, {
        body: method === "POST" ? comment("still there?") : undefined,
        headers: { "CF-Connecting-IP": nextIp() },
      });
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body.errors[0]).toMatchObject({ code: "not_found", detail: expect.stringMatching(/deleted this report/) });
    }
    // A token nobody was given is still a 401.
    const random = await asReporter("GET", "/v1/p/report", `vdpr_${"Z".repeat(43)}`, { headers: { "CF-Connecting-IP": nextIp() } });
    expect(random.status).toBe(401);
    const late = await post(`/v1/vulns/${r.id}/comments`, r.org.key, comment("too late"), { headers: { "Idempotency-Key": "late-1" } });
    expect(late.status).toBe(404);
    expect(late.body.errors[0].code).toBe("vuln_not_found");
    expect(await commentsOf(r.id)).toBe(0);
  });
});

describe("limits", () => {
  it("allows 30 requests a minute per token, then 429 with Retry-After; another report's token is not affected", async () => {
    const r = await submitReport();
    const other = await submitReport(r.org);
    const { ok, limited } = await untilLimited(30, () => asReporter("GET", "/v1/p/report", r.token));
    expect(ok).toBeGreaterThanOrEqual(30);
    expect(limited!.headers.get("Retry-After")).toBe("60");
    expect(limited!.headers.get("Cache-Control")).toBe("no-store");
    expect((await asReporter("GET", "/v1/p/report", other.token)).status).toBe(200);
  });
});

describe("the reporter's files", () => {
  it("uploads as the organization does (uploaded_by reporter), tells the organization with Vuln::Updated, and reads every file of the report", async () => {
    const f = await reporterFixture();
    const { token, id, org } = f.report;
    const before = (await get(`/v1/vulns/${id}`, org.key)).body.data.attributes.updated_at;
    const up = await reporterUpload(token, '{"steps":["login","paste"]}', "../../steps.json", { contentType: "application/json" });
    expect(up.status).toBe(201);
    expect(up.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(up.headers.get("Location")).toBe(up.body.data.links.self);
    expect(up.body.data).toMatchObject({
      type: "attachment",
      attributes: { filename: "steps.json", uploaded_by: "reporter", byte_size: 27 },
      relationships: { report: { data: { type: "report", id } } },
    });
    expect((await eventsOf(id)).map((e) => e.type).at(-1)).toBe("Vuln::Updated");
    expect((await get(`/v1/vulns/${id}`, org.key)).body.data.attributes.updated_at > before).toBe(true);
    const theirs = await get(`/v1/vulns/${id}/attachments/${up.body.data.id}`, org.key);
    expect(theirs.body.data.attributes.uploaded_by).toBe("reporter");
    const list = await asReporter("GET", "/v1/p/report/attachments", token);
    expect(list.body.data.map((a: { attributes: { uploaded_by: string } }) => a.attributes.uploaded_by).sort()).toEqual([
      "organization",
      "reporter",
    ]);
    const one = await asReporter("GET", `/v1/p/report/attachments/${f.attachmentId}`, token);
    expect(one.body.data.meta.content_url).toBe(`/v1/p/report/attachments/${f.attachmentId}/content`);
    const bytes = await download(token, one.body.data.meta.content_url);
    expect(bytes.status).toBe(200);
    expect(new TextDecoder().decode(bytes.bytes)).toBe('{"plan":1}');
    expect(bytes.headers.get("Content-Disposition")).toMatch(/^attachment;/);
    expect(bytes.headers.get("Cache-Control")).toBe("no-store");
    expect(bytes.headers.get("Content-Security-Policy")).toBe("sandbox");
  });

  it("refuses an empty file and a bad filename, storing nothing and firing nothing", async () => {
    const r = await submitReport();
    expect((await reporterUpload(r.token, "", "empty.json", { contentType: "application/json" })).status).toBe(422);
    const bad = await reporterUpload(r.token, "{}", "/", { contentType: "application/json" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source).toEqual({ parameter: "filename" });
    expect((await asReporter("GET", "/v1/p/report/attachments", r.token)).body.meta.page.total).toBe(0);
    expect((await eventsOf(r.id)).map((e) => e.type)).toEqual(["Vuln::Created"]);
  });
});
