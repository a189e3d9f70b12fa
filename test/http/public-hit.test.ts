import { beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { api, countingLimiter, get } from "../helpers/api";
import { LOCAL_READS_PER_MINUTE } from "../../src/http/rate-limit";
import { brief, directory, listing, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

// Public reads are answered from the edge cache before the app is built or routed. What a client
// sees must not tell the two paths apart, except that a hit is cheaper.

let org: TestOrganization;
let shortcode: string;
let slug: string;
beforeAll(async () => {
  org = await organization();
  const p = await policy(org, { published_at: PUBLISHED, point_of_contact: "sec@example.com" });
  shortcode = (await brief(org, { published_at: PUBLISHED }, p.id)).attributes.shortcode;
  const dir = await directory(org.operatorKey);
  slug = dir.attributes.slug;
  await listing(org.operatorKey, dir.id, org.id);
});

let addresses = 0;
/** An address no other test has read from, so its budget is whole. */
const freshAddress = () => `198.51.100.${++addresses}`;

/**
 * Budgets are per minute window, aligned to the minute. A test that counts through one holds the
 * clock still inside a window that nothing has counted in yet, however slowly the machine runs it.
 */
function inOneWindow(): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime((Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1);
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

const VARYING = new Set(["x-cache", "x-request-id", "date", "age", "cf-cache-status", "content-length"]);
const stable = (h: Headers) => [...h.entries()].filter(([name]) => !VARYING.has(name)).sort();

describe.each([
  ["brief", () => `/v1/p/briefs/${shortcode}`, () => `/v1/p/briefs/${shortcode.toLowerCase()}`],
  ["directory", () => `/v1/p/directories/${slug}`, () => `/v1/p/directories/${slug}`],
] as const)("a cached public %s", (_kind, path, typed) => {
  it("answers a hit with the app's headers, the same body, no database, and no call to the limiter", async () => {
    const miss = await get(path(), null, { headers: { "X-Request-Id": "mine" } });
    const counting = countingLimiter();
    const hit = await api("GET", typed(), {
      headers: { "X-Request-Id": "mine", "CF-Connecting-IP": freshAddress() },
      env: { PUBLIC_READ_RATE_LIMITER: counting.limiter },
    });
    expect(hit.status).toBe(200);
    expect(hit.headers.get("X-Cache")).toBe("HIT");
    expect(hit.roundTrips).toBe(0);
    expect(hit.text).toBe(miss.text);
    expect(stable(hit.headers)).toEqual(stable(miss.headers));
    expect(hit.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(hit.headers.get("X-Request-Id")).not.toBe(miss.headers.get("X-Request-Id"));
    expect(hit.headers.get("X-Client-Request-Id")).toBe("mine");
    // An address's first reads of a minute are counted in the isolate (ReadBudget), not by the limiter.
    expect(counting.calls).toEqual([]);
  });

  it("answers If-None-Match with a 304 and HEAD with no body", async () => {
    const first = await get(path(), null);
    const etag = first.headers.get("ETag")!;
    const notModified = await get(path(), null, { headers: { "If-None-Match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("ETag")).toBe(etag);
    const head = await api("HEAD", path());
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });

  it("counts a miss once, not once on the way in and again in the app", async () => {
    const other = await organization();
    const code = (await brief(other, { published_at: PUBLISHED })).attributes.shortcode;
    inOneWindow();
    const ip = freshAddress();
    const counting = countingLimiter();
    const read = (p: string) => api("GET", p, { headers: { "CF-Connecting-IP": ip }, env: { PUBLIC_READ_RATE_LIMITER: counting.limiter } });
    for (let i = 1; i < LOCAL_READS_PER_MINUTE; i++) expect((await read(path())).headers.get("X-Cache")).toBe("HIT");
    // The address's last read counted in the isolate: a miss counted twice would reach the limiter here.
    expect((await read(`/v1/p/briefs/${code}`)).headers.get("X-Cache")).toBe("MISS");
    expect(counting.calls).toEqual([]);
    expect((await read(path())).status).toBe(200);
    expect(counting.calls).toEqual([ip]);
  });

  it("leaves a limited client to the app's 429, with its error document, and asks the limiter once a minute", async () => {
    await get(path(), null);
    inOneWindow();
    const ip = freshAddress();
    const refusing = countingLimiter(0);
    const read = () => api("GET", path(), { headers: { "CF-Connecting-IP": ip }, env: { PUBLIC_READ_RATE_LIMITER: refusing.limiter } });
    for (let i = 0; i < LOCAL_READS_PER_MINUTE; i++) expect((await read()).status).toBe(200);
    const res = await read();
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(res.body.errors[0]).toMatchObject({ code: "rate_limited" });
    // Refused once, the address is refused by the isolate until the minute ends, with no more calls.
    expect((await read()).status).toBe(429);
    expect(refusing.calls).toEqual([ip]);
  });
});
