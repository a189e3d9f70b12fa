import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkPage, demoApi, launch, signedInMember } from "./console-session";

// A triager's whole day in the console, in Debian's Chromium against the shared `npm run dev`: reports
// arrive through the demo program's public door; the triager signs in, opens the New view, reads a
// report, answers the reporter, asks for more information and gets the answer, triages with severity and
// CVSS, marks a duplicate, closes three spam reports in one bulk change, and reads the metrics. Every
// title and body carries markup that would run if anything were not escaped: no dialog may open and no
// injected element may appear. Every page passes axe at both widths.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => browser?.close());

const XSS = `<img src=x id=injected onerror="alert(1)"><script>alert(2)</script>`;
const run = `r${Date.now().toString(36)}`;
let address = 0;

/** A report through the demo program's public door, as a researcher's client sends it; its shortcode and token. */
async function submit(title: string, description: string): Promise<{ shortcode: string; token: string }> {
  const res = await fetch(`${base}/v1/p/briefs/DEMX-0001/vulns`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": `192.0.2.${(++address % 200) + 20}` },
    body: JSON.stringify({ data: { type: "vuln", attributes: { title, description } } }),
  });
  const body = (await res.json()) as { data: { attributes: { shortcode: string; follow_up_token: string } } };
  if (res.status !== 201) throw new Error(`the public submission answered ${res.status}: ${JSON.stringify(body)}`);
  return { shortcode: body.data.attributes.shortcode, token: body.data.attributes.follow_up_token };
}

/** Sends the page's form whose button is `button`, and waits for the page it leads to. */
async function press(page: Page, button: string) {
  await Promise.all([page.waitForNavigation(), page.click(button)]);
}

