import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { keptMail, linkTo } from "./kept-mail";

// The console in Debian's Chromium against the shared `npm run dev`, for every console browser test:
// a member of the demo organization made through the members API with the demo key (each test its own
// address, so the sign-in limits of one address never bind), joined through the invitation's page and
// signed in by the e-mailed link, as a person would; then every page checked with axe at both widths.
// Passkeys need a domain (an IP address is no relying party), so the browser says localhost.

const root = path.resolve(import.meta.dirname, "../..");
const { port, banner } = inject("dev");
export const base = `http://localhost:${port}`;
export const screens = path.join(root, "test-results", "screens");
/** The demo organization's key, as npm run dev printed it. */
export const demoKey = (): string => {
  const key = /\bvdp_[A-Za-z0-9_-]{40,}/.exec(banner)?.[0];
  if (!key) throw new Error(`no demo key in what npm run dev printed: ${banner.slice(0, 400)}`);
  return key;
};

export async function launch(): Promise<Browser> {
  mkdirSync(screens, { recursive: true });
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
}

/** A call of the API with the demo key, as a script of the organization's would make it. */
export async function demoApi(method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${apiPath}`, {
    method,
    headers: { Authorization: `Bearer ${demoKey()}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export interface Tab {
  context: BrowserContext;
  page: Page;
  /** Requests to any other origin (there must be none). */
  foreign: string[];
  /** Error answers, console errors and page errors seen. */
  problems: string[];
}

let addresses = 0;
/** A fresh browser context (its own cookies, its own client address) at `width`. */
export async function open(browser: Browser, width: number): Promise<Tab> {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    extraHTTPHeaders: { "CF-Connecting-IP": `198.51.${100 + (process.pid % 100)}.${++addresses % 250}` },
  });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => !r.url().startsWith(base) && foreign.push(r.url()));
  page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && problems.push(`${r.status()} ${r.url()}`));
  page.on("console", (m) => m.type() === "error" && !/Failed to load resource/.test(m.text()) && problems.push(m.text()));
  page.on("pageerror", (err) => problems.push(err.message));
  return { context, page, foreign, problems };
}

let members = 0;
/**
 * A new member of the demo organization with `role`, signed in in a fresh context: made through the
 * members API, joined on the invitation's page, signed in by the e-mailed link.
 */
export async function signedInMember(
  browser: Browser,
  role: "owner" | "triager" | "viewer",
  opts: { width?: number; name?: string } = {},
): Promise<Tab & { email: string; id: string }> {
  const email = `${role}-${Date.now().toString(36)}-${process.pid}-${++members}@demo.test`;
  const made = await demoApi("POST", "/v1/members", {
    data: { type: "member", attributes: { email, name: opts.name ?? `${role[0]!.toUpperCase()}${role.slice(1)} ${members}`, role } },
  });
  if (made.status !== 201) throw new Error(`the members API answered ${made.status}: ${JSON.stringify(made.body)}`);
  const tab = await open(browser, opts.width ?? 1280);
  const invitation = await keptMail(base, email, /invited/);
  await tab.page.goto(`${base}${linkTo(invitation.text, "/i/")}`);
  await Promise.all([tab.page.waitForLoadState(), tab.page.click("button[type=submit]")]);
  await tab.page.goto(`${base}/console/sign-in`);
  await tab.page.fill("#email", email);
  await Promise.all([tab.page.waitForURL(/\/console\/sign-in\/sent$/), tab.page.click("text=E-mail me a sign-in link")]);
  const mail = await keptMail(base, email, /^Your sign-in link$/);
  await tab.page.goto(`${base}${linkTo(mail.text, "/console/sign-in/")}`);
  await Promise.all([tab.page.waitForURL(`${base}/console`), tab.page.click("button:text-is('Sign in')")]);
  return { ...tab, email, id: made.body.data.id };
}

/**
 * A console page as every one must be: no axe violation at all (not only the serious ones), no
 * sideways scrolling, at a phone's and a desktop's width, with a screenshot of each to look at
 * (test-results/screens/console-NAME-WIDTH.png).
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.map((v) => `${name}@${width}: ${v.id} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
    expect((await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number).toBeLessThanOrEqual(1);
    await page.screenshot({ path: path.join(screens, `console-${name}-${width}.png`), fullPage: true });
  }
}
