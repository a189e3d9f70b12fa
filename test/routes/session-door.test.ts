import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/lib/limits";
import { testClock } from "../helpers/clock";
import { Browser, member, signedIn } from "../helpers/console";
import { organizationWithVuln } from "../helpers/factories";

// The door a signed-in browser comes through, on the console's pages and on /v1: the session's cookie
// makes the caller the member, within its role; it ends on sign-out, on revocation, after 12 idle
// hours and 7 days after sign-in, each at the very next request. A change made with the cookie must
// come from this site with the session's form token. Time is the test's clock.

const T0 = Date.parse("2031-05-05T08:00:00.000Z");
const clock = testClock(T0);
const HOUR = 3_600_000;

const signedInAs = async (role: "owner" | "triager" | "viewer" = "owner") => {
  const { org, vulnId } = await organizationWithVuln();
  const who = await member(org, { role });
  return { org, vulnId, who, browser: await signedIn(who.email) };
};
const reads = async (browser: Browser) => (await browser.get("/console")).status === 200 && (await browser.get("/v1/vulns")).status === 200;

describe("the session's door", () => {
  it("lets the member read its organization's API from the browser, and nothing of the neighbour's", async () => {
    const { org, vulnId, browser } = await signedInAs("viewer");
    const other = await organizationWithVuln();
    const list = await browser.get("/v1/vulns");
    expect(list.status).toBe(200);
    expect(list.json().data.map((v: { id: string }) => v.id)).toEqual([vulnId]);
    expect((await browser.get(`/v1/vulns/${vulnId}`)).json().data.relationships.organization.data.id).toBe(org.id);
    expect((await browser.get(`/v1/vulns/${other.vulnId}`)).status).toBe(404);
    expect((await browser.get(`/v1/organizations/${other.org.id}`)).status).toBe(404);
    // One read finds the session and its member, as one finds a key: no more round trips than the key's.
    const byKey = await new Browser().get(`/v1/vulns/${vulnId}`, { headers: { Authorization: `Bearer ${org.key}` } });
    const byCookie = await browser.get(`/v1/vulns/${vulnId}`);
    expect(byCookie.status).toBe(200);
    expect(byCookie.roundTrips).toBeLessThanOrEqual(byKey.roundTrips);
  });

  it("takes a change through the session only from this site with the form token; a Bearer key, when sent, decides", async () => {
    const { org, browser } = await signedInAs("owner");
    const token = await browser.formToken();
    const create = (headers: Record<string, string>, who = browser) =>
      who.post("/v1/policies", {
        json: { data: { type: "policy", attributes: { name: "Made in the console" } } },
        headers: { "Content-Type": "application/vnd.api+json", ...headers },
      });
    const refused = await create({});
    expect(refused.status).toBe(403);
    expect(refused.json().errors[0].source).toEqual({ header: "X-CSRF-Token" });
    expect((await create({ "X-CSRF-Token": `${token}x` })).status).toBe(403);
    expect((await create({ "X-CSRF-Token": token, "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect((await create({ "X-CSRF-Token": token, "Sec-Fetch-Site": "same-site" })).status).toBe(201);
    const made = await create({ "X-CSRF-Token": token });
    expect(made.status).toBe(201);
    expect(made.json().data.relationships.organization.data.id).toBe(org.id);
    // With the organization's key as well, the key is the caller: no form token asked.
    expect((await create({ Authorization: `Bearer ${org.key}` })).status).toBe(201);
    // A bad key is a bad key, whatever cookie comes with it.
    expect((await create({ Authorization: "Bearer vdp_000000000000000000000000000000000000000000" })).status).toBe(401);
  });

  it("refuses a revoked session at the very next request", async () => {
    const { who, browser } = await signedInAs();
    expect(await reads(browser)).toBe(true);
    await env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE member_id = ?").bind(new Date().toISOString(), who.id).run();
    const page = await browser.get("/console");
    expect(page.status).toBe(303);
    expect(page.headers.get("Location")).toBe("/console/sign-in");
    // The dead cookie is dropped.
    expect(browser.cookies.has("__Host-vdp_session")).toBe(false);
    const stale = new Browser();
    stale.cookies.set("__Host-vdp_session", "x".repeat(43));
    const api = await stale.get("/v1/vulns");
    expect(api.status).toBe(401);
    expect(api.json().errors[0].detail).toMatch(/session has ended/);
  });

  it("ends a session after 12 idle hours, moving the idle time on at most every few minutes", async () => {
    const { who, browser } = await signedInAs();
    const seen = async () =>
      (await env.DB.prepare("SELECT last_seen_at FROM sessions WHERE member_id = ?").bind(who.id).first<{ last_seen_at: string }>())!
        .last_seen_at;
    clock.at(T0 + 60_000);
    expect(await reads(browser)).toBe(true);
    // Within a few minutes of the last sighting, nothing is written.
    expect(await seen()).toBe(new Date(T0).toISOString());
    clock.at(T0 + LIMITS.sessionIdleHours * HOUR - 1);
    expect(await reads(browser)).toBe(true);
    expect(await seen()).toBe(new Date(T0 + LIMITS.sessionIdleHours * HOUR - 1).toISOString());
    // Twelve hours after that sighting, and not a moment before, it has ended.
    clock.at(T0 + 2 * LIMITS.sessionIdleHours * HOUR - 2);
    expect(await reads(browser)).toBe(true);
    clock.at(T0 + 3 * LIMITS.sessionIdleHours * HOUR);
    expect((await browser.get("/v1/vulns")).status).toBe(401);
    expect((await browser.get("/console")).headers.get("Location")).toBe("/console/sign-in");
  });

  it("ends a session 7 days after sign-in, however busy", async () => {
    const { browser } = await signedInAs();
    const end = T0 + LIMITS.sessionDays * 24 * HOUR;
    for (let at = T0; at < end; at += 6 * HOUR) {
      clock.at(at);
      expect(await reads(browser)).toBe(true);
    }
    clock.at(end - 1);
    expect(await reads(browser)).toBe(true);
    clock.at(end);
    expect((await browser.get("/v1/vulns")).status).toBe(401);
    expect((await browser.get("/console")).status).toBe(303);
  });

  it("reads the member's role as it is now, and a removed member's sessions go with it", async () => {
    const { who, browser } = await signedInAs("owner");
    await env.DB.prepare("UPDATE members SET role = 'viewer' WHERE id = ?").bind(who.id).run();
    expect((await browser.get("/console/account")).text).toContain("viewer: reads everything of the organization");
    await env.DB.prepare("DELETE FROM members WHERE id = ?").bind(who.id).run();
    expect((await browser.get("/v1/vulns")).status).toBe(401);
  });

  it("signs out: the session ends for the console and the API alike, even for a copy of its cookie", async () => {
    const { browser } = await signedInAs();
    const secret = browser.cookies.get("__Host-vdp_session")!;
    const out = await browser.post("/console/sign-out", { form: { csrf: await browser.formToken() } });
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie().find((c) => c.startsWith("__Host-vdp_session="))).toMatch(/Max-Age=0/);
    expect(browser.cookies.has("__Host-vdp_session")).toBe(false);
    const copy = new Browser();
    copy.cookies.set("__Host-vdp_session", secret);
    expect((await copy.get("/v1/vulns")).status).toBe(401);
    expect((await copy.get("/console")).status).toBe(303);
  });
});
