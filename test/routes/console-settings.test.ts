import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { get, post } from "../helpers/api";
import { Browser, member, signedIn } from "../helpers/console";
import { organization, type TestOrganization } from "../helpers/factories";

// The console's settings through HTTP, as a browser uses them: an owner's every change shows in the API
// (the same services), a triager's and a viewer's are refused 403 with nothing written, another
// organization's ids are 404, and what a person typed comes back as text.

const PROBE = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
const escapedProbe = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";
const VULN_CREATED = "0b1e7f1a-5c52-5d7e-9a01-000000000001";

async function ownerOf(org: TestOrganization, name = "Olga Owner") {
  const owner = await member(org, { role: "owner", name });
  const browser = await signedIn(owner.email);
  return { ...owner, browser, csrf: await browser.formToken() };
}

/** The rows a table holds for an organization: what "nothing written" is measured by. */
async function rows(table: string, org: TestOrganization): Promise<number> {
  const r = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE organization_id = ?`).bind(org.id).first<{ n: number }>();
  return r!.n;
}

function expectNoProbe(text: string) {
  expect(text).not.toContain("<script>alert");
  expect(text).not.toContain("<img src=x");
}

describe("the console's settings", () => {
  it("lists every settings page with a line saying what it is, for any member", async () => {
    const org = await organization();
    const viewer = await member(org, { role: "viewer" });
    const browser = await signedIn(viewer.email);
    const res = await browser.get("/console/settings");
    expect(res.status).toBe(200);
    for (const href of [
      "/console/settings/policy",
      "/console/settings/briefs",
      "/console/settings/contacts",
      "/console/settings/webhooks",
      "/console/settings/members",
      "/console/settings/api-keys",
      "/console/settings/canned-responses",
      "/console/settings/audit",
      "/console/account",
    ])
      expect(res.text).toContain(`href="${href}"`);
    expect(res.text).toContain("only owners change them");
    // A viewer reads every page, with no form on it.
    for (const path of ["contacts", "webhooks", "members", "api-keys", "audit"]) {
      const page = await browser.get(`/console/settings/${path}`);
      expect(page.status, path).toBe(200);
      if (path !== "audit") expect(page.text, path).not.toMatch(/<form method="post" action="\/console\/settings/);
    }
    expect((await new Browser().get("/console/settings/contacts")).headers.get("Location")).toBe("/console/sign-in");
  });

  it("adds and removes a contact as the contacts API does, a bad form coming back with its problems and nothing stored", async () => {
    const org = await organization();
    const { browser, csrf } = await ownerOf(org);
    const bad = await browser.post("/console/settings/contacts", {
      form: { csrf, name: PROBE, email: "not an address", role: "responder" },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('role="alert"');
    expect(bad.text).toContain("E-mail address must be a valid e-mail address.");
    expect(bad.text).toContain(`value="${escapedProbe}"`);
    expect(await rows("contacts", org)).toBe(0);

    const added = await browser.post("/console/settings/contacts", {
      form: { csrf, name: PROBE, email: "Sec@Acme.example", role: "escalation" },
    });
    expect(added.status).toBe(303);
    const listed = (await get("/v1/contacts", org.key)).body.data;
    expect(listed.map((c: any) => c.attributes)).toMatchObject([
      { name: PROBE, email: "sec@acme.example", role: "escalation", confirmed_at: null },
    ]);
    const page = await browser.get("/console/settings/contacts?done=added");
    expect(page.text).toContain("Not confirmed yet");
    expect(page.text).toContain(escapedProbe);
    expectNoProbe(page.text);

    const removed = await browser.post(`/console/settings/contacts/${listed[0].id}/delete`, { form: { csrf } });
    expect(removed.status).toBe(303);
    expect((await get("/v1/contacts", org.key)).body.data).toEqual([]);
  });

  it("adds a webhook showing its secret once, turns it off, shows its deliveries in words and redelivers one, and deletes it", async () => {
    const org = await organization();
    const { browser, csrf } = await ownerOf(org);
    const url = `https://hooks.example.com/in?x="><script>alert(1)</script>`;
    const bad = await browser.post("/console/settings/webhooks", {
      form: { csrf, name: "Tickets", url: "http://127.0.0.2/hook", trigger_event_types: VULN_CREATED },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("URL must use https.");
    expect(await rows("webhooks", org)).toBe(0);

    const made = await browser.post("/console/settings/webhooks", { form: { csrf, name: PROBE, url, trigger_event_types: VULN_CREATED } });
    expect(made.status).toBe(201);
    const secret = /whsec_[A-Za-z0-9+/]{43}=/.exec(made.text)?.[0];
    expect(secret).toBeDefined();
    expect(made.headers.get("Cache-Control")).toContain("no-store");
    expectNoProbe(made.text);
    const [hook] = (await get("/v1/webhooks", org.key)).body.data;
    expect(hook.attributes.name).toBe(PROBE);
    expect(hook.relationships.trigger_event_types.data).toEqual([{ type: "trigger_event_type", id: VULN_CREATED }]);
    const list = await browser.get("/console/settings/webhooks");
    expect(list.text).not.toContain(secret);
    expectNoProbe(list.text);

    expect((await browser.post(`/console/settings/webhooks/${hook.id}/disable`, { form: { csrf } })).status).toBe(303);
    expect((await get(`/v1/webhooks/${hook.id}`, org.key)).body.data.attributes.enabled).toBe(false);
    expect((await browser.get("/console/settings/webhooks")).text).toContain("turned off by an owner");

    expect((await post(`/v1/webhooks/${hook.id}/ping`, org.key, undefined)).status).toBe(202);
    const log = await browser.get(`/console/settings/webhooks/${hook.id}`);
    expect(log.status).toBe(200);
    expect(log.text).toContain("Webhook::Ping");
    expect(log.text).toMatch(/Pending|Delivered|Failed/);
    expect(log.text).toMatch(/\d of 8/);
    const delivery = /deliveries\/([0-9a-f-]{36})\/redeliver/.exec(log.text)![1];
    const again = await browser.post(`/console/settings/webhooks/${hook.id}/deliveries/${delivery}/redeliver`, { form: { csrf } });
    expect(again.status).toBe(303);
    const deliveries = (await get(`/v1/webhooks/${hook.id}/deliveries`, org.key)).body.data;
    expect(deliveries.map((d: any) => d.attributes.redelivery).sort()).toEqual([false, true]);

    expect((await browser.post(`/console/settings/webhooks/${hook.id}/delete`, { form: { csrf } })).status).toBe(303);
    expect((await get(`/v1/webhooks/${hook.id}`, org.key)).status).toBe(404);
  });

  it("invites a member, changes their role, sends the invitation again, ends their sessions and removes them; the last owner's 409 on the page", async () => {
    const org = await organization();
    const { browser, csrf, id: ownerId } = await ownerOf(org);
    const invited = await browser.post("/console/settings/members", {
      form: { csrf, email: "new@acme.example", name: PROBE, role: "viewer" },
    });
    expect(invited.status).toBe(303);
    const [made] = (await get("/v1/members?q[email_eq]=new@acme.example", org.key)).body.data;
    expect(made.attributes).toMatchObject({ name: PROBE, role: "viewer", joined_at: null });
    const page = await browser.get("/console/settings/members");
    expect(page.text).toContain("Invited, not joined yet");
    expect(page.text).toContain(escapedProbe);
    expectNoProbe(page.text);

    expect((await browser.post(`/console/settings/members/${made.id}/role`, { form: { csrf, role: "triager" } })).status).toBe(303);
    expect((await get(`/v1/members/${made.id}`, org.key)).body.data.attributes.role).toBe("triager");
    expect((await browser.post(`/console/settings/members/${made.id}/invitation`, { form: { csrf } })).status).toBe(303);
    const audited = await env.DB.prepare("SELECT action FROM audit_events WHERE target_id = ? ORDER BY id").bind(made.id).all();
    expect(audited.results.map((r) => r.action)).toEqual(["member.create", "member.update", "member.invite"]);

    // Another member's sessions end: their browser is signed out.
    const other = await member(org, { role: "triager" });
    const theirs = await signedIn(other.email);
    expect((await browser.post(`/console/settings/members/${other.id}/sessions`, { form: { csrf } })).status).toBe(303);
    expect((await theirs.get("/console")).headers.get("Location")).toBe("/console/sign-in");

    // The only owner cannot stop being one: the service's 409, said on the page, nothing changed.
    const last = await browser.post(`/console/settings/members/${ownerId}/role`, { form: { csrf, role: "viewer" } });
    expect(last.status).toBe(409);
    expect(last.text).toContain("last owner");
    expect(last.text).toContain('role="alert"');
    expect((await get(`/v1/members/${ownerId}`, org.key)).body.data.attributes.role).toBe("owner");
    expect((await browser.post(`/console/settings/members/${ownerId}/delete`, { form: { csrf } })).status).toBe(409);

    expect((await browser.post(`/console/settings/members/${made.id}/delete`, { form: { csrf } })).status).toBe(303);
    expect((await get(`/v1/members/${made.id}`, org.key)).status).toBe(404);
  });

  it("makes an API key shown once on its answer (never cached, never again) that works in the API, and revokes it", async () => {
    const org = await organization();
    const { browser, csrf } = await ownerOf(org);
    const none = await browser.post("/console/settings/api-keys", { form: { csrf, name: "Sync" } });
    expect(none.status).toBe(422);
    expect(none.text).toContain("Scopes must name at least one scope.");
    const past = await browser.post("/console/settings/api-keys", {
      form: { csrf, name: "Sync", scopes: "read", expires_at: "2001-01-01T00:00" },
    });
    expect(past.status).toBe(422);
    expect(past.text).toContain("Expires must be in the future.");
    const keysBefore = await rows("api_keys", org);

    const form = new URLSearchParams({ csrf, name: PROBE, expires_at: "2099-01-01T12:00" });
    form.append("scopes", "read");
    form.append("scopes", "settings");
    // Two ticked boxes are two fields of one name, as a browser sends them (the helper copies the body as given).
    const made = await browser.post("/console/settings/api-keys", { form: form as unknown as Record<string, string> });
    expect(made.status).toBe(201);
    // The console's pages are no-store: the key's page is kept by no cache, the browser's included.
    expect(made.headers.get("Cache-Control")).toContain("no-store");
    const key = /vdp_[A-Za-z0-9]{40,}/.exec(made.text)?.[0];
    expect(key).toBeDefined();
    expectNoProbe(made.text);
    expect(await rows("api_keys", org)).toBe(keysBefore + 1);
    const [record] = (await get("/v1/api_keys?sort=-created_at", org.key)).body.data;
    expect(record.attributes).toMatchObject({ name: PROBE, scopes: ["read", "settings"], expires_at: "2099-01-01T12:00:00.000Z" });
    expect((await get("/v1/contacts", key!)).status).toBe(200);

    const list = await browser.get("/console/settings/api-keys");
    expect(list.text).not.toContain(key);
    expect(list.text).toContain(record.attributes.key_prefix);
    expectNoProbe(list.text);

    expect((await browser.post(`/console/settings/api-keys/${record.id}/revoke`, { form: { csrf } })).status).toBe(303);
    expect((await get("/v1/contacts", key!)).status).toBe(401);
  });
});
