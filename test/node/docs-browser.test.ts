import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// /docs in a real browser: Debian's chromium (never a downloaded one). A machine without it fails
// here, it does not skip: .ci/run installs it.
const root = path.resolve(import.meta.dirname, "../..");
const { base } = inject("dev");
const screens = path.join(root, "test-results", "screens");
let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
});
afterAll(async () => browser?.close());

async function open(width: number) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const foreign: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("request", (r) => !r.url().startsWith(base) && !r.url().startsWith("data:") && foreign.push(r.url()));
  await page.goto(`${base}/docs`);
  return { context, page, problems, foreign };
}

describe("GET /docs in Chromium", () => {
  it("renders every operation of the served document, offline and under its CSP", async () => {
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: unknown };
    const operations: { id: string; summary: string }[] = [];
    for (const item of Object.values(doc.paths as Record<string, Record<string, { operationId: string; summary: string }>>)) {
      for (const op of Object.values(item)) operations.push({ id: op.operationId, summary: op.summary });
    }
    expect(operations.length).toBeGreaterThan(50);

    const { context, page, problems, foreign } = await open(1280);
    await page.getByText(operations[0]!.summary, { exact: false }).first().waitFor({ timeout: 30_000 });
    const text = (await page.evaluate("document.body.innerText")) as string;
    const html = await page.content();
    const missing = operations.filter((op) => !text.includes(op.summary) && !html.includes(op.id));
    expect(missing).toEqual([]);
    expect(foreign).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
    mkdirSync(screens, { recursive: true });
    await page.screenshot({ path: path.join(screens, "docs-1280.png") });
    await context.close();
  });

  it("is usable at a phone's width", async () => {
    const { context, page } = await open(375);
    await page.getByText("Vulnerability Disclosure Platform API").first().waitFor({ timeout: 30_000 });
    const overflow = (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number;
    expect(overflow).toBeLessThanOrEqual(1);
    mkdirSync(screens, { recursive: true });
    await page.screenshot({ path: path.join(screens, "docs-375.png") });
    await context.close();
  });

  it("serves the errors page every error links to, with the anchor of each code", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/docs/errors#validation_error`);
    expect(await page.locator("#validation_error h2").innerText()).toContain("422");
    const res = await fetch(`${base}/v1/policies`);
    const about = ((await res.json()) as { errors: { links: { about: string } }[] }).errors[0]!.links.about;
    await page.goto(`${base}${about}`);
    expect(await page.locator(`#${about.split("#")[1]}`).count()).toBe(1);
    await context.close();
  });
});

describe("the reference page's script", () => {
  it("is served as a static asset by the same origin", async () => {
    const res = await fetch(`${base}/assets/scalar-api-reference.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/javascript/);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(500_000);
  });
});
