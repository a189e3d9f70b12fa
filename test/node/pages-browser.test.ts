import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PAGE_CSP, tooManyPage } from "../../src/templates/layout";
import { keptMail, linkTo } from "./kept-mail";
import { waitFor } from "../helpers/wait";

// The pages as a researcher uses them, in Debian's Chromium against the shared npm run dev: the demo
// brief's page, the form, the reporter's page; the organization's side through its API. A machine
// without Chromium fails here, it does not skip.
const root = path.resolve(import.meta.dirname, "../..");
const { base, banner, logFile } = inject("dev");
/** The lines of `npm run dev`'s log where a page failed (the Worker logs why). */
const pageFailures = () =>
  readFileSync(logFile, "utf8")
    .split("\n")
    .filter((line) => /page failed|not stored|SQLITE|Error/.test(line))
    .slice(-20)
    .join("\n");
const screens = path.join(root, "test-results", "screens");
const key = /API key:\s+(vdp_\S+)/.exec(banner)![1]!;
const directoryPath = new URL(/Directory page:\s+(\S+)/.exec(banner)![1]!).pathname;
let browser: Browser;
let reportPath = "";

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
  mkdirSync(screens, { recursive: true });
});
afterAll(async () => browser?.close());

/**
 * The organization's API with the demo key, which other test files spend too (the README's walkthrough
 * among them): a 429 or 503 is waited out as its Retry-After says, within two minutes, and anything
 * else that is not a success says what it was, with what the server logged for it.
 */
const orgApi = async (method: string, p: string, body?: unknown) => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/vnd.api+json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const wait = Number(res.headers.get("Retry-After") ?? "1") * 1000;
    if ((res.status === 429 || res.status === 503) && Date.now() + wait < deadline) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      continue;
    }
    if (res.status >= 400) {
      // The server's log says why, under the request's id: its line may reach the log file after the
      // answer reaches us, so wait for it (a bound, not a pause).
      const id = res.headers.get("X-Request-Id");
      const linesOf = (rid: string) =>
        readFileSync(logFile, "utf8")
          .split("\n")
          .filter((line) => line.includes(rid))
          .join("\n");
      const logged = id
        ? await waitFor(`npm run dev's log line for ${id}`, () => linesOf(id), Boolean, { timeout: 10_000 }).catch(
            () => `(nothing under ${id} within 10 s)`,
          )
        : "(no X-Request-Id)";
      throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 500)}\nnpm run dev logged:\n${logged}`);
    }
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  }
};

// Each page gets an address of its own (the local server takes the client's address from CF-Connecting-IP),
// so the shared server's limit of 5 submissions a minute per address is never spent by other test files.
let addresses = 0;
async function open(width: number) {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    extraHTTPHeaders: { "CF-Connecting-IP": `198.51.100.${++addresses}` },
  });
  // Waits for a page, a navigation or an element are bounded generously: a loaded machine is slow.
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => !r.url().startsWith(base) && foreign.push(r.url()));
  // Chromium asks for /favicon.ico on its own; the pages name no icon.
  page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && problems.push(`${r.status()} ${r.url()}`));
  page.on("console", (m) => m.type() === "error" && !/Failed to load resource/.test(m.text()) && problems.push(m.text()));
  return { context, page, foreign, problems };
}

/** No serious or critical axe violation, no sideways scrolling, and a screenshot to look at. */
async function check(page: Page, name: string, width: number) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${name}@${width}: ${v.id} ${v.nodes[0]?.target}`),
  ).toEqual([]);
  expect((await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number).toBeLessThanOrEqual(1);
  await page.screenshot({ path: path.join(screens, `page-${name}-${width}.png`), fullPage: true });
}

/** The texts of the cells `selector` finds that take more than one line. */
function brokenCells(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (cells) =>
    cells.flatMap((cell) => {
      const range = cell.ownerDocument.createRange();
      range.selectNodeContents(cell);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      return lines.size > 1 ? [cell.textContent ?? ""] : [];
    }),
  );
}

