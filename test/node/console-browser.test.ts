import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { base, checkPage, launch, open } from "./console-session";
import { keptMail, linkTo } from "./kept-mail";

// The console as the demo owner uses it, in Debian's Chromium against the shared npm run dev: a
// sign-in link by e-mail (read from the local e-mail simulation), a passkey added with Chromium's
// virtual authenticator (DevTools' WebAuthn domain), signing out, and signing in with the passkey.
// Passkeys need a domain for their relying party (an IP address is none), so the browser addresses
// the server as localhost, as npm run dev prints it.

const { banner } = inject("dev");
const OWNER = "owner@demo.test";
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => browser?.close());

describe("the demo owner in Chromium", () => {
  it("signs in by an e-mailed link, adds a passkey, signs out, and signs in again with the passkey", async () => {
    const { context, page, foreign, problems } = await open(browser, 1280);
    await page.goto(`${base}/console/sign-in`);
    // The passkey form is the script's: shown because Chromium has WebAuthn.
    await page.locator("#passkey-sign-in").waitFor({ state: "visible" });
    await checkPage(page, "sign-in");

    await page.fill("#email", OWNER);
    await Promise.all([page.waitForURL(/\/console\/sign-in\/sent$/), page.click("text=E-mail me a sign-in link")]);
    expect(await page.locator("h1").innerText()).toBe("Check your e-mail");
    const mail = await keptMail(base, OWNER, /^Your sign-in link$/);
    const link = linkTo(mail.text, "/console/sign-in/");
    await page.goto(`${base}${link}`);
    expect(await page.locator("h1").innerText()).toBe("Sign in to Demo Security Co");
    await checkPage(page, "link");
    await Promise.all([page.waitForURL(`${base}/console`), page.click("button:text-is('Sign in')")]);
    await Promise.all([page.waitForURL(`${base}/console/account`), page.click("nav.console >> text=Your account")]);
    expect(await page.locator("dl.terms").innerText()).toContain(OWNER);

    // A passkey, made by Chromium's virtual authenticator (as a phone or laptop would).
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    await page.fill("#passkey-name", "Test laptop");
    await Promise.all([page.waitForEvent("load"), page.click("text=Add a passkey")]);
    await page.locator("ul.passkeys").waitFor();
    expect(await page.locator("ul.passkeys").innerText()).toContain("Test laptop");
    expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials).toHaveLength(1);
    await checkPage(page, "signed-in");

    await Promise.all([page.waitForURL(`${base}/console/sign-in`), page.click("text=Sign out")]);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain("__Host-vdp_session");
    await page.locator("#passkey-sign-in").waitFor({ state: "visible" });
    await page.click("text=Sign in with a passkey");
    // Signed in, or the script says why not (then the test says it at once).
    const status = page.locator("#passkey-sign-in-status");
    // A function, not a string: the console's policy allows no eval, Playwright's included.
    await page.waitForFunction(() => {
      const { location, document } = globalThis as unknown as {
        location: { pathname: string };
        document: { querySelector(s: string): { textContent: string | null } | null };
      };
      return (
        location.pathname === "/console" || /not|refused|did/i.test(document.querySelector("#passkey-sign-in-status")?.textContent ?? "")
      );
    });
    if (new URL(page.url()).pathname !== "/console") throw new Error(`the passkey did not sign in: ${await status.innerText()}`);
    await page.waitForLoadState();
    await page.goto(`${base}/console/account`);
    expect(await page.locator("dl.terms").innerText()).toContain(OWNER);
    expect(await page.locator("ul.passkeys").innerText()).toMatch(/Test laptop[\s\S]*last used/);
    const [session] = (await page.context().cookies()).filter((c) => c.name === "__Host-vdp_session");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" });

    // The same session reads the API from the browser, within the owner's organization.
    const policies = (await page.evaluate(async () => (await fetch("/v1/policies")).json())) as { data: { id: string }[] };
    expect(policies.data.map((p) => p.id)).toContain("01900000-0000-7000-8000-000000000002");
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("signs in with the link npm run dev printed, in one click, once", async () => {
    const printed = /Console:\s+(http:\/\/localhost:\d+\/console\/sign-in\/\S+)/.exec(banner)?.[1];
    expect(printed).toBeDefined();
    const { context, page, problems } = await open(browser, 375);
    await page.goto(printed!);
    await Promise.all([page.waitForURL(`${base}/console`), page.click("button:text-is('Sign in')")]);
    expect(await page.locator("nav.console .who").innerText()).toMatch(/, owner$/);
    await page.goto(printed!);
    expect(await page.locator("h1").innerText()).toBe("This link was used already");
    expect(problems).toEqual([`410 ${printed}`]);
    await context.close();
  });
});
