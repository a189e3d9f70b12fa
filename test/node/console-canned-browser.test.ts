import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkPage, launch, signedInMember } from "./console-session";

// Settings > Canned responses in Chromium: an owner adds one and opens its edit form; a viewer reads.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => browser?.close());

describe("the canned responses page in Chromium", () => {
  it("lets an owner add a canned response and open its edit form, accessibly at both widths", async () => {
    const { context, page, foreign, problems } = await signedInMember(browser, "owner");
    await page.goto(`${base}/console/settings/canned-responses`);
    expect(await page.locator("h1").innerText()).toBe("Canned responses");
    const name = `Acknowledged ${Date.now().toString(36)}`;
    await page.fill("#name", name);
    await page.fill(
      "#body",
      "Hello {{reporter_name}},\n\nThank you for your report {{shortcode}}. We are looking into it and follow our policy at " +
        "{{policy_url}}; a very-long-word-without-any-break-to-test-wrapping-on-a-phone-screen-abcdefghijklmnopqrstuvwxyz.",
    );
    await page.check("#visibility-reporter");
    await Promise.all([page.waitForURL(`${base}/console/settings/canned-responses`), page.click("text=Add the canned response")]);
    await page.locator(`a:text-is("${name}")`).waitFor();
    await checkPage(page, "canned-list");
    await Promise.all([page.waitForURL(/\/console\/settings\/canned-responses\/[0-9a-f-]{36}$/), page.click(`a:text-is("${name}")`)]);
    expect(await page.inputValue("#name")).toBe(name);
    await checkPage(page, "canned-edit");
    // A refused change comes back with its problem beside the field and in the summary.
    await page.fill("#body", "   ");
    await page.click("text=Save the changes");
    await page.locator(".error-summary").waitFor();
    await checkPage(page, "canned-refused");
    expect(foreign).toEqual([]);
    expect(problems.filter((p) => !p.startsWith("422 "))).toEqual([]);
    await context.close();
  });

  it("shows a viewer the list without forms", async () => {
    const { context, page, foreign, problems } = await signedInMember(browser, "viewer");
    await page.goto(`${base}/console/settings/canned-responses`);
    expect(await page.locator("form[action='/console/settings/canned-responses']").count()).toBe(0);
    await checkPage(page, "canned-viewer");
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
