import { beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, api, countingLimiter, get, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
});

let ipCounter = 0;
/** A fresh client address, so one test's budget never spills into another's. */
const freshIp = () => `198.51.100.${++ipCounter}`;

async function policyCount(): Promise<number> {
  return (await get("/v1/policies", org.key)).body.meta.page.total;
}

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("request bodies are scanned before anything parses them", () => {
  it.each([1_500, 8_000, 20_000, 200_000])(
    "answers %i levels of nesting with a 400, before authentication, never a 5xx",
    async (levels) => {
      for (const path of ["/v1/zzz", "/v1/policies", "/v1/vulns"]) {
        const res = await api("POST", path, {
          rawBody: deep(levels),
          contentType: "application/json",
          headers: { "CF-Connecting-IP": freshIp() },
        });
        expect(res.status, path).toBe(400);
        expect(res.body.errors[0]).toMatchObject({
          status: "400",
          code: "bad_request",
          detail: "The request body nests deeper than 64 levels.",
        });
      }
    },
  );

  it("takes 64 levels and refuses 65 with a key, writing nothing", async () => {
    const wrap = (levels: number) => `{"data":{"type":"policy","attributes":{"name":"Deep"},"meta":${deep(levels - 2)}}}`;
    const before = await policyCount();
    const refused = await api("POST", "/v1/policies", { key: org.key, rawBody: wrap(65) });
    expect(refused.status).toBe(400);
    const allowed = await api("POST", "/v1/policies", { key: org.key, rawBody: wrap(64) });
    // 64 levels pass the scan; the validator then refuses the unknown member.
    expect(allowed.status).toBe(422);
    expect(allowed.body.errors[0].source).toEqual({ pointer: "/data/meta" });
    expect(await policyCount()).toBe(before);
  });

  it("refuses a body that is not UTF-8 instead of storing U+FFFD in its place", async () => {
    const head = new TextEncoder().encode(`{"data":{"type":"vuln","attributes":{"title":"Bad `);
    const tail = new TextEncoder().encode(`","description":"d"},"relationships":{"brief":{"data":{"type":"brief","id":"${briefId}"}}}}}`);
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
      const body = new Uint8Array([...head, ...bad, ...tail]);
      const before = (await get("/v1/vulns", org.key)).body.meta.page.total;
      const res = await api("POST", "/v1/vulns", { key: org.key, rawBody: body, contentType: "application/json" });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: "bad_request", detail: "The request body is not valid UTF-8." });
      expect((await get("/v1/vulns", org.key)).body.meta.page.total).toBe(before);
    }
  });

  it("refuses a member named twice, at its pointer, and writes nothing", async () => {
    const before = await policyCount();
    const res = await api("POST", "/v1/policies", {
      key: org.key,
      rawBody: '{"data":{"type":"policy","attributes":{"name":"A","name":"B"}}}',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: "bad_request", source: { pointer: "/data/attributes/name" } });
    expect(await policyCount()).toBe(before);
  });

  it("still answers malformed JSON with a 400 on routes that take no body", async () => {
    const p = await policy(org);
    const res = await api("POST", `/v1/policies/${p.id}`, { key: org.key, rawBody: "{nope" });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].detail).toBe("The request body is not valid JSON.");
  });
});

describe("error lists are bounded", () => {
  it("lists at most 25 errors and says how many more there were", async () => {
    const attributes = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`x${i}`, 1]));
    const res = await post("/v1/policies", org.key, { data: { type: "policy", attributes } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(25);
    expect(res.body.meta).toEqual({ errors_omitted: 59_975 });
    expect(res.text.length).toBeLessThan(10_000);
  });

  it("adds no meta when nothing was left out", async () => {
    const res = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { bogus: 1 } } });
    expect(res.status).toBe(422);
    expect(res.body.meta).toBeUndefined();
  });
});

