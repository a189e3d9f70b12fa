import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { LIMITS } from "../../src/lib/limits";
import { ANY_BROWSER } from "../../src/lib/seed-links";
import { runScheduled } from "../../src/scheduled";
import { testClock } from "../helpers/clock";
import { Browser, member, requestLink, signInLinks, signedIn } from "../helpers/console";
import { organization } from "../helpers/factories";
import { mailbox, runMail } from "../helpers/mail";

// Signing in to the console by an e-mailed link, through HTTP as a browser does: the link is read from
// the e-mail the outbox sent, works once, for 15 minutes, in the browser that asked for it, and only by
// its page's same-site POST. Time is the test's clock.

const T0 = Date.parse("2031-03-03T09:00:00.000Z");
const clock = testClock(T0);
const MINUTE = 60_000;

const row = <T>(sql: string, ...values: unknown[]) =>
  env.DB.prepare(sql)
    .bind(...values)
    .first<T>();
const sessionsOf = async (memberId: string) =>
  (await env.DB.prepare("SELECT * FROM sessions WHERE member_id = ?").bind(memberId).all<Record<string, string | null>>()).results;
const auditOf = async (targetId: string) =>
  (
    await env.DB.prepare("SELECT action, actor_type, actor_id, organization_id FROM audit_events WHERE target_id = ? ORDER BY id")
      .bind(targetId)
      .all<{ action: string; actor_type: string; actor_id: string; organization_id: string }>()
  ).results;

