import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { organization, type TestOrganization } from "../helpers/factories";
import { type Browser, member, signedIn } from "../helpers/console";
import { LIMITS } from "../../src/lib/limits";

// /console/settings/canned-responses: owners add, edit and delete; everyone else reads; each form
// goes through the API's schema and service, with the member as the caller.

const PATH = "/console/settings/canned-responses";

let org: TestOrganization;
let other: TestOrganization;
beforeAll(async () => {
  org = await organization();
  other = await organization();
}, 30_000);

const stored = async (organizationId: string) =>
  (
    await env.DB.prepare("SELECT id, name, body, visibility FROM canned_responses WHERE organization_id = ? ORDER BY created_at")
      .bind(organizationId)
      .all<{ id: string; name: string; body: string; visibility: string }>()
  ).results;

async function as(o: TestOrganization, role: "owner" | "triager" | "viewer"): Promise<{ browser: Browser; csrf: string }> {
  const browser = await signedIn((await member(o, { role })).email);
  return { browser, csrf: await browser.formToken() };
}

describe("the canned responses page", () => {
  it("lets an owner add, edit and delete one, each through the service (audited)", async () => {
    const { browser, csrf } = await as(org, "owner");
    const list = await browser.get(PATH);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`action="${PATH}"`);
    const added = await browser.post(PATH, {
      form: { csrf, name: "Acknowledged", body: "Hi {{reporter_name}},\r\nwe got {{shortcode}}.", visibility: "reporter" },
    });
    expect([added.status, added.headers.get("Location")]).toEqual([303, PATH]);
    const [row] = await stored(org.id);
    expect(row).toMatchObject({ name: "Acknowledged", body: "Hi {{reporter_name}},\nwe got {{shortcode}}.", visibility: "reporter" });
    expect((await browser.get(PATH)).text).toContain(`href="${PATH}/${row!.id}"`);
    const edit = await browser.get(`${PATH}/${row!.id}`);
    expect([edit.status, edit.text.includes('value="Acknowledged"')]).toEqual([200, true]);
    const saved = await browser.post(`${PATH}/${row!.id}`, { form: { csrf, name: "Received", body: "Thanks.", visibility: "internal" } });
    expect(saved.status).toBe(303);
    expect((await stored(org.id))[0]).toMatchObject({ name: "Received", body: "Thanks.", visibility: "internal" });
    expect((await browser.post(`${PATH}/${row!.id}/delete`, { form: { csrf } })).status).toBe(303);
    expect(await stored(org.id)).toEqual([]);
    const audit = await env.DB.prepare("SELECT action, actor_type FROM audit_events WHERE target_id = ? ORDER BY at, id")
      .bind(row!.id)
      .all();
    expect(audit.results.map((r) => [r.action, r.actor_type])).toEqual([
      ["canned_response.create", "member"],
      ["canned_response.update", "member"],
      ["canned_response.delete", "member"],
    ]);
  });

  it("re-renders a refused form with each problem beside its field, what was typed kept, 422, nothing stored", async () => {
    const { browser, csrf } = await as(org, "owner");
    const before = await stored(org.id);
    const long = "x".repeat(LIMITS.cannedResponseBodyLength + 1);
    const res = await browser.post(PATH, { form: { csrf, name: "Kept as typed", body: long, visibility: "public" } });
    expect(res.status).toBe(422);
    expect(res.text).toContain('role="alert"');
    expect(res.text).toContain('value="Kept as typed"');
    expect(res.text).toMatch(/id="body-error">must be at most 10000 characters</);
    expect(res.text).toContain('id="visibility-error">choose who can read it<');
    expect(res.text).toMatch(/<textarea id="body"[^>]*aria-invalid="true"/);
    expect(await stored(org.id)).toEqual(before);
    // The name taken is the service's refusal (the unique index), shown at the name.
    expect((await browser.post(PATH, { form: { csrf, name: "Taken", body: "One.", visibility: "reporter" } })).status).toBe(303);
    const taken = await browser.post(PATH, { form: { csrf, name: "Taken", body: "Two.", visibility: "reporter" } });
    expect(taken.status).toBe(422);
    expect(taken.text).toContain('id="name-error">The organization already has a canned response with this name.<');
    expect((await stored(org.id)).filter((r) => r.name === "Taken")).toHaveLength(1);
  });

  it("shows a viewer and a triager the list read-only, and refuses their POSTs 403 with nothing written", async () => {
    const owner = await as(org, "owner");
    expect(
      (await owner.browser.post(PATH, { form: { csrf: owner.csrf, name: "Owners'", body: "Text.", visibility: "reporter" } })).status,
    ).toBe(303);
    const id = (await stored(org.id)).find((r) => r.name === "Owners'")!.id;
    for (const role of ["viewer", "triager"] as const) {
      const { browser, csrf } = await as(org, role);
      const list = await browser.get(PATH);
      expect(list.status).toBe(200);
      expect(list.text).toContain("Owners&#39;");
      expect(list.text).not.toContain(`<form method="post" action="${PATH}"`);
      const one = await browser.get(`${PATH}/${id}`);
      expect([one.status, one.text.includes("<textarea"), one.text.includes("/delete")]).toEqual([200, false, false]);
      const before = await stored(org.id);
      for (const [path, form] of [
        [PATH, { csrf, name: `By a ${role}`, body: "Text.", visibility: "reporter" }],
        [PATH, { csrf, name: "", body: "", visibility: "" }],
        [`${PATH}/${id}`, { csrf, name: "Renamed", body: "Text.", visibility: "reporter" }],
        [`${PATH}/${id}/delete`, { csrf }],
      ] as const) {
        const res = await browser.post(path, { form });
        expect([path, res.status]).toEqual([path, 403]);
      }
      expect(await stored(org.id)).toEqual(before);
    }
  });

  it("shows a name and a text holding markup as text", async () => {
    const { browser, csrf } = await as(org, "owner");
    const probe = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    expect((await browser.post(PATH, { form: { csrf, name: `N ${probe}`, body: `B ${probe}`, visibility: "internal" } })).status).toBe(303);
    const id = (await stored(org.id)).find((r) => r.name === `N ${probe}`)!.id;
    for (const path of [PATH, `${PATH}/${id}`]) {
      const res = await browser.get(path);
      expect(res.text).not.toContain("<script>alert");
      expect(res.text).not.toContain("<img src=x");
      expect(res.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    }
  });

  it("is the member's organization's only: another organization's response is not found, and not changed", async () => {
    const theirs = await as(other, "owner");
    expect(
      (await theirs.browser.post(PATH, { form: { csrf: theirs.csrf, name: "Theirs", body: "T.", visibility: "reporter" } })).status,
    ).toBe(303);
    const id = (await stored(other.id))[0]!.id;
    const { browser, csrf } = await as(org, "owner");
    expect((await browser.get(`${PATH}/${id}`)).status).toBe(404);
    expect((await browser.get(PATH)).text).not.toContain("Theirs");
    expect((await browser.post(`${PATH}/${id}`, { form: { csrf, name: "Mine now", body: "M.", visibility: "reporter" } })).status).toBe(
      404,
    );
    expect((await browser.post(`${PATH}/${id}/delete`, { form: { csrf } })).status).toBe(404);
    expect((await stored(other.id)).map((r) => r.name)).toEqual(["Theirs"]);
  });

  it("sends anyone not signed in to sign in, and refuses a POST without the form token", async () => {
    const { Browser } = await import("../helpers/console");
    const stranger = new Browser();
    const res = await stranger.get(PATH);
    expect([res.status, res.headers.get("Location")]).toEqual([303, "/console/sign-in"]);
    const { browser } = await as(org, "owner");
    const before = await stored(org.id);
    expect((await browser.post(PATH, { form: { name: "No token", body: "B.", visibility: "reporter" } })).status).toBe(403);
    expect(await stored(org.id)).toEqual(before);
  });
});
