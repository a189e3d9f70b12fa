import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkPage, demoApi, launch, signedInMember } from "./console-session";

// The advisories and metrics sections in Chromium, as a triager of the demo organization uses them:
// a draft from a report through the form (a product row added without script), its editor, a
// preview, the list, and the metrics page; each checked with axe at both widths.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => browser?.close());

describe("the console's advisories and metrics in Chromium", () => {
  it("drafts an advisory from a report and shows the list, the editor, a preview and the metrics accessibly", async () => {
    // A report of the demo organization's to write about, made as its key would.
    const briefs = await demoApi("GET", "/v1/briefs?page[size]=1");
    const briefId =
      briefs.body.data[0]?.id ??
      (
        await demoApi("POST", "/v1/briefs", {
          data: { type: "brief", attributes: { name: "Browser brief", published_at: "2020-01-01T00:00:00Z" } },
        })
      ).body.data.id;
    const made = await demoApi("POST", "/v1/vulns", {
      data: {
        type: "vuln",
        attributes: { title: "Open redirect found in Chromium", description: "Steps to reproduce" },
        relationships: { brief: { data: { type: "brief", id: briefId } } },
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const shortcode = made.body.data.attributes.shortcode as string;
    const { context, page, foreign, problems } = await signedInMember(browser, "triager");

    await page.goto(`${base}/console/advisories/new?vuln=${shortcode}`);
    expect(await page.inputValue("#vulns")).toBe(shortcode);
    await page.fill("#title", `Browser draft ${Date.now()}`);
    await page.fill("#summary", "A summary typed in Chromium.");
    await page.fill("#vendor_0", "Acme");
    await page.fill("#product_0", "Widget");
    await page.fill("#versions_0", "affected from 1.0.0 to 1.4.2\nfixed 1.4.2");
    await Promise.all([page.waitForLoadState(), page.click("button[name=add_product]")]);
    await page.waitForSelector("#vendor_1");
    expect(await page.inputValue("#vendor_0")).toBe("Acme");
    await page.fill("#vendor_1", "Acme");
    await page.fill("#product_1", "Gadget");
    await page.fill("#versions_1", "affected 2.0.1");
    await Promise.all([page.waitForURL(/\/console\/advisories\/[0-9a-f-]{36}(#errors)?$/), page.click("button[name=save]")]);
    expect(await page.locator("h1").innerText()).toMatch(/^Browser draft/);
    await checkPage(page, "advisory-editor");

    await page.click("text=OSV");
    await page.waitForURL(/\/preview\/osv$/);
    expect(JSON.stringify(JSON.parse(await page.locator("pre").innerText()))).toContain("A summary typed in Chromium.");
    await checkPage(page, "advisory-preview");

    await page.goto(`${base}/console/advisories`);
    expect(await page.locator("h1").innerText()).toBe("Advisories");
    await checkPage(page, "advisories");

    await page.goto(`${base}/console/metrics`);
    expect(await page.locator("h1").innerText()).toBe("Metrics");
    expect(await page.locator("svg.chart[role=img]").count()).toBe(3);
    await checkPage(page, "metrics");

    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