describe("signing in by an e-mailed link", () => {
  it("signs in the browser that asked, once: the page's GET changes nothing, its POST starts the session", async () => {
    const org = await organization({ name: "Acme Security" });
    const ana = await member(org, { email: "ana@acme.example", role: "triager", joined: false });
    const browser = new Browser();
    const link = await requestLink(browser, "ana@acme.example", { typed: " Ana@Acme.example" });
    // The ask set the browser's short-lived mark, and the link is bound to its SHA-256.
    const mark = browser.cookies.get("__Host-vdp_signin")!;
    const stored = await row<{ browser_hash: string; expires_at: string; used_at: string | null }>(
      "SELECT browser_hash, expires_at, used_at FROM sign_in_links WHERE token_hash = ?",
      await sha256Hex(link.split("/").at(-1)!),
    );
    expect(stored).toEqual({ browser_hash: await sha256Hex(mark), expires_at: new Date(T0 + 15 * MINUTE).toISOString(), used_at: null });

    for (const method of ["GET", "HEAD"]) expect((await browser.request(method, link)).status).toBe(200);
    const page = await browser.get(link);
    expect(page.text).toContain("Sign in to Acme Security");
    expect(page.text).toContain(`<form method="post" action="${link}">`);
    expect(await sessionsOf(ana.id)).toEqual([]);

    const signedInAt = T0 + 3 * MINUTE;
    clock.at(signedInAt);
    const res = await browser.post(link);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/console");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-vdp_session="))!;
    expect(cookie).toMatch(/; Max-Age=604800/);
    for (const attribute of ["Path=/", "HttpOnly", "Secure", "SameSite=Lax"]) expect(cookie).toContain(`; ${attribute}`);
    const secret = browser.cookies.get("__Host-vdp_session")!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const [session] = await sessionsOf(ana.id);
    expect(session).toMatchObject({
      token_hash: await sha256Hex(secret),
      organization_id: org.id,
      method: "email_link",
      ip: browser.ip,
      last_seen_at: new Date(signedInAt).toISOString(),
      expires_at: new Date(signedInAt + 7 * 24 * 60 * MINUTE).toISOString(),
      revoked_at: null,
    });
    // Signing in from the invitation's address proves it: the member has joined.
    expect(await row("SELECT joined_at, last_sign_in_at FROM members WHERE id = ?", ana.id)).toEqual({
      joined_at: new Date(signedInAt).toISOString(),
      last_sign_in_at: new Date(signedInAt).toISOString(),
    });
    expect((await auditOf(session!.id as string)).map((a) => [a.action, a.actor_type, a.actor_id, a.organization_id])).toEqual([
      ["session.create", "member", ana.id, org.id],
    ]);
    expect((await auditOf(ana.id)).map((a) => a.action)).toEqual(["sign_in_link.create", "member.join"]);

    const landing = await browser.get("/console/account");
    expect(landing.status).toBe(200);
    expect(landing.text).toContain("ana@acme.example");
    expect(landing.text).toContain("triager: reads everything");
    expect(landing.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    expect(landing.headers.get("Cache-Control")).toBe("no-store");

    // Used twice: refused, and no second session.
    const again = await browser.post(link);
    expect(again.status).toBe(410);
    expect(again.text).toContain("This link was used already");
    expect(await sessionsOf(ana.id)).toHaveLength(1);
  });

  it("is used once even when two requests race with it", async () => {
    const org = await organization();
    const bo = await member(org);
    const browser = new Browser();
    const link = await requestLink(browser, bo.email);
    const answers = await Promise.all([browser.post(link), browser.post(link), browser.post(link)]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410]);
    expect(await sessionsOf(bo.id)).toHaveLength(1);
  });

  it("expires after 15 minutes, and counts and audits the late attempt", async () => {
    const org = await organization();
    const cy = await member(org);
    const browser = new Browser();
    const link = await requestLink(browser, cy.email);
    clock.at(T0 + LIMITS.signInLinkMinutes * MINUTE);
    const late = await browser.post(link);
    expect(late.status).toBe(410);
    expect(late.text).toContain("This link has expired");
    expect(await sessionsOf(cy.id)).toEqual([]);
    expect((await auditOf(cy.id)).map((a) => [a.action, a.actor_type])).toEqual([
      ["sign_in_link.create", "member"],
      ["session.create_failed", "member"],
    ]);
  });

  it("works only in the browser that asked: another browser's cookie (or none) is refused, and the link stays good", async () => {
    const org = await organization();
    const di = await member(org);
    const asker = new Browser();
    const link = await requestLink(asker, di.email);
    const stranger = new Browser();
    await stranger.post("/console/sign-in", { form: { email: "someone@else.example" } });
    expect(stranger.cookies.has("__Host-vdp_signin")).toBe(true);
    for (const other of [stranger, new Browser()]) {
      expect((await other.get(link)).text).toContain("Open this link in the browser that asked for it");
      const res = await other.post(link);
      expect(res.status).toBe(403);
      expect(other.cookies.has("__Host-vdp_session")).toBe(false);
    }
    expect(await sessionsOf(di.id)).toEqual([]);
    expect((await asker.post(link)).status).toBe(303);
  });

  it("is refused from another site, and a console POST needs the session's form token", async () => {
    const org = await organization();
    const ed = await member(org);
    const browser = new Browser();
    const link = await requestLink(browser, ed.email);
    const crossSite = { "Sec-Fetch-Site": "cross-site", Origin: "https://attacker.example" };
    expect((await browser.post(link, { headers: crossSite })).status).toBe(403);
    expect((await browser.post("/console/sign-in", { form: { email: ed.email }, headers: crossSite })).status).toBe(403);
    expect(await sessionsOf(ed.id)).toEqual([]);

    await browser.post(link);
    const token = await browser.formToken();
    const signOut = (form: Record<string, string>, headers?: Record<string, string>) =>
      browser.post("/console/sign-out", { form, headers });
    expect((await signOut({ csrf: token }, crossSite)).status).toBe(403);
    expect((await signOut({})).status).toBe(403);
    expect((await signOut({ csrf: `${token.slice(0, -2)}xx` })).status).toBe(403);
    expect((await browser.get("/console")).status).toBe(200);
    // Another session's token is not this one's.
    const other = await signedIn(ed.email);
    expect(await other.formToken()).not.toBe(token);
    expect((await signOut({ csrf: await other.formToken() })).status).toBe(403);

    expect((await signOut({ csrf: token })).status).toBe(303);
    expect((await browser.get("/console")).headers.get("Location")).toBe("/console/sign-in");
    const [ended] = (await sessionsOf(ed.id)).filter((s) => s.revoked_at);
    expect((await auditOf(ended!.id as string)).map((a) => a.action)).toEqual(["session.create", "session.revoke"]);
  });

  it("sends a member of several organizations one e-mail with a link for each, each signing in to its own", async () => {
    const [north, south] = [await organization({ name: "North Co" }), await organization({ name: "South Co" })];
    const address = `fay-${Date.now()}@both.example`;
    const inNorth = await member(north, { email: address, role: "viewer" });
    await member(south, { email: address, role: "owner" });
    const browser = new Browser();
    const box = mailbox();
    await browser.post("/console/sign-in", { form: { email: address } });
    await runMail(box, []);
    expect(box.to(address)).toHaveLength(1);
    expect(box.to(address)[0]!.subject).toBe("Your sign-in link");
    const links = signInLinks(box, address);
    expect(links).toHaveLength(2);
    expect(box.to(address)[0]!.text).toMatch(new RegExp(`North Co:\\s+https://\\S+${links[0]}\\s+South Co:\\s+https://\\S+${links[1]}`));
    await browser.post(links[0]!);
    expect((await browser.get("/console")).text).toContain("North Co");
    expect((await sessionsOf(inNorth.id)).map((s) => s.organization_id)).toEqual([north.id]);
    await browser.post(links[1]!);
    expect((await browser.get("/console/account")).text).toContain("owner: reads and changes everything");
  });

  it("answers an unknown address exactly as a member's, and e-mails it nothing", async () => {
    const org = await organization();
    const gil = await member(org);
    const box = mailbox();
    const asks = [];
    for (const email of [gil.email, "nobody-here@stranger.example"]) {
      const browser = new Browser();
      const asked = await browser.post("/console/sign-in", { form: { email } });
      asks.push({ status: asked.status, location: asked.headers.get("Location"), page: (await browser.get("/console/sign-in/sent")).text });
    }
    expect(asks[0]).toEqual(asks[1]);
    await runMail(box, []);
    expect(box.sent.map((m) => m.to)).toEqual([gil.email]);
    expect(await row("SELECT count(*) AS n FROM notifications WHERE \"to\" LIKE 'nobody-here@%'")).toEqual({ n: 0 });
    // Both counted, as SHA-256s of the address, never the address.
    const subject = await sha256Hex("nobody-here@stranger.example");
    expect(await row("SELECT count(*) AS n FROM sign_in_failures WHERE subject = ?", subject)).toEqual({ n: 1 });
  });

  it("answers the 11th request of an hour for one address, or from one IP, 429, the same for members and strangers", async () => {
    const org = await organization();
    const hal = await member(org);
    const stranger = `stranger-${Date.now()}@nowhere.example`;
    const limit = LIMITS.signInRequestsPerHour;
    const ask = (email: string, ip?: string) => new Browser({ ip }).post("/console/sign-in", { form: { email } });
    const answer = (r: Awaited<ReturnType<typeof ask>>) => ({ status: r.status, retryAfter: r.headers.get("Retry-After"), text: r.text });

    // Per address: each request from an IP of its own.
    for (let i = 0; i < limit; i++) {
      clock.at(T0 + i * MINUTE);
      for (const email of [hal.email, stranger]) expect((await ask(email)).status).toBe(303);
    }
    clock.at(T0 + 30 * MINUTE);
    const [member429, stranger429] = [answer(await ask(hal.email)), answer(await ask(stranger))];
    expect(member429.status).toBe(429);
    expect(member429.retryAfter).toBe(String(30 * 60));
    expect(member429.text).toContain("Too many sign-in attempts");
    expect(member429).toEqual(stranger429);
    // The hour after the first request, the address may ask again.
    clock.at(T0 + 60 * MINUTE + 1);
    expect((await ask(hal.email)).status).toBe(303);

    // Per IP: ten strangers' addresses from one IP, then anyone's from it is refused alike.
    const ip = "198.51.100.77";
    for (let i = 0; i < limit; i++) expect((await ask(`guess-${i}-${Date.now()}@nowhere.example`, ip)).status).toBe(303);
    const fromIp = [answer(await ask(hal.email, ip)), answer(await ask(`fresh-${Date.now()}@nowhere.example`, ip))];
    expect(fromIp[0]!.status).toBe(429);
    expect(fromIp[0]).toEqual(fromIp[1]);
  });

  it("accepts the local seed's link, bound to no browser, only under npm run dev and from this machine", async () => {
    const org = await organization();
    const ivy = await member(org);
    const token = "S".repeat(43);
    await env.DB.prepare(
      "INSERT INTO sign_in_links (token_hash, member_id, browser_hash, expires_at, used_at, created_at) VALUES (?, ?, ?, ?, NULL, ?)",
    )
      .bind(await sha256Hex(token), ivy.id, ANY_BROWSER, new Date(T0 + 60 * MINUTE).toISOString(), new Date(T0).toISOString())
      .run();
    const link = `/console/sign-in/${token}`;
    const dev = { DEV_SEED_SIGN_IN: "true" };
    // A deployment (no DEV_SEED_SIGN_IN), or a host that is not this machine: refused.
    expect((await new Browser({ base: "http://localhost:8787" }).post(link)).status).toBe(403);
    expect((await new Browser().post(link, { env: dev })).status).toBe(403);
    const local = new Browser({ base: "http://localhost:8787" });
    expect((await local.post(link, { env: dev })).status).toBe(303);
    expect((await new Browser({ base: "http://127.0.0.1:8787" }).post(link, { env: dev })).status).toBe(410);
  });

  it("leaves nothing behind a day later: the cron drops counted attempts, spent links and old challenges", async () => {
    const org = await organization();
    const jo = await member(org);
    const browser = new Browser();
    await requestLink(browser, jo.email);
    await browser.post("/console/sign-in/passkey/options", { json: {} });
    const count = async () =>
      Object.values(
        (await row<Record<string, number>>(
          `SELECT (SELECT count(*) FROM sign_in_failures WHERE subject = ?) AS f, (SELECT count(*) FROM sign_in_links WHERE member_id = ?) AS l,
            (SELECT count(*) FROM webauthn_challenges WHERE browser_hash = ?) AS c`,
          await sha256Hex(jo.email),
          jo.id,
          await sha256Hex(browser.cookies.get("__Host-vdp_signin")!),
        ))!,
      );
    expect(await count()).toEqual([1, 1, 1]);
    await runScheduled(env, new Date(T0 + 60 * MINUTE));
    expect(await count()).toEqual([1, 1, 0]);
    await runScheduled(env, new Date(T0 + 24 * 60 * MINUTE + LIMITS.signInLinkMinutes * MINUTE + 1));
    expect(await count()).toEqual([0, 0, 0]);
  });
});
