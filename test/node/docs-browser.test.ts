import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
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
  // Waits for a page, a navigation or an element are bounded generously: a loaded machine is slow.
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  const problems: string[] = [];
  const foreign: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("request", (r) => !r.url().startsWith(base) && !r.url().startsWith("data:") && foreign.push(r.url()));
  await page.goto(`${base}/docs`);
  return { context, page, problems, foreign };
}

/** Every operation of the served document, by its summary and operationId. */
async function operations(): Promise<{ id: string; summary: string }[]> {
  const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: unknown };
  const all: { id: string; summary: string }[] = [];
  for (const item of Object.values(doc.paths as Record<string, Record<string, { operationId: string; summary: string }>>)) {
    for (const op of Object.values(item)) all.push({ id: op.operationId, summary: op.summary });
  }
  return all;
}

/**
 * Every operation is on the page (by its summary's text or its id in the markup). The Worker renders
 * the page whole, so this holds once it has loaded; the wait is bounded all the same, and past the
 * bound the failure names what is missing.
 */
async function renderedAll(page: Page, ops: { id: string; summary: string }[]) {
  await page
    .waitForFunction(
      (wanted) => {
        // Runs in the page (the tests' types have no DOM).
        const { body } = (globalThis as unknown as { document: { body: { innerText: string; innerHTML: string } } }).document;
        const text = body.innerText;
        const html = body.innerHTML;
        return wanted.every((op) => text.includes(op.summary) || html.includes(op.id));
      },
      ops,
      { timeout: 120_000, polling: 500 },
    )
    .catch(async (err: Error) => {
      const text = (await page.evaluate("document.body.innerText")) as string;
      const html = await page.content();
      const missing = ops.filter((op) => !text.includes(op.summary) && !html.includes(op.id)).map((op) => op.id);
      throw new Error(`waited for every operation to render; still missing: ${missing.join(", ")} (${err.message})`);
    });
}

describe("GET /docs in Chromium", () => {
  it("renders every operation of the served document, offline, with no console error and no script", async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(50);
    const { context, page, problems, foreign } = await open(1280);
    await renderedAll(page, ops);
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    expect(await page.locator("script").count()).toBe(0);
    mkdirSync(screens, { recursive: true });
    await page.screenshot({ path: path.join(screens, "docs-1280.png") });
    await context.close();
  });

  // axe reads the whole page (about 14,000 elements), most slowly where it is laid out narrowest: once, at a phone's width.
  it("passes axe with no violation at all at 375 px, its contents opened, and a link of the contents lands", async () => {
    const width = 375;
    const { context, page } = await open(width);
    await page.locator("nav details summary").click();
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.length}x, e.g. ${v.nodes[0]?.target}`)).toEqual([]);
    // A link of the contents lands on its operation.
    const first = page.locator("ul.toc ul a").first();
    const target = (await first.getAttribute("href"))!;
    await first.click();
    expect(page.url().endsWith(target)).toBe(true);
    expect(await page.locator(`${target} h3`).isVisible()).toBe(true);
    mkdirSync(screens, { recursive: true });
    await page.screenshot({ path: path.join(screens, `docs-${width}-contents.png`) });
    await context.close();
  });

  it("is usable at a phone's width: once every operation has rendered, nothing scrolls sideways", async () => {
    const ops = await operations();
    const { context, page } = await open(375);
    await renderedAll(page, ops);
    // The page lays out what is off screen only when it comes near (content-visibility): measure it all.
    await page.evaluate("document.querySelectorAll('article').forEach((a) => { a.style.contentVisibility = 'visible'; })");
    // What sticks out, named, so a failure says where to look (what scrolling containers hold excepted).
    const sticking = (await page.evaluate(`(() => {
      const width = window.innerWidth;
      const scrolls = (el) => { for (let e = el.parentElement; e && e !== document.documentElement; e = e.parentElement) if (getComputedStyle(e).overflowX !== "visible") return true; return false; };
      return [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > width + 1 && !scrolls(el))
        .map((el) => el.tagName.toLowerCase() + ": " + (el.textContent || "").trim().slice(0, 80));
    })()`)) as string[];
    const overflow = (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number;
    expect({ overflow: Math.max(0, overflow - 1), sticking: overflow > 1 ? sticking : [] }).toEqual({ overflow: 0, sticking: [] });
    // The error codes' table keeps readable columns (it scrolls inside itself rather than squeezing).
    const narrowest = (await page.evaluate(`(() => {
      const table = [...document.querySelectorAll("table")].find((t) => t.textContent.includes("validation_error"));
      if (!table) return -1;
      return Math.min(...[...table.querySelectorAll("tr:nth-child(2) td")].map((td) => td.getBoundingClientRect().width));
    })()`)) as number;
    expect(narrowest).toBeGreaterThanOrEqual(100);
    mkdirSync(screens, { recursive: true });
    await page.screenshot({ path: path.join(screens, "docs-375.png") });
    await context.close();
  });

  it("serves the errors page every error links to, with the anchor of each code", async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(120_000);
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
