import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { Browser, member, signedIn } from "../helpers/console";
import { organization } from "../helpers/factories";

// The passkeys' HTTP side inside workerd (a real authenticator's ceremony runs in Chromium, in
// test/node/console-browser.test.ts): the options come from @simplewebauthn/server, each challenge is
// bound to the browser it was handed to, and an answer that does not verify signs nobody in and counts.

const CROSS_SITE = { "Sec-Fetch-Site": "cross-site", Origin: "https://attacker.example" };

describe("passkeys", () => {
  it("hands a signed-in member registration options for this host, only from its own pages with the form token", async () => {
    const org = await organization({ name: "Acme Security" });
    const ana = await member(org, { email: "ana-passkeys@acme.example" });
    const browser = await signedIn(ana.email);
    expect((await browser.post("/console/passkeys/options", { json: {} })).status).toBe(403);
    const token = await browser.formToken();
    expect((await browser.post("/console/passkeys/options", { json: {}, headers: { "X-CSRF-Token": token, ...CROSS_SITE } })).status).toBe(
      403,
    );
    const res = await browser.post("/console/passkeys/options", { json: {}, headers: { "X-CSRF-Token": token } });
    expect(res.status).toBe(200);
    const options = res.json();
    expect(options.rp).toEqual({ name: "Vulnerability disclosure console", id: "api.vdp.test" });
    expect(options.user.name).toBe("ana-passkeys@acme.example (Acme Security)");
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required" });
    const stored = await env.DB.prepare("SELECT purpose, member_id, browser_hash FROM webauthn_challenges WHERE challenge = ?")
      .bind(options.challenge)
      .first();
    expect(stored).toEqual({
      purpose: "registration",
      member_id: ana.id,
      browser_hash: await sha256Hex(browser.cookies.get("__Host-vdp_session")!),
    });
    // Without a session there is nothing to add a passkey to.
    expect((await new Browser().post("/console/passkeys/options", { json: {} })).status).toBe(401);
  });

  it("refuses a new passkey whose answer does not verify, and keeps nothing", async () => {
    const org = await organization();
    const bo = await member(org);
    const browser = await signedIn(bo.email);
    const token = await browser.formToken();
    const { challenge } = (await browser.post("/console/passkeys/options", { json: {}, headers: { "X-CSRF-Token": token } })).json();
    const clientDataJSON = btoa(JSON.stringify({ type: "webauthn.create", challenge, origin: "https://api.vdp.test" }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const forged = {
      id: "AAAA",
      rawId: "AAAA",
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON, attestationObject: "AAAA" },
    };
    const res = await browser.post("/console/passkeys", { json: { name: "Forged", response: forged }, headers: { "X-CSRF-Token": token } });
    expect(res.status).toBe(422);
    expect(res.json().message).toMatch(/could not be verified/);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM passkeys WHERE member_id = ?").bind(bo.id).first()).toEqual({ n: 0 });
    // The challenge was spent by that attempt.
    expect(await env.DB.prepare("SELECT count(*) AS n FROM webauthn_challenges WHERE challenge = ?").bind(challenge).first()).toEqual({
      n: 0,
    });
  });

  it("signs nobody in with an answer that does not verify, and counts it against the address", async () => {
    const browser = new Browser();
    const options = await browser.post("/console/sign-in/passkey/options", { json: {} });
    expect(options.status).toBe(200);
    const { challenge, rpId, allowCredentials } = options.json();
    expect({ rpId, allowCredentials }).toEqual({ rpId: "api.vdp.test", allowCredentials: [] });
    const mark = browser.cookies.get("__Host-vdp_signin")!;
    expect(await env.DB.prepare("SELECT browser_hash FROM webauthn_challenges WHERE challenge = ?").bind(challenge).first()).toEqual({
      browser_hash: await sha256Hex(mark),
    });
    const res = await browser.post("/console/sign-in/passkey", { json: { response: { id: "nope", response: {} } } });
    expect(res.status).toBe(401);
    expect(browser.cookies.has("__Host-vdp_session")).toBe(false);
    const counted = await env.DB.prepare("SELECT count(*) AS n FROM sign_in_failures WHERE subject = ?")
      .bind(await sha256Hex(`ip:${browser.ip}`))
      .first();
    expect(counted).toEqual({ n: 1 });
  });

  it("removes one of the member's own passkeys by the console's form, and nobody else's", async () => {
    const org = await organization();
    const [cy, dee] = [await member(org), await member(org)];
    const at = new Date().toISOString();
    const add = (id: string, memberId: string) =>
      env.DB.prepare(
        "INSERT INTO passkeys (id, member_id, organization_id, name, public_key, counter, transports, last_used_at, created_at) VALUES (?, ?, ?, ?, 'AAAA', 0, '[]', NULL, ?)",
      )
        .bind(id, memberId, org.id, `Key of ${id}`, at)
        .run();
    await add(`own-${cy.id}`, cy.id);
    await add(`other-${dee.id}`, dee.id);
    const browser = await signedIn(cy.email);
    const csrf = await browser.formToken();
    expect((await browser.get("/console/account")).text).toContain(`Key of own-${cy.id}`);
    expect((await browser.post(`/console/passkeys/other-${dee.id}/delete`, { form: { csrf } })).status).toBe(404);
    expect((await browser.post(`/console/passkeys/own-${cy.id}/delete`, { form: {} })).status).toBe(403);
    expect((await browser.post(`/console/passkeys/own-${cy.id}/delete`, { form: { csrf }, headers: CROSS_SITE })).status).toBe(403);
    const removed = await browser.post(`/console/passkeys/own-${cy.id}/delete`, { form: { csrf } });
    expect(removed.status).toBe(303);
    const left = await env.DB.prepare("SELECT id FROM passkeys WHERE organization_id = ? ORDER BY id").bind(org.id).all();
    expect(left.results).toEqual([{ id: `other-${dee.id}` }]);
    const audit = await env.DB.prepare("SELECT action, actor_type, actor_id FROM audit_events WHERE target_id = ?")
      .bind(`own-${cy.id}`)
      .all();
    expect(audit.results).toEqual([{ action: "passkey.delete", actor_type: "member", actor_id: cy.id }]);
  });
});
