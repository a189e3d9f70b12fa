import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkPage, launch, signedInMember } from "./console-session";

// The inbox in Chromium, as a triager of the demo organization sees it.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => browser?.close());

describe("the console's inbox in Chromium", () => {
  it("shows a signed-in triager the demo organization's reports, accessibly at both widths", async () => {
    const { context, page, foreign, problems } = await signedInMember(browser, "triager");
    expect(new URL(page.url()).pathname).toBe("/console");
    expect(await page.locator("h1").innerText()).toBe("Inbox");
    await checkPage(page, "inbox");
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
    expect(base).toMatch(/^http:\/\/localhost:/);
  });
});
