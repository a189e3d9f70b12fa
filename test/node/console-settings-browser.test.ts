import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkPage, demoApi, launch, signedInMember } from "./console-session";

// The settings in Chromium, as an owner of the demo organization sees them: every page accessible at
// both widths, and a key made and shown once (its page is the form's answer; going back to the list
// shows its prefix only).

let browser: Browser;
// Where the test's webhook sends: loopback (npm run dev allows it), so the shared dev server never looks
// up a host name (test/node/answers.test.ts watches its log for that).
const receiver = http.createServer((_req, res) => res.writeHead(204).end());
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()).closeAllConnections());
});

describe("the console's settings in Chromium", () => {
  it("shows an owner every settings page accessibly, and a new key once", async () => {
    const { context, page, foreign, problems } = await signedInMember(browser, "owner");
    const hook = await demoApi("POST", "/v1/webhooks", {
      data: {
        type: "webhook",
        attributes: { name: `Browser hook ${Date.now()}`, url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/vdp` },
        relationships: { trigger_event_types: { data: [{ type: "trigger_event_type", id: "0b1e7f1a-5c52-5d7e-9a01-000000000001" }] } },
      },
    });
    expect(hook.status).toBe(201);
    expect((await demoApi("POST", `/v1/webhooks/${hook.body.data.id}/ping`)).status).toBe(202);
    for (const [path, name] of [
      ["/console/settings", "settings"],
      ["/console/settings/contacts", "settings-contacts"],
      ["/console/settings/webhooks", "settings-webhooks"],
      [`/console/settings/webhooks/${hook.body.data.id}`, "settings-deliveries"],
      ["/console/settings/members", "settings-members"],
      ["/console/settings/api-keys", "settings-api-keys"],
      ["/console/settings/audit", "settings-audit"],
    ]) {
      await page.goto(`${base}${path}`);
      await checkPage(page, name!);
    }

    await page.goto(`${base}/console/settings/api-keys`);
    const keyName = `Browser key ${Date.now()}`;
    await page.fill("#name", keyName);
    await page.check("input[name=scopes][value=vulns]");
    await Promise.all([page.waitForURL(`${base}/console/settings/api-keys`), page.click("text=Make the key")]);
    const key = await page.locator("#new-key").innerText();
    expect(key).toMatch(/^vdp_[A-Za-z0-9]{40,}$/);
    await checkPage(page, "settings-api-key-made");
    await page.goto(`${base}/console/settings/api-keys`);
    const listed = await page.content();
    expect(listed).not.toContain(key);
    expect(listed).toContain(key.slice(0, 8));
    expect(listed).toContain(keyName);

    // A bad form, with its problems beside the fields.
    await page.goto(`${base}/console/settings/webhooks`);
    await page.fill("#name", "No https");
    await page.fill("#url", "https://localhost/x");
    await Promise.all([page.waitForLoadState(), page.click("text=Add the webhook")]);
    expect(await page.locator("[role=alert]").innerText()).toContain("URL");
    await checkPage(page, "settings-webhooks-problem");

    expect(foreign).toEqual([]);
    // The bad form's answer is its 422, on purpose.
    expect(problems.filter((p) => !/^422 .*\/console\/settings\/webhooks$/.test(p))).toEqual([]);
    await context.close();
    // Gone again, so the demo organization's later reports send it nothing.
    expect((await demoApi("DELETE", `/v1/webhooks/${hook.body.data.id}`)).status).toBe(204);
  });
});