describe("a triager's day in Chromium", () => {
  it("reads, answers, asks, triages, marks a duplicate, bulk-closes spam and reads the metrics, all in the browser", async () => {
    const real = await submit(`${run} Stored XSS in profile ${XSS}`, `Steps: set the name to ${XSS}, then open the profile.`);
    const again = await submit(`${run} Profile name runs script`, "The same finding, written differently.");
    const spam = [];
    for (const n of [1, 2, 3]) spam.push(await submit(`${run} spam offer ${n}`, "Cheap followers, click here."));

    const canned = await demoApi("POST", "/v1/canned_responses", {
      data: {
        type: "canned_response",
        attributes: {
          name: `${run} thanks`,
          body: "Thank you for report {{shortcode}}. Our policy: {{policy_url}}",
          visibility: "reporter",
        },
      },
    });
    expect(canned.status, JSON.stringify(canned.body)).toBe(201);
    const { context, page, foreign, problems } = await signedInMember(browser, "triager", { name: `Tess ${run}` });
    const dialogs: string[] = [];
    page.on("dialog", async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });

    // The New view lists them, unread.
    await page.goto(`${base}/console?q=${run}`);
    expect(await page.locator("ul.tabs [aria-current=page]").innerText()).toContain("New");
    const listed = await page.locator("table.inbox tbody tr").allInnerTexts();
    expect(listed.filter((t) => t.includes("Unread"))).toHaveLength(5);
    await checkPage(page, "inbox");

    // Read the report: the record as received beside the triage form.
    await press(page, `a:text-is("${real.shortcode}")`);
    expect(await page.locator("h2#received-heading").isVisible()).toBe(true);
    expect(await page.locator("pre.received").innerText()).toContain("<script>alert(2)</script>");
    await checkPage(page, "report");

    // Answer the reporter from a canned response, its placeholders filled; the visibility is chosen.
    await page.selectOption("#canned", { label: `${run} thanks` });
    await press(page, "text=Use it");
    expect(await page.inputValue("#reply-body")).toMatch(
      new RegExp(`^Thank you for report ${real.shortcode}\\. Our policy: https?://\\S+/p/\\S+$`),
    );
    await page.fill("#reply-body", `${await page.inputValue("#reply-body")} ${XSS}`);
    expect(await page.isChecked("input[name=visibility][value=reporter]")).toBe(true);
    await press(page, "button[value=reply]");
    expect(await page.locator("p.notice").innerText()).toContain("added to the conversation");

    // Ask for more, and get the answer through the reporter's own door.
    await page.fill("#reply-body", "Which browser did you use?");
    await page.check("input[name=visibility][value=reporter]");
    await press(page, "button[value=ask]");
    expect(await page.locator("dl.terms").first().innerText()).toContain("Needs more information");
    const answered = await fetch(`${base}/v1/p/report/comments`, {
      method: "POST",
      headers: { Authorization: `Bearer ${real.token}`, "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.250" },
      body: JSON.stringify({ data: { type: "comment", attributes: { body: `Firefox 140 ${XSS}` } } }),
    });
    expect(answered.status).toBe(201);
    await page.reload();
    expect(await page.locator("ol.conversation").innerText()).toContain("Firefox 140");
    expect(await page.locator("dl.terms").first().innerText()).toContain("New");

    // Triage: severity and a CVSS vector, scored on the server.
    await page.selectOption("#triage_state", "triaged");
    await page.selectOption("#severity", "high");
    await page.fill("#cvss_vector", "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N");
    await page.fill("#cwe_ids", "CWE-79");
    await page.selectOption("#assignee", { label: `Tess ${run}` });
    await press(page, "text=Save the triage");
    expect(await page.locator("p.notice").innerText()).toContain("The triage was saved.");
    expect(await page.locator("#cvss-score").innerText()).toContain("6.1");
    expect(await page.locator("dl.terms").first().innerText()).toContain(`Tess ${run}`);

    // The second report is the same finding: a duplicate of the first, by its shortcode.
    await page.goto(`${base}/console/reports/${again.shortcode}`);
    await page.selectOption("#triage_state", "duplicate");
    await page.fill("#duplicate_of", real.shortcode);
    await page.fill("#reason", "Same finding as the first report.");
    await press(page, "text=Save the triage");
    expect(await page.locator("dl.terms").first().innerText()).toContain(`Duplicate of ${real.shortcode}`);

    // Three spam reports closed in one bulk change, after its confirmation page.
    await page.goto(`${base}/console?view=open&q=${encodeURIComponent(`${run} spam`)}`);
    for (const s of spam) await page.check(`input[aria-label="Select ${s.shortcode}"]`);
    await page.selectOption("#bulk-change", "state:spam");
    await page.fill("#bulk-reason", "Machine-made offers.");
    await press(page, "text=Review the change");
    expect(await page.locator("p.lead").innerText()).toContain("Move them to Spam: 3 reports. Nothing has changed yet.");
    await checkPage(page, "bulk-confirm");
    await press(page, "form[action='/console/bulk/apply'] button[type=submit]");
    expect(await page.locator("p.lead").innerText()).toContain("3 of 3 reports changed");
    await checkPage(page, "bulk-done");
    await page.goto(`${base}/console?view=closed&q=${encodeURIComponent(`${run} spam`)}`);
    expect((await page.locator("table.inbox tbody tr").allInnerTexts()).filter((t) => t.includes("Spam"))).toHaveLength(3);

    // Assigned to her: her own view lists the report.
    await page.goto(`${base}/console?view=mine&q=${run}`);
    expect(await page.locator("table.inbox").innerText()).toContain(real.shortcode);

    // An advisory drafted from the report, then published.
    await page.goto(`${base}/console/reports/${real.shortcode}`);
    await press(page, "text=Draft an advisory from this report");
    await page.fill("#title", `${run} Stored XSS in profiles`);
    await page.fill("#summary", "A profile name could run script in other users' browsers.");
    await page.fill("#vendor_0", "Demo Security Co");
    await page.fill("#product_0", "Profiles");
    await page.fill("#versions_0", "affected from 1.0.0 to 1.4.2\nfixed 1.4.2");
    await press(page, "button[name=save]");
    await press(page, "text=Publish…");
    await checkPage(page, "advisory-publish");
    await press(page, "text=Publish it now");
    expect(await page.locator("main").innerText()).toMatch(/Published/);
    const published = await demoApi("GET", "/v1/advisories?page[size]=100");
    expect(
      published.body.data.find((a: { attributes: { title: string } }) => a.attributes.title === `${run} Stored XSS in profiles`)?.attributes
        .state,
    ).toBe("published");

    // The day's figures.
    await page.goto(`${base}/console/metrics`);
    expect(await page.locator("svg.chart[role=img]").count()).toBe(3);

    expect(dialogs).toEqual([]);
    expect(await page.locator("#injected").count()).toBe(0);
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a viewer the same reports with no form that could change them", async () => {
    const report = await submit(`${run} viewer's report`, "Read only.");
    const { context, page, problems } = await signedInMember(browser, "viewer");
    await page.goto(`${base}/console/reports/${report.shortcode}`);
    expect(await page.locator("h1").innerText()).toContain(report.shortcode);
    expect(await page.locator("form[method=post]:not([action='/console/sign-out'])").count()).toBe(0);
    await page.goto(`${base}/console?q=${run}`);
    expect(await page.locator("#bulk").count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