/** Sends the brief's form and expects the status of its answer, so a refused request fails here at once. */
async function submit(page: Page, status: number) {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname.startsWith("/b/")),
    page.click("button[type=submit]"),
  ]);
  expect(answer.status()).toBe(status);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("a researcher in Chromium", () => {
  it("reads the terms, reports with a file, follows the report, answers the organization and adds a file", async () => {
    const { context, page, foreign, problems } = await open(1280);
    await page.goto(`${base}/b/DEMX-0001`);
    expect(await page.locator("h1").innerText()).not.toBe("");
    const terms = (await page.locator("dl.terms").allInnerTexts()).join("\n");
    expect(terms).toContain("Safe harbor");
    expect(terms).toContain("In scope");

    const title = `Stored XSS <img> in the profile ${Date.now()}`;
    const description = "1. Set the display name to <img src=x onerror=alert(1)>\n2. Open /team: the script runs.\n«ünïcode» kept";
    const poc = Buffer.from("<html><script>alert(document.domain)</script></html>\n");
    await page.fill("#title", title);
    await page.fill("#description", description);
    await page.fill("#contact_email", "researcher@example.org");
    await page.fill("#domains", "app.example.com\nteam.example.com, api.example.com");
    await page.setInputFiles("#files", { name: "poc.html", mimeType: "text/html", buffer: poc });
    await submit(page, 303);
    await page.waitForURL(/\/r\/vdpr_/);
    reportPath = new URL(page.url()).pathname;
    const heading = await page.locator("h1").innerText();
    // A page that failed says only "Something went wrong": the reason is in the server's log, shown here.
    if (heading !== title) throw new Error(`the report page answered "${heading}"; the server logged:\n${pageFailures()}`);
    expect(await page.getByText("Keep this page's address.").count()).toBe(1);
    // The page is loaded: a file the server failed to store shows no table, and its log says why.
    if ((await page.locator("table").count()) === 0)
      throw new Error(`the report page lists no file; the server logged:\n${pageFailures()}`);
    expect(await page.locator("table").innerText()).toContain("poc.html");

    // The organization sees exactly what the browser sent.
    const vulns = await orgApi("GET", "/v1/vulns?sort=-created_at&page[size]=50");
    const vuln = vulns.body.data.find((v: { attributes: { title: string } }) => v.attributes.title === title);
    expect(vuln.attributes).toMatchObject({
      description,
      contact_email: "researcher@example.org",
      domains: ["api.example.com", "app.example.com", "team.example.com"],
    });
    const files = await orgApi("GET", `/v1/vulns/${vuln.id}/attachments`);
    expect(files.body.data.map((f: { attributes: object }) => f.attributes)).toEqual([
      expect.objectContaining({ filename: "poc.html", byte_size: poc.byteLength, sha256: sha256(poc), uploaded_by: "reporter" }),
    ]);

    // The organization answers through its API; the reporter sees it on reload and replies.
    expect(
      (
        await orgApi("POST", `/v1/vulns/${vuln.id}/comments`, {
          data: { type: "comment", attributes: { body: "Confirmed, thank you. Which browser did you use?", visibility: "reporter" } },
        })
      ).status,
    ).toBe(201);
    await page.reload();
    expect(await page.locator("ol.conversation").innerText()).toContain("Which browser did you use?");
    await page.fill("#body", "Chromium 130 on Debian.");
    await Promise.all([page.waitForURL(/#conversation$/), page.click("text=Send the reply")]);
    expect(await page.locator("ol.conversation li").last().innerText()).toContain("Chromium 130 on Debian.");
    const log = Buffer.from("GET /team 200\n");
    await page.setInputFiles("#file", { name: "server.log", mimeType: "text/plain", buffer: log });
    await Promise.all([page.waitForURL(/#files$/), page.click("text=Upload the file")]);
    expect(await page.locator("table").innerText()).toContain("server.log");

    const comments = await orgApi("GET", `/v1/vulns/${vuln.id}/comments`);
    expect(
      comments.body.data.map((c: { attributes: { author: string; body: string } }) => [c.attributes.author, c.attributes.body]),
    ).toContainEqual(["reporter", "Chromium 130 on Debian."]);
    const after = await orgApi("GET", `/v1/vulns/${vuln.id}/attachments`);
    expect(
      after.body.data.find((f: { attributes: { filename: string } }) => f.attributes.filename === "server.log").attributes.sha256,
    ).toBe(sha256(log));
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("keeps what was typed when the form comes back, with each message beside its field", async () => {
    const { context, page } = await open(375);
    await page.goto(`${base}/b/DEMX-0001`);
    await page.fill("#title", "Open redirect");
    await page.fill("#description", "Kept exactly:\n<b>bold</b> & more");
    await page.fill("#contact_email", "me@localhost");
    await page.fill("#domains", "good.example.com\nnot a domain!");
    await submit(page, 422);
    await page.locator(".error-summary").waitFor();
    expect(await page.locator("#domains-error").innerText()).toContain("“not a domain!” must be a domain name");
    expect(await page.locator("#contact_email-error").innerText()).toContain("must be a valid e-mail address");
    expect(await page.locator("#domains").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#domains").getAttribute("aria-describedby")).toContain("domains-error");
    expect(await page.inputValue("#title")).toBe("Open redirect");
    expect(await page.inputValue("#description")).toBe("Kept exactly:\n<b>bold</b> & more");
    expect(await page.inputValue("#contact_email")).toBe("me@localhost");
    expect(await page.inputValue("#domains")).toBe("good.example.com\nnot a domain!");
    await check(page, "brief-invalid", 375);
    await context.close();
  });

  it("lands on the error summary, focused, when the form comes back, at phone and desktop sizes; every invalid field is marked", async () => {
    for (const [width, height] of [
      [375, 700],
      [1280, 800],
    ] as const) {
      const { context, page } = await open(width);
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/b/DEMX-0001`);
      await page.fill("#title", "Open redirect");
      await page.fill("#description", "   ");
      await page.fill("#contact_email", "me@localhost");
      await page.fill("#domains", "not a domain!");
      await submit(page, 422);
      await page.locator(".error-summary").waitFor();
      // The browser went to the summary (the form's action names it) and focus is on it.
      expect(new URL(page.url()).hash).toBe("#errors");
      expect(await page.evaluate("document.activeElement && document.activeElement.id")).toBe("errors");
      const box = (await page.locator("#errors").boundingBox())!;
      expect([width, box.y >= -1 && box.y + Math.min(box.height, 100) <= height, box]).toEqual([width, true, box]);
      expect(await page.title()).toMatch(/^Error: /);
      for (const id of ["description", "contact_email", "domains"]) {
        expect([id, await page.locator(`#${id}`).getAttribute("aria-invalid")]).toEqual([id, "true"]);
        const border = await page.evaluate(`getComputedStyle(document.getElementById(${JSON.stringify(id)})).borderTopColor`);
        expect([id, border]).toEqual([id, "rgb(176, 0, 32)"]);
      }
      expect(await page.locator("#title").getAttribute("aria-invalid")).toBeNull();
      await page.screenshot({ path: path.join(screens, `brief-errors-landed-${width}.png`) });
      await context.close();
    }
  });

  it("starts at / with a page, finds a program by its code, and a 404 page leads back there", async () => {
    for (const width of [375, 1280]) {
      const { context, page } = await open(width);
      await page.goto(`${base}/`);
      expect(await page.locator("h1").innerText()).toMatch(/Report a vulnerability/);
      expect(await page.locator('a[href="/docs"]').count()).toBe(1);
      expect(await page.locator('a[href="/d/demo-directory"]').count()).toBe(1);
      await check(page, "home", width);
      await page.fill("#code", "demx-0001");
      await page.click("form.finder button[type=submit]");
      await page.waitForURL(`${base}/b/DEMX-0001`);
      expect(await page.locator("h1").innerText()).not.toBe("");
      await page.goto(`${base}/b/NOPE-NOPE`);
      await check(page, "not-found-onward", width);
      await page.click('main a[href="/"]');
      await page.waitForURL(`${base}/`);
      expect(await page.locator("h1").innerText()).toMatch(/Report a vulnerability/);
      await context.close();
    }
  });

  it("follows the links e-mails carry: a contact confirms its address, a reporter stops a report's e-mails", async () => {
    const stamp = Date.now().toString(36);
    const contact = await orgApi("POST", "/v1/contacts", {
      data: { type: "contact", attributes: { name: "Dana Reyes", email: `dana-${stamp}@demo.example`, role: "responder" } },
    });
    expect(contact.status).toBe(201);
    const confirm = linkTo((await keptMail(base, `dana-${stamp}@demo.example`, /^Confirm your address/)).text, "/c/");
    const reporter = `finder-${stamp}@researcher.example`;
    const submitted = await fetch(`${base}/v1/p/briefs/DEMX-0001/vulns`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.250" },
      body: JSON.stringify({
        data: { type: "vuln", attributes: { title: "Session fixation", description: "On /sso.", contact_email: reporter } },
      }),
    });
    expect(submitted.status).toBe(201);
    const receipt = await keptMail(base, reporter, /was received/);
    const unsubscribe = linkTo(receipt.text, "/u/");
    expect(receipt.headers?.["List-Unsubscribe"]).toMatch(new RegExp(`^<http://[^/]+${unsubscribe}>$`));
    for (const width of [375, 1280]) {
      const { context, page, foreign, problems } = await open(width);
      await page.goto(`${base}${confirm}`);
      await check(page, "contact-confirm", width);
      await page.goto(`${base}${unsubscribe}`);
      await check(page, "unsubscribe", width);
      if (width === 1280) {
        await page.goto(`${base}${confirm}`);
        await Promise.all([page.waitForURL(`${base}${confirm}`), page.click("button[type=submit]")]);
        expect(await page.locator("h1").textContent()).toBe("Address confirmed");
        await check(page, "contact-confirmed", width);
        await page.goto(`${base}${unsubscribe}`);
        await Promise.all([page.waitForLoadState(), page.click("button[type=submit]")]);
        await page.waitForSelector("text=No more e-mail about this report");
        await check(page, "unsubscribed", width);
      }
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
    expect((await orgApi("GET", `/v1/contacts/${contact.body.data.id}`)).body.data.attributes.confirmed_at).not.toBeNull();
  });

  it("every page passes axe with no serious or critical violation and fits at 375 and 1280 px", async () => {
    expect(reportPath).toMatch(/^\/r\/vdpr_/);
    // An advisory about the report sent above, published, with every section its page has.
    // Its reporter consents to be credited, so the advisory and the hall of fame name them.
    const consented = await fetch(`${base}/v1/p/report`, {
      method: "PATCH",
      headers: { Authorization: `Bearer ${reportPath.slice(3)}`, "Content-Type": "application/vnd.api+json" },
      body: JSON.stringify({
        data: { type: "report", attributes: { credit_name: "Jane Finder (Example Research Group)", credit_consent: true } },
      }),
    });
    const report = (await consented.json()) as any;
    expect(consented.status).toBe(200);
    const advisory = await orgApi("POST", "/v1/advisories", {
      data: {
        type: "advisory",
        attributes: {
          title: "Open redirect on the login page of demo.example, reachable without signing in",
          summary: "The login page sends a signed-in user to any address given in its next parameter.",
          description:
            "An attacker sends a link to demo.example/login?next=https://evil.example; after signing in, the victim lands on the attacker's page.",
          state: "published",
          cve_id: "CVE-2026-40999",
          cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
          cwe_ids: ["CWE-601"],
          remediation: "Fixed on the server on 2026-11-20; nothing to do.",
          references: ["https://demo.example/security/advisories/redirect-with-a-long-address-that-must-wrap"],
          affected: [
            {
              vendor: "Demo Security Co",
              product: "demo.example login",
              purl: "pkg:npm/%40demo/login",
              versions: [
                { range: { introduced: "2025.1", fixed: "2026.11" }, status: "affected" },
                { version: "2026.11", status: "fixed" },
              ],
            },
          ],
          credits: [
            { reporter_of: report.data.id, type: "finder" },
            { name: "Demo PSIRT", type: "coordinator" },
          ],
        },
        relationships: { vulns: { data: [{ type: "vuln", id: report.data.id }] } },
      },
    });
    expect(advisory.status).toBe(201);
    for (const width of [375, 1280]) {
      const { context, page, foreign } = await open(width);
      // The 429 page exactly as the Worker renders it (the shared server's limits are not spent for a picture).
      await context.route(`${base}/__429`, (r) =>
        r.fulfill({
          status: 429,
          contentType: "text/html; charset=utf-8",
          headers: { "Content-Security-Policy": PAGE_CSP },
          body: tooManyPage(60),
        }),
      );
      for (const [name, p] of [
        ["brief", "/b/DEMX-0001"],
        ["report", reportPath],
        ["directory", directoryPath],
        ["policy", "/p/DEMX-0002"],
        ["advisory", `/a/${advisory.body.data.id}`],
        ["hall-of-fame", "/h/DEMX-0002"],
        ["not-found", "/b/ZZZZ-ZZZZ"],
        ["too-many", "/__429"],
      ] as const) {
        await page.goto(`${base}${p}`);
        await check(page, name, width);
        // The hall of fame's headers and its month and severity cells read whole, each on one line
        // ("Severi / ty" once), however long the names beside them.
        if (name === "hall-of-fame") expect(await brokenCells(page, "th, td:not(:first-child)")).toEqual([]);
      }
      expect(foreign).toEqual([]);
      await context.close();
    }
  });
});
