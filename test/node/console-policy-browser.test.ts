import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkPage, demoApi, launch, signedInMember } from "./console-session";

// The policy and briefs settings in Chromium, as an owner of the demo organization uses them: a policy
// with a full text of every Markdown form, three versions compared, a change saved through the form.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => browser?.close());

const BODY = `# Our promise

We will not take legal action against research within these rules. Read [the law](https://law.example/a-very-long-path/${"x".repeat(120)}).

## In scope

| Host | Notes |
|---|---|
| shop.example.com | The shop, its API and every sub-${"domain".repeat(12)} |

- [x] Acknowledge within three days
- [ ] Publish an advisory

\`\`\`sh
curl -s https://shop.example.com/${"a".repeat(150)}
\`\`\`

<script>alert(1)</script> and [no](javascript:alert(1)).[^1]

[^1]: A footnote.
`;

describe("the console's policy settings in Chromium", () => {
  it("shows an owner the policy's form, its text, versions and a diff, and the briefs, accessibly at both widths", async () => {
    const made = await demoApi("POST", "/v1/policies", {
      data: { type: "policy", attributes: { name: "Browser VDP", cvd_timeline: 90, body: BODY } },
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    const change = (attributes: Record<string, unknown>) =>
      demoApi("PATCH", `/v1/policies/${id}`, { data: { type: "policy", id, attributes } });
    expect((await change({ cvd_timeline: 45 })).status).toBe(200);
    expect((await change({ body: BODY.replace("three days", "two days") })).status).toBe(200);
    const b = await demoApi("POST", "/v1/briefs", {
      data: { type: "brief", attributes: { name: "Browser brief" }, relationships: { policy: { data: { type: "policy", id } } } },
    });
    expect(b.status).toBe(201);

    const { context, page, foreign, problems } = await signedInMember(browser, "owner");
    await page.goto(`${base}/console/settings/policy?policy=${id}`);
    // The diff through its own GET form.
    await page.selectOption("#from", "1");
    await page.selectOption("#to", "3");
    await Promise.all([page.waitForURL(/from=1&to=3/), page.click("button:text-is('Compare')")]);
    expect(await page.locator("del.line").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator("ins.line").first().textContent()).toMatch(/^Added: \+ /);
    expect(await page.locator(".policy-body table").count()).toBe(1);
    await checkPage(page, "settings-policy");

    // A change through the form: saved, and a new version.
    await page.fill("#name", "Browser VDP, renamed");
    await Promise.all([page.waitForURL(/saved=1/), page.click("button:text-is('Save the policy')")]);
    expect(await page.locator("[role=status]").innerText()).toContain("Saved.");
    expect((await demoApi("GET", `/v1/policies/${id}`)).body.data.attributes.name).toBe("Browser VDP, renamed");

    await page.goto(`${base}/console/settings/briefs?brief=${b.body.data.id}`);
    expect(await page.locator("h1").innerText()).toBe("Briefs");
    await checkPage(page, "settings-briefs");
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
