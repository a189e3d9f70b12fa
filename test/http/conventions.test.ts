import { HTTPException } from "hono/http-exception";
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { beforeAll, describe, expect, it } from "vitest";
import { api, browse, get, patch, post, untilLimited } from "../helpers/api";
import { failingBatch, LOCKED, ROLLED_BACK, rollingBack, unavailable } from "../helpers/d1-faults";
import { expectedErrorLogs } from "../helpers/logs";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { html } from "hono/html";
import { PAGE_CSP } from "../../src/templates/layout";

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

/** An HTML page through the Worker's fetch handler (the api helper parses JSON). */
async function page(path: string) {
  const res = await worker.fetch(new Request(`https://api.vdp.test${path}`), env, createExecutionContext());
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const policyDoc = (attributes: Record<string, unknown> = {}) => ({ data: { type: "policy", attributes } });

async function policyCount(): Promise<number> {
  return (await get("/v1/policies", org.key)).body.meta.page.total;
}

describe("documents and media types", () => {
  it("answers JSON:API documents with the JSON:API media type and a jsonapi member", async () => {
    const res = await get("/v1/policies", org.key);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(res.body.jsonapi).toEqual({ version: "1.1" });
    expect(Array.isArray(res.body.data)).toBe(true);
  });

  it("gives every resource id, type, attributes, relationships and links.self", async () => {
    const p = await policy(org);
    expect(Object.keys(p).sort()).toEqual(["attributes", "id", "links", "relationships", "type"]);
    expect(p.links.self).toBe(`/v1/policies/${p.id}`);
    expect(p.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p.attributes.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("answers 201 with Location equal to links.self on create", async () => {
    const res = await post("/v1/policies", org.key, policyDoc({ name: "Located" }));
    expect(res.status).toBe(201);
    expect(res.headers.get("Location")).toBe(res.body.data.links.self);
  });

  it.each([
    "application/vnd.api+json",
    "application/json",
    "application/json; charset=utf-8",
    'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
    "application/vnd.api+json; profile=x",
  ])("accepts a body sent as %s", async (contentType) => {
    const res = await post("/v1/policies", org.key, policyDoc(), { contentType });
    expect(res.status).toBe(201);
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "application/vnd.api+json; charset=utf-8", "application/xml"])(
    "answers 415 to a body sent as %s and writes nothing",
    async (contentType) => {
      const before = await policyCount();
      const res = await post("/v1/policies", org.key, policyDoc(), { contentType });
      expect(res.status).toBe(415);
      expect(res.body.errors[0]).toMatchObject({ status: "415", code: "unsupported_media_type", source: { header: "Content-Type" } });
      expect(await policyCount()).toBe(before);
    },
  );

  it("answers 415 to a body without a Content-Type", async () => {
    const res = await api("POST", "/v1/policies", { key: org.key, rawBody: JSON.stringify(policyDoc()), contentType: null });
    expect(res.status).toBe(415);
  });

  it.each(["{", '{"data":', "not json", ""])("answers 400 to the malformed body %j and writes nothing", async (rawBody) => {
    const before = await policyCount();
    const res = await api("POST", "/v1/policies", { key: org.key, rawBody });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: "400", code: "bad_request", title: "Bad request" });
    expect(await policyCount()).toBe(before);
  });

  it("answers 422 to a document without data", async () => {
    const res = await post("/v1/policies", org.key, { policy: {} });
    expect(res.status).toBe(422);
    const pointers = res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer);
    expect(pointers).toEqual(expect.arrayContaining(["/data", "/policy"]));
  });

  it("answers 409 when data.type is not the endpoint's", async () => {
    const res = await post("/v1/policies", org.key, { data: { type: "brief", attributes: {} } });
    expect(res.status).toBe(409);
    expect(res.body.errors[0]).toMatchObject({ code: "conflict", source: { pointer: "/data/type" } });
  });

  it("answers 409 when data.id differs from the path id, and changes nothing", async () => {
    const p = await policy(org, { name: "Original" });
    const res = await patch(`/v1/policies/${p.id}`, org.key, {
      data: { type: "policy", id: "01900000-0000-7000-8000-000000000000", attributes: { name: "X" } },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].source.pointer).toBe("/data/id");
    expect((await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes.name).toBe("Original");
  });

  it("names each read-only and unknown attribute with a 422 at its pointer", async () => {
    const res = await post(
      "/v1/policies",
      org.key,
      // secret is a webhook's member, read-only there; a policy has none.
      policyDoc({ id: "x", shortcode: "x", maturity_rating: 5, created_at: "x", colour: "red", secret: "x" }),
    );
    expect(res.status).toBe(422);
    const byPointer = Object.fromEntries(
      res.body.errors.map((e: { source: { pointer: string }; detail: string }) => [e.source.pointer, e.detail]),
    );
    expect(byPointer).toEqual({
      "/data/attributes/id": "id is read-only.",
      "/data/attributes/shortcode": "shortcode is read-only.",
      "/data/attributes/maturity_rating": "maturity_rating is read-only.",
      "/data/attributes/created_at": "created_at is read-only.",
      "/data/attributes/colour": "colour is not a known member here.",
      "/data/attributes/secret": "secret is not a known member here.",
    });
  });

  it("answers 413 to a body over 1 MiB", async () => {
    const res = await post("/v1/policies", org.key, policyDoc({ name: "x".repeat(1024 * 1024 + 1) }));
    expect(res.status).toBe(413);
    expect(res.body.errors[0]).toMatchObject({ status: "413", code: "payload_too_large" });
  });
});

describe("routes", () => {
  it("answers an unknown route with a JSON:API 404", async () => {
    const res = await get("/v1/nothing-here", org.key);
    expect(res.status).toBe(404);
    expect(res.body.errors[0]).toMatchObject({ status: "404", code: "not_found", title: "Not found" });
  });

  it("answers a trailing slash as an unknown route, not a wrong method", async () => {
    const res = await get("/v1/policies/", org.key);
    expect(res.status).toBe(404);
    expect(res.headers.get("Allow")).toBeNull();
  });

  it("answers an unknown route outside /v1 with a JSON:API 404 too", async () => {
    const res = await get("/nowhere");
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe("not_found");
  });

  it.each([
    ["PUT", "/v1/policies", "GET, HEAD, POST"],
    ["DELETE", "/v1/policies", "GET, HEAD, POST"],
    ["POST", "/v1/policies/01900000-0000-7000-8000-000000000000", "DELETE, GET, HEAD, PATCH"],
    ["DELETE", "/v1/organizations/01900000-0000-7000-8000-000000000000", "GET, HEAD, PATCH"],
  ])("answers %s %s with 405 and Allow", async (method, path, allow) => {
    const res = await api(method, path, { key: org.key });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe(allow);
    expect(res.body.errors[0]).toMatchObject({ status: "405", code: "method_not_allowed" });
  });

  it("answers a 405 in the media type of the path's own answers (the public submission's: plain JSON)", async () => {
    const res = await api("DELETE", "/v1/p/briefs/DEMX-0001/vulns");
    expect([res.status, res.headers.get("Content-Type"), res.headers.get("Allow")]).toEqual([405, "application/json", "POST"]);
  });
});

describe("failures", () => {
  it("answers an unexpected failure with a 500 that leaks no internals", async () => {
    const logs = expectedErrorLogs();
    const res = await get("/v1/policies", org.key, {
      env: { DB: unavailable("D1_ERROR: no such column: secret_column: SQLITE_ERROR at select * from policies", { spareKeyLookup: true }) },
    });
    expect(res.status).toBe(500);
    expect(res.body.errors[0]).toMatchObject({ status: "500", code: "internal_error", title: "Internal error" });
    expect(res.text).not.toMatch(/SQLITE|secret_column|select|at \w+ \(/i);
    expect(res.body.errors[0].meta).toEqual({ request_id: res.headers.get("X-Request-Id") });
    // The details stay in the log, under the same request id.
    expect(logs).toEqual([
      expect.objectContaining({
        level: "error",
        request_id: res.headers.get("X-Request-Id"),
        error: expect.stringContaining("secret_column"),
      }),
    ]);
  });

  it("logs the cause of every 500 under its request id, Hono's own HTTPException(500) too", async () => {
    const logs = expectedErrorLogs();
    const consumed = () => new HTTPException(500, { message: "Cannot clone request: body was already consumed and not cached." });
    const res = await get("/v1/policies", org.key, { env: { DB: unavailable(consumed, { spareKeyLookup: true }) } });
    expect([res.status, res.body.errors[0].code]).toEqual([500, "internal_error"]);
    expect(logs).toEqual([
      expect.objectContaining({
        level: "error",
        request_id: res.headers.get("X-Request-Id"),
        error: expect.stringContaining("body was already consumed"),
      }),
    ]);
  });

  // D1's transient errors, and the local runtime's when another process wrote its database file.
  it.each([
    "D1_ERROR: Network connection lost.",
    "D1_ERROR: Failed to get session commit token: internal error; reference = hvsdne9gfr026cj6g076n0o5",
    "D1_ERROR: Durable Object reset because its code was updated.",
    LOCKED,
  ])("answers D1 being unavailable with 503 and Retry-After: %s", async (message) => {
    const logs = expectedErrorLogs();
    const res = await get("/v1/policies", org.key, { env: { DB: unavailable(message, { spareKeyLookup: true }) } });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBeTruthy();
    expect(res.body.errors[0]).toMatchObject({ status: "503", code: "service_unavailable" });
    expect(logs).toEqual([
      expect.objectContaining({ request_id: res.headers.get("X-Request-Id"), error: expect.stringContaining(message) }),
    ]);
  });
});

describe("statements the local runtime rolled back (another process wrote its database file)", () => {
  it("runs a read again: three failed attempts of the key lookup still answer 200", async () => {
    const faults = rollingBack(3);
    const res = await get("/v1/policies", org.key, { env: { DB: faults.db } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual((await get("/v1/policies", org.key)).body.data);
    expect(faults.runs()).toBeGreaterThan(3);
  });

  // The failed attempt wrote nothing (the local runtime rolled its transaction back; here it never
  // reached D1): the batch run again makes the one policy.
  it.each([ROLLED_BACK, LOCKED])("runs a write's batch again: the policy is created (%s)", async (message) => {
    const name = `Retried ${crypto.randomUUID()}`;
    const res = await post("/v1/policies", org.key, policyDoc({ name }), {
      env: { DB: failingBatch(1, message, "before") },
    });
    expect(res.status).toBe(201);
    const all = (await get("/v1/policies?page[size]=100", org.key)).body.data as { attributes: { name: string } }[];
    expect(all.filter((p) => p.attributes.name === name)).toHaveLength(1);
  });

  it("gives up after five attempts with 503 and Retry-After, as for any storage outage", async () => {
    const logs = expectedErrorLogs();
    const faults = rollingBack(5);
    const res = await get("/v1/policies", org.key, { env: { DB: faults.db } });
    expect(faults.runs()).toBe(5);
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect(logs).toEqual([expect.objectContaining({ error: expect.stringContaining("Failed to get session commit token") })]);
  });
});

describe("headers", () => {
  it("gives every response an X-Request-Id, errors included", async () => {
    for (const res of [await get("/v1/policies", org.key), await get("/v1/policies"), await get("/nowhere")]) {
      expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("marks authenticated responses no-store and sends security headers", async () => {
    const res = await get("/v1/policies", org.key);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Strict-Transport-Security")).toMatch(/max-age=/);
    expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(res.headers.get("X-Frame-Options")).toBe("SAMEORIGIN");
    // Nothing for browsers and plug-ins gone from use, nor what only an HTML document heeds.
    for (const gone of [
      "X-XSS-Protection",
      "X-Download-Options",
      "X-Permitted-Cross-Domain-Policies",
      "Origin-Agent-Cluster",
      "X-DNS-Prefetch-Control",
    ])
      expect([gone, res.headers.get(gone)]).toEqual([gone, null]);
    // A page has those two.
    const page = await browse("GET", "/docs");
    expect([page.headers.get("Origin-Agent-Cluster"), page.headers.get("X-DNS-Prefetch-Control")]).toEqual(["?1", "off"]);
  });

  it("sends CORS headers on public routes only", async () => {
    expect(
      (await get("/v1/policies", org.key, { headers: { Origin: "https://example.org" } })).headers.get("Access-Control-Allow-Origin"),
    ).toBeNull();
    const pub = await get("/v1/p/briefs/NONE-0000", null, { headers: { Origin: "https://example.org" } });
    expect(pub.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("answers a CORS preflight on public routes", async () => {
    const res = await api("OPTIONS", "/v1/p/briefs/ABCD-EFGH", {
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });
});

describe("CORS and X-RateLimit-Limit, by what each route is", () => {
  const origin = { Origin: "https://example.org" };
  /** What an answer says: whether any web page may read it, and whether it names its caller's limit. */
  const said = (res: { headers: Headers }) => ({
    cors: res.headers.get("Access-Control-Allow-Origin"),
    limit: res.headers.get("X-RateLimit-Limit") !== null,
  });
  const preflight = (path: string, method: string, headers: Record<string, string> = {}) =>
    api("OPTIONS", path, { headers: { ...origin, "Access-Control-Request-Method": method, ...headers } });

  it("opens what needs no key to any web page, and names the limit on the API's answers only", async () => {
    const answers = {
      index: said(await get("/", null, { headers: origin })),
      v1: said(await get("/v1", null, { headers: origin })),
      keys: said(await get("/.well-known/vdp-keys.json", null, { headers: origin })),
      publicRead: said(await get("/v1/p/briefs/NONE-0000", null, { headers: origin })),
      publicUnknown: said(await get("/v1/p/nothing-here", null, { headers: origin })),
      organizationFile: said(await get("/o/no-such-org/security.txt", null, { headers: origin })),
      customDomainFile: said(await api("GET", "/.well-known/security.txt", { headers: origin, origin: "https://nobody.example" })),
      keyed: said(await get("/v1/policies", org.key, { headers: origin })),
      keyedWithoutKey: said(await get("/v1/policies", null, { headers: origin })),
      keyedUnknown: said(await get("/v1/nothing-here", org.key, { headers: origin })),
      page: said(await browse("GET", "/b/NONE-0000", { headers: origin })),
      reference: said(await browse("GET", "/docs", { headers: origin })),
      unknownOutsideApi: said(await get("/nothing-here", null, { headers: origin })),
    };
    const open = { cors: "*", limit: true };
    expect(answers).toEqual({
      index: open,
      v1: open,
      keys: open,
      publicRead: open,
      publicUnknown: open,
      organizationFile: { cors: "*", limit: false },
      customDomainFile: { cors: "*", limit: false },
      keyed: { cors: null, limit: true },
      keyedWithoutKey: { cors: null, limit: true },
      keyedUnknown: { cors: null, limit: true },
      page: { cors: null, limit: false },
      reference: { cors: null, limit: false },
      unknownOutsideApi: { cors: null, limit: false },
    });
  });

  it("answers a preflight as the request it announces would be answered: open where no key is needed, not where one is", async () => {
    const allowed = async (path: string, method: string, headers?: Record<string, string>) =>
      (await preflight(path, method, headers)).headers.get("Access-Control-Allow-Origin");
    expect({
      index: await allowed("/", "GET"),
      keys: await allowed("/.well-known/vdp-keys.json", "GET"),
      publicRead: await allowed("/v1/p/briefs/ABCD-EFGH", "GET"),
      submission: await allowed("/v1/p/briefs/ABCD-EFGH/vulns", "POST", { "Access-Control-Request-Headers": "content-type" }),
      reporter: await allowed("/v1/p/report", "GET", { "Access-Control-Request-Headers": "authorization" }),
      organizationFile: await allowed("/o/no-such-org/advisories.atom", "GET"),
      keyedRead: await allowed("/v1/policies", "GET", { "Access-Control-Request-Headers": "authorization" }),
      keyedWrite: await allowed("/v1/vulns/0b9d8a52-5a64-4f3c-9a51-3d1b2b4c5e6f", "PATCH"),
      page: await allowed("/b/ABCD-EFGH", "POST"),
    }).toEqual({
      index: "*",
      keys: "*",
      publicRead: "*",
      submission: "*",
      reporter: "*",
      organizationFile: "*",
      keyedRead: null,
      keyedWrite: null,
      page: null,
    });
  });
});

describe("rate limits", () => {
  it("answers 429 with Retry-After past 600 requests a minute for one key", async () => {
    const busy = await organization();
    const { ok, limited } = await untilLimited(600, () => get("/v1/organizations", busy.key));
    expect(ok).toBeGreaterThanOrEqual(600);
    expect(limited?.status).toBe(429);
    if (!limited) return;
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(limited.body.errors[0]).toMatchObject({ status: "429", code: "rate_limited", title: "Too many requests" });
    // Other keys have their own budget.
    expect((await get("/v1/organizations", org.key)).status).toBe(200);
    expect(limited.headers.get("X-RateLimit-Limit")).toBe("600");
  }, 60_000);

  it("tells every caller its limit in X-RateLimit-Limit: the key's, the address's, the token's", async () => {
    const b = await brief(org, { published_at: PUBLISHED });
    const shortcode = b.attributes.shortcode as string;
    const submitted = await post(`/v1/p/briefs/${shortcode}/vulns`, null, {
      data: { type: "vuln", attributes: { title: "Limits", description: "Which limit counts me?" } },
    });
    const token = submitted.body.data.attributes.follow_up_token as string;
    const limitOf = (res: { headers: Headers }) => res.headers.get("X-RateLimit-Limit");
    // The public read twice: once from the app, once from the edge cache, which answers before the app.
    const first = await get(`/v1/p/briefs/${shortcode}`);
    const cached = await get(`/v1/p/briefs/${shortcode}`);
    expect(cached.headers.get("X-Cache")).toBe("HIT");
    expect({
      key: limitOf(await get("/v1/policies", org.key)),
      keyError: limitOf(await get("/v1/policies?sort=name", org.key)),
      noKey: limitOf(await get("/v1/policies")),
      badToken: limitOf(await get("/v1/p/report", `vdpr_${"A".repeat(43)}`)),
      read: limitOf(first),
      cachedRead: limitOf(cached),
      index: limitOf(await get("/v1")),
      submission: limitOf(submitted),
      reporter: limitOf(await get("/v1/p/report", token)),
    }).toEqual({
      key: "600",
      keyError: "600",
      noKey: "60",
      badToken: "60",
      read: "300",
      cachedRead: "300",
      index: "300",
      submission: "5",
      reporter: "30",
    });
  });
});

describe("error objects: the request id and a link to their explanation", () => {
  // One answer of each path to an error: validation hook, middleware, onError, notFound, auth.
  const answers = () => [
    get("/v1/policies?sort=name", org.key),
    get("/v1/policies"),
    get("/v1/nowhere", org.key),
    api("PUT", "/v1/policies", { key: org.key }),
    post("/v1/policies", org.key, policyDoc({ cvd_timeline: 999, name: "" })),
    get("/v1/policies", org.key, { env: { DB: unavailable("D1_ERROR: Network connection lost.", { spareKeyLookup: true }) } }),
  ];

  it("carries meta.request_id (the X-Request-Id) and links.about to its code's entry on every error object", async () => {
    expectedErrorLogs(); // one of the answers is D1 made unavailable on purpose
    for (const res of await Promise.all(answers())) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      const id = res.headers.get("X-Request-Id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      for (const error of res.body.errors) {
        expect(error.meta).toEqual({ request_id: id });
        expect(error.links).toEqual({ about: `/docs/errors#${error.code}` });
      }
    }
  });

  it("clips a detail that quotes the request at the 1,024 characters the document declares", async () => {
    const type = `application/${"x".repeat(5000)}`;
    const res = await api("POST", "/v1/policies", { key: org.key, rawBody: "{}", contentType: type });
    expect(res.status).toBe(415);
    const detail: string = res.body.errors[0].detail;
    expect(detail.length).toBe(1024);
    expect(detail.endsWith("…")).toBe(true);
    expect(detail.startsWith("application/xxx")).toBe(true);
  });

  it("links to an entry that exists: the errors page has an anchor for every code", async () => {
    const errors = await page("/docs/errors");
    expect(errors.status).toBe(200);
    expect(errors.headers.get("Content-Type")).toMatch(/^text\/html/);
    const anchors = new Set([...errors.text.matchAll(/id="([a-z_]+)"/g)].map((m) => m[1]));
    const doc = (await get("/v1/openapi.json")).body;
    const codes: string[] = doc.components.schemas.Error.properties.code.enum;
    expect(codes.length).toBeGreaterThan(10);
    expect(codes.filter((code) => !anchors.has(code))).toEqual([]);
  });
});

describe("the index and the reference", () => {
  it.each(["/", "/v1"])("GET %s answers a small JSON index with no key", async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.api+json");
    expect(res.body.meta).toMatchObject({ name: expect.any(String), version: expect.any(String), docs: "/docs", errors: "/docs/errors" });
    // Top-level links hold JSON:API's own members only.
    expect(res.body.links).toEqual({ self: path, describedby: "/v1/openapi.json" });
    expect(res.body.meta.public_routes.map((r: { path: string }) => r.path)).toEqual(
      expect.arrayContaining(["/v1/p/briefs/{shortcode}", "/v1/p/briefs/{shortcode}/vulns", "/v1/p/directories/{slug}"]),
    );
  });

  it("still refuses every other /v1 path without a key", async () => {
    expect((await get("/v1/")).status).toBe(401);
    expect((await get("/v1/nowhere")).status).toBe(401);
  });

  it("serves /docs as a page rendered from the served document: every operation, tag and schema, no script", async () => {
    const res = await page("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    // The pages' own policy: this origin's stylesheet, no script of any kind.
    expect(res.headers.get("Content-Security-Policy")).toBe(PAGE_CSP);
    expect(res.text).not.toMatch(/<script/i);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    const doc = (await get("/v1/openapi.json")).body;
    const ids = new Set([...res.text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string; summary: string }>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!ids.has(op.operationId)) missing.push(op.operationId);
        // Its method and path head the operation, its summary follows, as the document writes them.
        const at = res.text.indexOf(`id="${op.operationId}"`);
        const article = res.text.slice(at, res.text.indexOf("</article>", at));
        expect(article, op.operationId).toContain(`>${method.toUpperCase()}</span> <code class="path">${path}</code>`);
        expect(article, op.operationId).toContain(String(html`${op.summary}`));
      }
    }
    for (const name of Object.keys(doc.components.schemas)) if (!ids.has(`schema-${name}`)) missing.push(`schema-${name}`);
    for (const tag of doc.tags as { name: string }[])
      if (!res.text.includes(`<h2>${String(html`${tag.name}`)}</h2>`)) missing.push(tag.name);
    expect(missing).toEqual([]);
    // Every link within the page lands on something of it.
    const anchors = [...res.text.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
    expect(anchors.filter((a) => !ids.has(a))).toEqual([]);
  });
});
