import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { get, patch } from "../helpers/api";
import { member, signedIn } from "../helpers/console";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

// The console's policy and briefs settings: read by every member, changed by owners through the
// services the API changes them with; a viewer's POST is the service's 403, with nothing written.

const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>"'`;

async function owner(org: TestOrganization, role: "owner" | "viewer" | "triager" = "owner") {
  const m = await member(org, { role });
  const browser = await signedIn(m.email);
  return { browser, csrf: await browser.formToken() };
}

const POLICY_FORM = {
  name: "Acme VDP",
  short_description: "How to report",
  point_of_contact: "security@acme.example",
  contact_url: "https://acme.example/security",
  safe_harbor: "full",
  cvd_timeline: "90",
  public_disclosure: "yes",
  offers_bounty: "no",
  offers_swag: "",
  hall_of_fame: "yes",
  body: "# Rules\r\n\r\nBe kind.\r\n",
};

const rowCount = async (table: string, where: string, id: string) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where} = ?`).bind(id).first<{ n: number }>())!.n;

describe("/console/settings/policy", () => {
  it("lets an owner change the policy's fields and body, through the API's service: a new version, the page evicted", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Old", published_at: PUBLISHED });
    const { browser, csrf } = await owner(org);
    const shown = await browser.get("/console/settings/policy");
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`action="/console/settings/policy/${p.id}"`);
    expect(shown.text).toContain('value="Old"');
    // Cached before the change.
    await browser.get(`/p/${p.attributes.shortcode}`);
    const saved = await browser.post(`/console/settings/policy/${p.id}`, { form: { ...POLICY_FORM, csrf } });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.get("Location")).toBe(`/console/settings/policy?policy=${p.id}&saved=1`);
    const after = (await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes;
    expect(after).toMatchObject({
      name: "Acme VDP",
      cvd_timeline: 90,
      safe_harbor: "full",
      public_disclosure: true,
      offers_bounty: false,
      offers_swag: null,
      hall_of_fame: true,
      // The textarea's CRLF is the API's LF.
      body: "# Rules\n\nBe kind.\n",
    });
    const page = await browser.get(`/console/settings/policy?policy=${p.id}&saved=1`);
    expect(page.text).toContain('role="status">Saved.');
    expect(page.text).toContain("<h3>Rules</h3>");
    expect(page.text).toContain('<td data-label="Version">2</td>');
    const publicPage = await browser.get(`/p/${p.attributes.shortcode}`);
    expect(publicPage.text).toContain("<h3>Rules</h3>");
  });

  it("refuses a viewer's POST in the service, 403 with nothing written, and shows them no form", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Kept" });
    const { browser, csrf } = await owner(org, "viewer");
    const shown = await browser.get("/console/settings/policy");
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('<form method="post" action="/console/settings/policy');
    expect(shown.text).toContain("<dd>Kept</dd>");
    const refused = await browser.post(`/console/settings/policy/${p.id}`, { form: { ...POLICY_FORM, csrf } });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("settings scope");
    expect((await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes.name).toBe("Kept");
    expect(await rowCount("policy_versions", "policy_id", p.id)).toBe(1);
  });

  it("sends a bad form back with its problems beside the fields and what was typed, 422, nothing stored", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Kept" });
    const { browser, csrf } = await owner(org);
    const bad = await browser.post(`/console/settings/policy/${p.id}`, {
      form: { ...POLICY_FORM, contact_url: "javascript:alert(1)", cvd_timeline: "999", name: "Typed", csrf },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('role="alert"');
    expect(bad.text).toMatch(/<span class="message" id="contact_url-error">Contact URL must be an http or https URL/);
    expect(bad.text).toContain('id="cvd_timeline-error">Days to fix before disclosure');
    expect(bad.text).toContain('value="Typed"');
    expect((await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes.name).toBe("Kept");
    expect(await rowCount("policy_versions", "policy_id", p.id)).toBe(1);
  });

  it("shows the difference between any two versions, each change in words", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP", cvd_timeline: 90, body: "Line one\nLine two" });
    const edit = (attributes: Record<string, unknown>) =>
      patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", id: p.id, attributes } });
    await edit({ cvd_timeline: 45 });
    await edit({ body: "Line one\nLine 2\nLine three" });
    const { browser } = await owner(org, "viewer");
    const page = await browser.get(`/console/settings/policy?policy=${p.id}&from=1&to=3`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("From version 1 to version 3");
    expect(page.text).toContain(
      '<del class="line"><span class="visually-hidden">Removed: </span>− Days to fix before disclosure: 90</del>',
    );
    expect(page.text).toContain('<ins class="line"><span class="visually-hidden">Added: </span>+ Days to fix before disclosure: 45</ins>');
    expect(page.text).toContain('<span class="line">  Line one</span>');
    expect(page.text).toContain("− Line two</del>");
    expect(page.text).toContain("+ Line three</ins>");
    expect(page.text).toContain("3 lines added, 2 lines removed.");
    // The other way round, and a version that does not exist.
    expect((await browser.get(`/console/settings/policy?policy=${p.id}&from=3&to=1`)).text).toContain("+ Line two</ins>");
    expect((await browser.get(`/console/settings/policy?policy=${p.id}&from=1&to=9`)).status).toBe(404);
    // Another organization's policy is not there.
    const other = await organization();
    const theirs = await policy(other, { name: "Theirs" });
    const foreign = await browser.get(`/console/settings/policy?policy=${theirs.id}&from=1&to=1`);
    expect(foreign.text).not.toContain("Theirs");
  });

  it("shows every field's text escaped, and the body only through the renderer", async () => {
    const org = await organization({ name: XSS });
    const p = await policy(org, {
      name: XSS,
      short_description: "x<b>y</b>",
      point_of_contact: XSS.replaceAll(/[<>]/g, "").slice(0, 50),
      body: `${XSS}\n\n[j](javascript:alert(1))`,
    });
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", id: p.id, attributes: { body: `${XSS} changed` } } });
    await brief(org, { name: XSS, short_description: XSS, published_at: PUBLISHED }, p.id);
    for (const role of ["owner", "viewer"] as const) {
      const { browser } = await owner(org, role);
      for (const path of [`/console/settings/policy?policy=${p.id}&from=1&to=2`, "/console/settings/briefs"]) {
        const res = await browser.get(path);
        expect(res.status).toBe(200);
        expect(res.text).not.toMatch(/<script|<img|<b>y|href="javascript/i);
        // Attribute values are escaped text: outside them, no tag has a handler.
        expect(res.text.replace(/="[^"]*"/g, '=""')).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
      }
    }
  });
});

describe("/console/settings/briefs", () => {
  it("lists the briefs with their state in words, and lets an owner change one through the brief service", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP" });
    const live = await brief(org, { name: "Web", published_at: PUBLISHED }, p.id);
    const draft = await brief(org, { name: "Mobile" }, p.id);
    const { browser, csrf } = await owner(org);
    const list = await browser.get("/console/settings/briefs");
    expect(list.text).toContain("2 briefs");
    expect(list.text).toMatch(/Web<\/a>[\s\S]*?<span class="state met">Published<\/span>/);
    expect(list.text).toMatch(/Mobile<\/a>[\s\S]*?<span class="state">Draft<\/span>/);
    const form = await browser.get(`/console/settings/briefs?brief=${draft.id}`);
    expect(form.text).toContain(`action="/console/settings/briefs/${draft.id}"`);
    const saved = await browser.post(`/console/settings/briefs/${draft.id}`, {
      form: { name: "Mobile apps", short_description: "iOS and Android", state: "published", csrf },
    });
    expect(saved.status, saved.text).toBe(303);
    const after = (await get(`/v1/briefs/${draft.id}`, org.key)).body.data.attributes;
    expect(after).toMatchObject({ name: "Mobile apps", short_description: "iOS and Android" });
    expect(after.published_at).not.toBeNull();
    // Published stays as it was; draft takes it down.
    const before = (await get(`/v1/briefs/${live.id}`, org.key)).body.data.attributes.published_at;
    await browser.post(`/console/settings/briefs/${live.id}`, { form: { name: "Web", short_description: "", state: "published", csrf } });
    expect((await get(`/v1/briefs/${live.id}`, org.key)).body.data.attributes.published_at).toBe(before);
    await browser.post(`/console/settings/briefs/${live.id}`, { form: { name: "Web", short_description: "", state: "draft", csrf } });
    expect((await get(`/v1/briefs/${live.id}`, org.key)).body.data.attributes.published_at).toBeNull();
    const bad = await browser.post(`/console/settings/briefs/${live.id}`, {
      form: { name: " ", short_description: "", state: "draft", csrf },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('id="name-error">Name must not be empty.');
  });

  it("refuses a viewer's change with 403 and writes nothing", async () => {
    const org = await organization();
    const b = await brief(org, { name: "Web" });
    const { browser, csrf } = await owner(org, "viewer");
    expect((await browser.get(`/console/settings/briefs?brief=${b.id}`)).text).not.toContain(`action="/console/settings/briefs/${b.id}"`);
    const refused = await browser.post(`/console/settings/briefs/${b.id}`, {
      form: { name: "Hacked", short_description: "", state: "draft", csrf },
    });
    expect(refused.status).toBe(403);
    expect((await get(`/v1/briefs/${b.id}`, org.key)).body.data.attributes.name).toBe("Web");
    expect(await rowCount("audit_events", "target_id", b.id)).toBe(1);
  });
});