describe("filters are validated", () => {
  it.each([
    "q[brief_id_eq]=",
    "q[brief_id_eq]=not-a-uuid",
    "q[brief_id_eq]=01900000-0000-7000-8000-00000000dea",
    "q[processing_state_eq]=",
    "q[created_at_gteq]=",
  ])("answers %s with a 400 at source.parameter", async (query) => {
    const res = await get(`/v1/vulns?${query}`, org.key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: "bad_request", source: { parameter: query.split("=")[0] } });
  });

  it("answers an empty policy filter on briefs with a 400 too", async () => {
    const res = await get("/v1/briefs?q[policy_id_eq]=", org.key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: "q[policy_id_eq]" });
  });

  it("takes a UUID in any case", async () => {
    const res = await get(`/v1/vulns?q[brief_id_eq]=${briefId.toUpperCase()}`, org.key);
    expect(res.status).toBe(200);
  });
});

describe("request ids", () => {
  it("never takes the client's X-Request-Id as its own; echoes it as X-Client-Request-Id", async () => {
    const res = await get("/v1/policies", org.key, { headers: { "X-Request-Id": "client-chosen-id" } });
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("X-Request-Id")).not.toBe("client-chosen-id");
    expect(res.headers.get("X-Client-Request-Id")).toBe("client-chosen-id");
  });

  it("does not echo a client id that is not a plain token", async () => {
    const res = await get("/v1/policies", org.key, { headers: { "X-Request-Id": "a b<script>" } });
    expect(res.headers.get("X-Client-Request-Id")).toBeNull();
  });
});

describe("Allow on the reorder action", () => {
  it.each(["GET", "OPTIONS", "POST"])("answers %s on items/reorder with 405 and Allow: PATCH", async (method) => {
    const res = await api(method, "/v1/directory_listings/01900000-0000-7000-8000-00000000dead/items/reorder", { key: org.key });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("PATCH");
  });
});

describe("requests without a valid key are limited per client IP", () => {
  it("answers 429 past 60 a minute without a key, and no such request reads D1", async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    // The binding counts fixed windows aligned to the minute: a run that straddles one may pass twice
    // the limit before its 429.
    for (let i = 0; i <= 120; i++) {
      const res = await get("/v1/policies", null, { headers: { "CF-Connecting-IP": ip } });
      statuses.push(res.status);
      expect(res.roundTrips).toBe(0);
      if (res.status === 429) {
        expect(res.headers.get("Retry-After")).toBe("60");
        expect(res.body.errors[0]).toMatchObject({ status: "429", code: "rate_limited" });
        break;
      }
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(60);
  }, 60_000);

  it("never refuses a valid key, even a new one, from an address over its keyless budget; a guess repeated costs no read", async () => {
    const ip = freshIp();
    // The app's side of the limit, with a limiter that counts without a clock: the real binding's
    // window can roll over between reaching the limit and the guesses after it (the test above counts
    // through the binding itself).
    const limiter = countingLimiter(60);
    const from = { headers: { "CF-Connecting-IP": ip }, env: { UNAUTHENTICATED_RATE_LIMITER: limiter.limiter } };
    const unknown = (n: number) => `vdp_${String(n).padStart(43, "A")}`;
    expect((await get("/v1/policies", org.key, from)).status).toBe(200);
    // A key made now and never used anywhere: no isolate has seen it succeed.
    const idle = await organization();
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 130 && !limited; i++) {
      const res = await get("/v1/policies", unknown(i), from);
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited).toBeDefined();
    expect(limited!.body.errors[0].detail).toBe("More than 60 requests in a minute from this address without a valid API key.");
    // A new guess costs its one indexed lookup, and is refused; the same guess again costs nothing.
    const next = await get("/v1/policies", unknown(999), from);
    expect([next.status, next.roundTrips]).toEqual([429, 1]);
    const again = await get("/v1/policies", unknown(999), from);
    expect([again.status, again.roundTrips]).toEqual([429, 0]);
    expect((await get("/v1/policies", idle.key, from)).status).toBe(200);
    expect((await get("/v1/policies", org.key, from)).status).toBe(200);
    // Another address is not affected.
    expect((await get("/v1/policies", unknown(1), { headers: { "CF-Connecting-IP": freshIp() } })).status).toBe(401);
  }, 60_000);
});
