import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, get } from "../helpers/api";
import { type Browser, member, signedIn } from "../helpers/console";
import { organization, type TestOrganization } from "../helpers/factories";
import { submitReport } from "../helpers/reporter";

// The console's advisories through HTTP, as a browser sends its forms: a triager drafts from a report,
// edits the products' rows, previews, publishes, revises and withdraws, and the API shows the same; a
// viewer reads and is refused every change (nothing written); another organization's advisory is not
// there; whatever a member typed comes back escaped.

const unescapeHtml = (s: string) =>
  s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");
/** The text of the page's <pre> (a preview's document). */
const preOf = (page: string) => unescapeHtml(/<pre[^>]*>([\s\S]*?)<\/pre>/.exec(page)?.[1] ?? "");
/** The form's fields as the page shows them (text inputs and textareas), to send back as a browser would. */
function fieldsOf(page: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="(?:text|hidden)" id="([^"]+)" name="[^"]+"[^>]*? value="([^"]*)"/g))
    out[m[1]!] = unescapeHtml(m[2]!);
  for (const m of page.matchAll(/<textarea id="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) out[m[1]!] = unescapeHtml(m[2]!);
  out.csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  return out;
}

async function triagerOf(org: TestOrganization, role: "triager" | "viewer" | "owner" = "triager"): Promise<Browser> {
  const m = await member(org, { role });
  return signedIn(m.email);
}

const PRODUCT = {
  vendor_0: "Acme",
  product_0: "Widget",
  purl_0: "pkg:npm/%40acme/widget",
  versions_0: "affected from 1.0.0 to 1.4.2\nfixed 1.4.2",
};

async function draftThroughPages(browser: Browser, shortcode: string, extra: Record<string, string> = {}): Promise<string> {
  const csrf = await browser.formToken();
  const made = await browser.post("/console/advisories", {
    form: { csrf, title: "Open redirect in login", vulns: shortcode, summary: "The login page redirects anywhere.", ...PRODUCT, ...extra },
  });
  expect(made.status, made.text.slice(0, 2000)).toBe(303);
  return made.headers.get("Location")!.split("/").at(-1)!;
}

describe("the console's advisories", () => {
  it("take a triager from a report's draft through rows, previews, publication, a revision and withdrawal, as the API shows", async () => {
    const org = await organization({ name: "Acme Security" });
    const report = await submitReport(org, { title: "Open redirect on /login" });
    const browser = await triagerOf(org);

    // A draft from the report: its title and shortcode filled in, one empty product row.
    const fresh = await browser.get(`/console/advisories/new?vuln=${report.shortcode.toLowerCase()}`);
    expect(fresh.status).toBe(200);
    expect(fieldsOf(fresh.text)).toMatchObject({ title: "Open redirect on /login", vulns: report.shortcode, vendor_0: "" });

    // Rows without a script: "Add a product" comes back with one more empty row, nothing stored.
    const csrf = fieldsOf(fresh.text).csrf!;
    const added = await browser.post("/console/advisories", { form: { ...fieldsOf(fresh.text), ...PRODUCT, add_product: "1" } });
    expect(added.status).toBe(200);
    expect(fieldsOf(added.text)).toMatchObject({ vendor_0: "Acme", vendor_1: "", versions_0: PRODUCT.versions_0 });
    expect((await get("/v1/advisories", org.key)).body.data).toEqual([]);

    // Bad input: 422 with each problem beside its field and in the summary, what was typed kept.
    const bad = await browser.post("/console/advisories", {
      form: { ...fieldsOf(added.text), versions_1: "affected before 2.0", vendor_1: "Acme", product_1: "Gadget", cve_id: "CVE-12" },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('role="alert"');
    expect(bad.text).toMatch(/id="versions_1-error">Line 1: must be one version/);
    expect(bad.text).toMatch(/id="cve_id-error">must be a CVE id/);
    expect(fieldsOf(bad.text)).toMatchObject({ cve_id: "CVE-12", product_1: "Gadget" });
    expect((await get("/v1/advisories", org.key)).body.data).toEqual([]);

    // Saved, then a row removed and another edited.
    const created = await browser.post("/console/advisories", {
      form: { ...fieldsOf(bad.text), versions_1: "affected 2.0.1", cve_id: "CVE-2026-12345", credits: "coordinator: CERT Team" },
    });
    expect(created.status, created.text.slice(0, 3000)).toBe(303);
    const id = created.headers.get("Location")!.split("/").at(-1)!;
    const editor = await browser.get(`/console/advisories/${id}`);
    expect(editor.text).toContain('<span class="state">draft</span>');
    const removed = await browser.post(`/console/advisories/${id}`, { form: { ...fieldsOf(editor.text), remove_product: "0" } });
    expect(fieldsOf(removed.text)).toMatchObject({ vendor_0: "Acme", product_0: "Gadget" });
    expect(fieldsOf(removed.text).vendor_1).toBeUndefined();
    // Publishing needs a summary: the service says so, beside the link to the field.
    const early = await browser.post(`/console/advisories/${id}/publish`, { form: { csrf } });
    expect(early.status).toBe(422);
    expect(early.text).toContain(`<a href="/console/advisories/${id}#summary">Summary</a>: A published advisory needs a summary.`);
    const saved = await browser.post(`/console/advisories/${id}`, {
      form: { ...fieldsOf(removed.text), versions_0: "affected from 2.0 to 2.0.3\nfixed 2.0.3", summary: "Redirects anywhere.", csrf },
    });
    expect(saved.status, saved.text.slice(0, 3000)).toBe(303);
    let shown = (await get(`/v1/advisories/${id}`, org.key)).body.data;
    expect(shown.attributes).toMatchObject({
      state: "draft",
      title: "Open redirect on /login",
      cve_id: "CVE-2026-12345",
      credits: [{ name: "CERT Team", type: "coordinator" }],
      affected: [
        {
          vendor: "Acme",
          product: "Gadget",
          purl: null,
          versions: [
            { range: { introduced: "2.0", fixed: "2.0.3" }, status: "affected" },
            { version: "2.0.3", status: "fixed" },
          ],
        },
      ],
    });
    expect(shown.relationships.vulns.data).toEqual([{ type: "vuln", id: report.id }]);

    // A draft's previews: what publishing it would serve.
    for (const format of ["csaf", "osv", "cve"]) {
      const preview = await browser.get(`/console/advisories/${id}/preview/${format}`);
      expect(preview.status).toBe(200);
      expect(JSON.stringify(JSON.parse(preOf(preview.text)))).toContain("Open redirect on /login");
    }

    // Publish: a confirmation, then the POST.
    expect((await browser.get(`/console/advisories/${id}/publish`)).text).toContain("cannot be undone");
    const publishing = await browser.post(`/console/advisories/${id}/publish`, { form: { csrf } });
    expect(publishing.status, publishing.text.slice(0, 3000)).toBe(303);
    shown = (await get(`/v1/advisories/${id}`, org.key)).body.data;
    expect(shown.attributes).toMatchObject({ state: "published", revision: 1 });
    // A published advisory's preview is what the public read serves, byte for byte as JSON.
    for (const format of ["csaf", "osv", "cve"]) {
      const preview = preOf((await browser.get(`/console/advisories/${id}/preview/${format}`)).text);
      const served = await api("GET", `/v1/p/advisories/${id}/${format}`);
      expect(served.status).toBe(200);
      expect(JSON.parse(preview)).toEqual(JSON.parse(served.text));
    }

    // Revise: the note is required.
    const published = await browser.get(`/console/advisories/${id}`);
    expect(published.text).toContain('<span class="state">published</span>');
    const noNote = await browser.post(`/console/advisories/${id}`, { form: { ...fieldsOf(published.text), summary: "Now fixed." } });
    expect(noNote.status).toBe(422);
    expect(noNote.text).toContain('id="revision_note-error"');
    expect((await get(`/v1/advisories/${id}`, org.key)).body.data.attributes.revision).toBe(1);
    const revised = await browser.post(`/console/advisories/${id}`, {
      form: { ...fieldsOf(published.text), summary: "Now fixed.", revision_note: "Fixed in 2.0.3" },
    });
    expect(revised.status, revised.text.slice(0, 3000)).toBe(303);
    const revisions = (await get(`/v1/advisories/${id}/revisions`, org.key)).body.data;
    expect(revisions.map((r: any) => [r.attributes.number, r.attributes.note])).toEqual([
      [1, "Initial publication"],
      [2, "Fixed in 2.0.3"],
    ]);

    // Withdraw: its note is required too, and then it is final.
    expect((await browser.get(`/console/advisories/${id}/withdraw`)).text).toContain("cannot be undone");
    const bare = await browser.post(`/console/advisories/${id}/withdraw`, { form: { csrf, revision_note: "" } });
    expect(bare.status).toBe(422);
    expect((await get(`/v1/advisories/${id}`, org.key)).body.data.attributes.state).toBe("published");
    expect(
      (await browser.post(`/console/advisories/${id}/withdraw`, { form: { csrf, revision_note: "Not a vulnerability" } })).status,
    ).toBe(303);
    shown = (await get(`/v1/advisories/${id}`, org.key)).body.data;
    expect(shown.attributes).toMatchObject({ state: "withdrawn", revision: 3 });
    const final = await browser.get(`/console/advisories/${id}`);
    expect(final.text).toContain('<span class="state">withdrawn</span>');
    expect(final.text).not.toContain('class="advisory"');

    // The list says each state in words, with identifiers, reports and when.
    const list = await browser.get("/console/advisories");
    expect(list.text).toContain("withdrawn");
    expect(list.text).toContain("CVE-2026-12345");
    expect(list.text).toContain(`/console/reports/${report.shortcode}`);
  });

  it("lets a viewer read and refuses every change of theirs 403, with nothing written", async () => {
    const org = await organization();
    const report = await submitReport(org);
    const triager = await triagerOf(org);
    const id = await draftThroughPages(triager, report.shortcode);
    const viewer = await triagerOf(org, "viewer");
    const before = (await get(`/v1/advisories/${id}`, org.key)).body.data.attributes;
    const list = await viewer.get("/console/advisories");
    expect(list.status).toBe(200);
    expect(list.text).toContain("Open redirect in login");
    expect(list.text).not.toContain("/console/advisories/new");
    const page = await viewer.get(`/console/advisories/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('class="advisory"');
    expect(page.text).not.toContain(`/console/advisories/${id}/publish`);
    expect((await viewer.get(`/console/advisories/${id}/preview/osv`)).status).toBe(200);
    const csrf = await viewer.formToken();
    const form = { csrf, title: "Changed", vulns: report.shortcode, ...PRODUCT };
    for (const [path, body] of [
      ["/console/advisories", form],
      [`/console/advisories/${id}`, form],
      [`/console/advisories/${id}`, { ...form, add_product: "1" }],
      [`/console/advisories/${id}/publish`, { csrf }],
      [`/console/advisories/${id}/withdraw`, { csrf, revision_note: "No" }],
    ] as const)
      expect([path, (await viewer.post(path, { form: body })).status]).toEqual([path, 403]);
    expect((await get(`/v1/advisories/${id}`, org.key)).body.data.attributes).toEqual(before);
    expect((await get("/v1/advisories", org.key)).body.data).toHaveLength(1);
  });

  it("keeps a textarea's line breaks as the API keeps text (LF), whatever the browser sent (CRLF)", async () => {
    const org = await organization();
    const report = await submitReport(org);
    const browser = await triagerOf(org);
    const id = await draftThroughPages(browser, report.shortcode, {
      description: "First line.\r\nSecond line.",
      remediation: "Upgrade.\r\nThen restart.",
    });
    const saved = (await get(`/v1/advisories/${id}`, org.key)).body.data.attributes;
    expect([saved.description, saved.remediation]).toEqual(["First line.\nSecond line.", "Upgrade.\nThen restart."]);
  });

  it("does not find another organization's advisory", async () => {
    const org = await organization();
    const other = await organization();
    const report = await submitReport(other);
    const theirs = await draftThroughPages(await triagerOf(other), report.shortcode);
    const browser = await triagerOf(org);
    const csrf = await browser.formToken();
    for (const path of [
      `/console/advisories/${theirs}`,
      `/console/advisories/${theirs}/preview/csaf`,
      `/console/advisories/${theirs}/publish`,
    ])
      expect([path, (await browser.get(path)).status]).toEqual([path, 404]);
    expect((await browser.post(`/console/advisories/${theirs}/publish`, { form: { csrf } })).status).toBe(404);
    expect(
      (await browser.post(`/console/advisories/${theirs}`, { form: { csrf, title: "Mine", vulns: report.shortcode, ...PRODUCT } })).status,
    ).toBe(404);
    // Nor names its report in a draft of its own.
    const refused = await browser.post("/console/advisories", { form: { csrf, title: "Mine", vulns: report.shortcode, ...PRODUCT } });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="vulns-error"');
    expect((await get(`/v1/advisories/${theirs}`, other.key)).body.data.attributes.title).toBe("Open redirect in login");
    expect((await browser.get("/console/advisories")).text).not.toContain(theirs);
  });

  it("shows whatever a member typed escaped, on the list, the editor and the previews", async () => {
    const org = await organization();
    const report = await submitReport(org);
    const browser = await triagerOf(org);
    const probe = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const id = await draftThroughPages(browser, report.shortcode, {
      title: `T${probe}`,
      summary: `S${probe}`,
      description: `D${probe}`,
      remediation: `R${probe}`,
      vendor_0: `V${probe}`,
      product_0: `P${probe}`,
      purl_0: "",
      versions_0: "affected 1.0",
      credits: `finder: C${probe}`,
      references: "https://example.com/a?x=%22%3E%3Cscript%3E",
    });
    const pages = [
      await browser.get("/console/advisories"),
      await browser.get(`/console/advisories/${id}`),
      await browser.get(`/console/advisories/${id}/publish`),
      ...(await Promise.all(["csaf", "osv", "cve"].map((f) => browser.get(`/console/advisories/${id}/preview/${f}`)))),
    ];
    for (const p of pages) {
      expect(p.status).toBe(200);
      expect(p.text).not.toContain("<script>alert");
      expect(p.text).not.toContain("<img src=x");
    }
    expect(pages[1]!.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(preOf(pages[3]!.text)).toContain(`D${probe}`.replaceAll('"', '\\"'));
    const row = await env.DB.prepare("SELECT title FROM advisories WHERE id = ?").bind(id).first<{ title: string }>();
    expect(row!.title).toBe(`T${probe}`);
    // The API reads what was typed, exactly.
    expect((await get(`/v1/advisories/${id}`, org.key)).body.data.attributes.summary).toBe(`S${probe}`);
  });
});
