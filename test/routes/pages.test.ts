import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_FORM_BYTES } from "../../src/routes/pages/form";
import { PAGES_CSS, PAGES_CSS_PATH } from "../../src/templates/styles";
import { GATE_JS_PATH } from "../../src/templates/gate-script";
import { BASE, browse, get, patch, post } from "../helpers/api";
import { eventTypes } from "../helpers/events";
import { brief, directory, listing, operatorKey, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { nextIp } from "../helpers/reporter";

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
// A brief's page runs this origin's gate script, which fetches the challenge and solves it in workers from here.
const BRIEF_CSP = `${CSP}; script-src 'self'; connect-src 'self'; worker-src 'self'`;
function reportForm(fields: Record<string, string> = {}, files: File[] = []) {
  const fd = new FormData();
  const values = {
    title: "SQL injection in search",
    description: "GET /search?q=' OR 1=1-- lists every order.",
    contact_email: "r@example.org",
    domains: "shop.example.com\nAPI.example.com, cdn.example.com",
    ...fields,
  };
  for (const [k, v] of Object.entries(values)) fd.set(k, v);
  if (files.length === 0) fd.append("files", new File([], ""));
  for (const f of files) fd.append("files", f);
  return fd;
}

const send = (shortcode: string, fd: FormData, ip: string) =>
  browse("POST", `/b/${shortcode}`, { body: fd, headers: { "CF-Connecting-IP": ip } });

let org: TestOrganization;
let shortcode: string;
let briefId: string;
beforeAll(async () => {
  org = await organization({ name: "Acme <Security> & Co" });
  const p = await policy(org, {
    published_at: PUBLISHED,
    point_of_contact: "security@acme.example",
    safe_harbor: "full",
    public_disclosure: true,
    cvd_timeline: 90,
    in_scope_assets: [{ kind: "domain", value: "shop.example.com" }],
  });
  const b = await brief(
    org,
    { published_at: PUBLISHED, name: "Acme shop", in_scope_assets: [{ kind: "domain", value: "shop.example.com" }] },
    p.id,
  );
  shortcode = b.attributes.shortcode;
  briefId = b.id;
});

describe("the way in and the way onward", () => {
  const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

  it("answers / to a browser with the start page (directories, the reference, a program finder), and JSON to anything else", async () => {
    const op = await operatorKey();
    const d = await directory(op, { name: "Quokka <programs>", slug: `quokka-${crypto.randomUUID().slice(0, 8)}` });
    const home = await browse("GET", "/", { headers: { Accept: BROWSER } });
    expect([home.status, home.headers.get("Content-Type"), home.headers.get("Vary")]).toEqual([200, "text/html; charset=utf-8", "Accept"]);
    expect(home.headers.get("Content-Security-Policy")).toBe(CSP);
    expect(home.text).toContain(`href="/d/${d.attributes.slug}"`);
    expect(home.text).toContain("Quokka &lt;programs&gt;");
    for (const link of ['href="/docs"', 'href="/v1/openapi.json"', 'action="/b"', 'name="code"']) expect(home.text).toContain(link);
    for (const accept of [undefined, "*/*", "application/json", "application/vnd.api+json", "text/html;q=0.5, application/json"]) {
      const res = await browse("GET", "/", { headers: accept ? { Accept: accept } : {} });
      expect([accept, res.headers.get("Content-Type"), res.headers.get("Vary")]).toEqual([accept, "application/vnd.api+json", "Accept"]);
      expect(JSON.parse(res.text).meta.docs).toBe("/docs");
    }
  });

  it("finds a program by the code as typed, and a 404 page offers the finder and the start page", async () => {
    const found = await browse("GET", `/b?code=${encodeURIComponent(` ${shortcode.toLowerCase()} `)}`);
    expect([found.status, found.headers.get("Location")]).toEqual([303, `/b/${shortcode}`]);
    for (const path of ["/b?code=nope", "/b/ZZZZ-ZZZZ", "/r/nothing", "/d/no-such-directory"]) {
      const missing = await browse("GET", path);
      expect([path, missing.status]).toEqual([path, 404]);
      expect(missing.text).toContain('href="/"');
      expect(missing.text).toContain('action="/b"');
    }
  });
});

describe("GET /b/{shortcode}", () => {
  it("shows the terms before the form, under the pages' own policy, and is cached like the JSON read", async () => {
    const miss = await browse("GET", `/b/${shortcode}`);
    expect(miss.status).toBe(200);
    expect(miss.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(miss.headers.get("Content-Security-Policy")).toBe(BRIEF_CSP);
    expect(miss.headers.get("X-Cache")).toBe("MISS");
    expect(miss.headers.get("Cache-Control")).toBe("public, max-age=60, s-maxage=60");
    expect(miss.text).toContain('<html lang="en">');
    expect(miss.text).toContain("Acme &lt;Security&gt; &amp; Co");
    expect(miss.text.indexOf("Safe harbor")).toBeLessThan(miss.text.indexOf("<form"));
    for (const field of [
      'name="title"',
      'name="description"',
      'name="contact_email"',
      'name="domains"',
      'name="files"',
      'enctype="multipart/form-data"',
    ])
      expect(miss.text).toContain(field);
    expect(miss.text).toContain(`href="${PAGES_CSS_PATH}"`);
    // One script, first-party at its hashed path (the gate's: proof of work and signing); nothing inline.
    expect([...miss.text.matchAll(/<script[^>]*>/gi)].map((m) => m[0])).toEqual([`<script src="${GATE_JS_PATH}" defer>`]);
    expect(miss.text).not.toMatch(/<script[^>]*>[^<]|style=|\son[a-z]+=/i);

    const hit = await browse("GET", `/b/${shortcode}`);
    expect(hit.headers.get("X-Cache")).toBe("HIT");
    expect(hit.roundTrips).toBe(0);
    expect(hit.text).toBe(miss.text);
    expect(hit.headers.get("Content-Security-Policy")).toBe(BRIEF_CSP);
    const conditional = await browse("GET", `/b/${shortcode}`, { headers: { "If-None-Match": miss.headers.get("ETag")! } });
    expect(conditional.status).toBe(304);
  });

  it("reads as a person reads it: scope once, kinds in words, the rating explained, a title that says things once", async () => {
    const o = await organization({ name: "Quokka Labs" });
    const p = await policy(o, {
      published_at: PUBLISHED,
      point_of_contact: "security@quokka.example",
      safe_harbor: "full",
      public_disclosure: true,
      cvd_timeline: 90,
      in_scope_assets: [{ kind: "wildcard_domain", value: "*.quokka.example" }],
    });
    const withOwnScope = await brief(
      o,
      { published_at: PUBLISHED, name: "Report a vulnerability", in_scope_assets: [{ kind: "url", value: "https://app.quokka.example/" }] },
      p.id,
    );
    const inherited = await brief(o, { published_at: PUBLISHED, name: "Quokka Labs mobile" }, p.id);
    for (const [b, scope, absent] of [
      [withOwnScope, "https://app.quokka.example/", "*.quokka.example"],
      [inherited, "*.quokka.example", "https://app.quokka.example/"],
    ] as const) {
      const page = (await browse("GET", `/b/${b.attributes.shortcode}`)).text;
      expect(page.match(/<dt>In scope<\/dt>/g)).toHaveLength(1);
      expect(page).toContain(scope);
      expect(page).not.toContain(absent);
      expect(page).not.toMatch(/wildcard_domain|\(url\)|\(domain\)/);
      expect(page).toMatch(/5 of 5/);
      expect(page).toMatch(/disclose\.io/);
      const title = /<title>([^<]*)<\/title>/.exec(page)![1]!;
      for (const said of ["Quokka Labs", "eport a vulnerability"]) expect(title.split(said).length - 1).toBeLessThanOrEqual(1);
    }
    expect((await browse("GET", `/b/${inherited.attributes.shortcode}`)).text).toContain("any subdomain of");
  });

  it("is evicted with the JSON read by a change to the brief: both show the new name at once", async () => {
    await browse("GET", `/b/${shortcode}`);
    await get(`/v1/p/briefs/${shortcode}`);
    expect(
      (
        await patch(`/v1/briefs/${briefId}`, org.key, {
          data: { type: "brief", id: briefId, attributes: { name: "Acme shop <script>alert(1)</script>" } },
        })
      ).status,
    ).toBe(200);
    const page = await browse("GET", `/b/${shortcode}`);
    expect(page.headers.get("X-Cache")).toBe("MISS");
    expect(page.text).toContain("Acme shop &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.text).not.toContain("<script>");
    expect((await get(`/v1/p/briefs/${shortcode}`)).headers.get("X-Cache")).toBe("MISS");
  });

  it("answers a draft, an unknown shortcode and any other /b, /r or /d address with the 404 page", async () => {
    const draft = await brief(org, {});
    for (const path of [
      `/b/${draft.attributes.shortcode}`,
      "/b/ZZZZ-ZZZZ",
      "/b/not-a-code",
      `/b/${shortcode}/more`,
      "/r/vdpr_unknown",
      "/d/no-such-directory",
      "/d/a/b",
    ]) {
      const res = await browse("GET", path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("Content-Security-Policy")).toBe(CSP);
      expect(res.text).toContain("<h1>Not found</h1>");
    }
  });
});

describe("POST /b/{shortcode}", () => {
  it("makes the report through the same services, stores the files as the reporter's, and sends the browser to /r/{token}", async () => {
    const bytes = new TextEncoder().encode("poc bytes ✓");
    const res = await send(shortcode, reportForm({}, [new File([bytes], "poc.txt", { type: "text/plain" })]), nextIp());
    expect(res.status).toBe(303);
    const location = res.headers.get("Location")!;
    expect(location).toMatch(/^\/r\/vdpr_[0-9A-Za-z]{40,}\?sent=1$/);
    const list = await get(`/v1/vulns?q[brief_id_eq]=${briefId}&sort=-created_at`, org.key);
    const v = list.body.data[0];
    expect(v.attributes).toMatchObject({
      title: "SQL injection in search",
      contact_email: "r@example.org",
      domains: ["api.example.com", "cdn.example.com", "shop.example.com"],
    });
    const files = await get(`/v1/vulns/${v.id}/attachments`, org.key);
    expect(files.body.data).toHaveLength(1);
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
    expect(files.body.data[0].attributes).toMatchObject({
      filename: "poc.txt",
      byte_size: bytes.byteLength,
      sha256: digest,
      uploaded_by: "reporter",
    });

    const page = await browse("GET", location);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Your report was sent to Acme &lt;Security&gt; &amp; Co.");
    expect(page.text).toContain("poc.txt");
    // What the reporter sent, exactly as received, opens the thread, in a section that folds away.
    const sent = page.text.slice(page.text.indexOf("<details"), page.text.indexOf("</details>"));
    expect(page.text.indexOf("<details")).toBeGreaterThan(page.text.indexOf('id="conversation"'));
    expect(page.text.indexOf("</details>")).toBeLessThan(page.text.indexOf("Your reply"));
    expect(sent).toContain("What you sent");
    for (const text of ["SQL injection in search", "GET /search?q=&#39; OR 1=1-- lists every order.", "r@example.org", "API.example.com"])
      expect([text, sent.includes(text)]).toEqual([text, true]);
  });

  it("makes no second report for the same content from the same address within 10 minutes", async () => {
    const ip = nextIp();
    const title = `Repeat ${crypto.randomUUID()}`;
    const first = await send(shortcode, reportForm({ title }), ip);
    expect(first.status).toBe(303);
    const again = await send(shortcode, reportForm({ title }), ip);
    expect(again.status).toBe(200);
    expect(again.text).toContain("This report was already received");
    const count = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM vulns WHERE title = ?").bind(title).first<{ n: number }>())!.n;
    expect(await count()).toBe(1);
    // Another address, or other content, is another report.
    expect((await send(shortcode, reportForm({ title }), nextIp())).status).toBe(303);
    expect((await send(shortcode, reportForm({ title, description: "Different steps." }), ip)).status).toBe(303);
    expect(await count()).toBe(3);
    // Past the window, the same content is a new report.
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ? WHERE scope = ?")
      .bind(new Date(Date.now() - 11 * 60_000).toISOString(), `form:${ip}`)
      .run();
    expect((await send(shortcode, reportForm({ title }), ip)).status).toBe(303);
    expect(await count()).toBe(4);
  });

  it("re-renders the form (422) with each message beside its field and everything typed kept, escaped", async () => {
    const res = await send(
      shortcode,
      reportForm(
        { title: "   ", description: 'Kept "as typed" <b>', contact_email: "not-an-address", domains: "ok.example.com\nnot a domain!" },
        [new File(["x"], "a.txt")],
      ),
      nextIp(),
    );
    expect(res.status).toBe(422);
    expect(res.headers.get("Content-Security-Policy")).toBe(BRIEF_CSP);
    expect(res.text).toMatch(
      /<span class="message" id="title-error">Title must not be empty\.<\/span>\s*<input type="text" id="title" name="title" aria-describedby="title-error title-hint" aria-invalid="true"/,
    );
    expect(res.text).toContain('id="contact_email-error">E-mail address must be a valid e-mail address.');
    expect(res.text).toContain("“not a domain!” must be a domain name such as app.example.com.");
    expect(res.text).toContain("Choose your files again");
    expect(res.text).toContain("Kept &quot;as typed&quot; &lt;b&gt;</textarea>");
    expect(res.text).toContain('value="not-an-address"');
    expect(res.text).toContain("ok.example.com\nnot a domain!</textarea>");
    expect(res.text).not.toContain('aria-invalid="true" id="description"');
  });

  it("refuses a body over five files of 10 MiB before reading it, with the page", async () => {
    const res = await browse("POST", `/b/${shortcode}`, {
      body: "x",
      headers: {
        "Content-Type": "multipart/form-data; boundary=b",
        "Content-Length": String(MAX_FORM_BYTES + 1),
        "CF-Connecting-IP": nextIp(),
      },
    });
    expect(res.status).toBe(413);
    expect(res.text).toContain("<h1>Too large</h1>");
  });

  it("refuses a form sent from another site (Origin, or without it Sec-Fetch-Site) with the 403 page, and stores nothing", async () => {
    const title = `Cross-site ${crypto.randomUUID()}`;
    const from = (headers: Record<string, string>) =>
      browse("POST", `/b/${shortcode}`, { body: reportForm({ title }), headers: { "CF-Connecting-IP": nextIp(), ...headers } });
    const foreign: Record<string, string>[] = [
      { Origin: "https://attacker.example" },
      { Origin: "null" },
      { Origin: "http://api.vdp.test" },
      { "Sec-Fetch-Site": "cross-site" },
    ];
    for (const headers of foreign) {
      const res = await from(headers);
      expect([headers, res.status]).toEqual([headers, 403]);
      expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(res.text).toContain("from its own page");
    }
    const list = await get(`/v1/vulns?q[brief_id_eq]=${briefId}&sort=-created_at`, org.key);
    expect(list.body.data.map((v: { attributes: { title: string } }) => v.attributes.title)).not.toContain(title);
    // The same site, and clients that are no browser (no Origin, no Sec-Fetch-Site), are served as before.
    expect((await from({ Origin: BASE, "Sec-Fetch-Site": "same-origin" })).status).toBe(303);
    const { path } = await (async () => {
      const res = await send(shortcode, reportForm({ title: `Reporter ${crypto.randomUUID()}` }), nextIp());
      return { path: res.headers.get("Location")!.split("?")[0]! };
    })();
    const fd = new FormData();
    fd.set("body", "From elsewhere.");
    expect((await browse("POST", `${path}/comments`, { body: fd, headers: { Origin: "https://attacker.example" } })).status).toBe(403);
    expect((await browse("POST", `${path}/comments`, { body: fd, headers: { Origin: BASE } })).status).toBe(303);
  });

  it("answers the 429 page past 5 sends a minute from one address", async () => {
    const ip = nextIp();
    let last = await send(shortcode, reportForm({ title: "" }), ip);
    for (let i = 0; i < 12 && last.status !== 429; i++) last = await send(shortcode, reportForm({ title: "" }), ip);
    expect(last.status).toBe(429);
    expect(last.headers.get("Retry-After")).toBe("60");
    expect(last.text).toContain("<h1>Too many requests</h1>");
  });
});

describe("the reporter's page", () => {
  async function report() {
    const res = await send(shortcode, reportForm({ title: `Reporter ${crypto.randomUUID()}` }), nextIp());
    const path = res.headers.get("Location")!.split("?")[0]!;
    const list = await get(`/v1/vulns?q[brief_id_eq]=${briefId}&sort=-created_at`, org.key);
    return { path, vulnId: list.body.data[0].id as string };
  }

  it("is private to its link, shows the organization's replies but never its internal notes, and takes replies and files", async () => {
    const { path, vulnId } = await report();
    await post(`/v1/vulns/${vulnId}/comments`, org.key, {
      data: { type: "comment", attributes: { body: "Thanks: <b>confirmed</b>.", visibility: "reporter" } },
    });
    await post(`/v1/vulns/${vulnId}/comments`, org.key, { data: { type: "comment", attributes: { body: "INTERNAL triage note" } } });
    const page = await browse("GET", path);
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(page.headers.get("X-Robots-Tag")).toContain("noindex");
    expect(page.headers.get("Content-Security-Policy")).toBe(CSP);
    expect(page.text).toContain("Keep this page's address.");
    expect(page.text).toContain("Thanks: &lt;b&gt;confirmed&lt;/b&gt;.");
    expect(page.text).not.toContain("INTERNAL");

    const reply = await browse("POST", `${path}/comments`, {
      body: new URLSearchParams({ body: "Happy to help." }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(reply.status).toBe(303);
    expect(reply.headers.get("Location")).toBe(`${path}#conversation`);
    const empty = await browse("POST", `${path}/comments`, {
      body: new URLSearchParams({ body: "  " }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('id="body-error">The reply must not be empty.');

    const fd = new FormData();
    fd.set("file", new File(["second file"], "more.log", { type: "text/plain" }));
    const upload = await browse("POST", `${path}/attachments`, { body: fd });
    expect(upload.status).toBe(303);
    const comments = await get(`/v1/vulns/${vulnId}/comments`, org.key);
    expect(
      comments.body.data.map((c: { attributes: { body: string; author: string } }) => [c.attributes.author, c.attributes.body]),
    ).toContainEqual(["reporter", "Happy to help."]);
    const files = await get(`/v1/vulns/${vulnId}/attachments`, org.key);
    expect(files.body.data[0].attributes).toMatchObject({ filename: "more.log", uploaded_by: "reporter" });
    const after = await browse("GET", path);
    expect(after.text.indexOf("Thanks: &lt;b&gt;")).toBeLessThan(after.text.indexOf("Happy to help."));
    const download = await browse("GET", `${path}/attachments/${files.body.data[0].id}`);
    expect(download.text).toBe("second file");
    expect(download.headers.get("Content-Disposition")).toContain("attachment");
    // Every download is sandboxed, whichever door it comes through (the API's download says the same).
    expect(download.headers.get("Content-Security-Policy")).toBe("sandbox");
  });

  it("tells the organization of a file added on the page as the API does: updated_at moves and Vuln::Updated fires, in the file's batch", async () => {
    const { path, vulnId } = await report();
    const before = (await get(`/v1/vulns/${vulnId}`, org.key)).body.data.attributes.updated_at;
    const eventsBefore = await eventTypes(vulnId);
    const fd = new FormData();
    fd.set("file", new File(["a screenshot, say"], "proof.txt", { type: "text/plain" }));
    expect((await browse("POST", `${path}/attachments`, { body: fd })).status).toBe(303);
    expect(await eventTypes(vulnId)).toEqual([...eventsBefore, "Vuln::Updated"]);
    expect((await get(`/v1/vulns/${vulnId}`, org.key)).body.data.attributes.updated_at > before).toBe(true);
    // A refused file changes nothing.
    const empty = new FormData();
    empty.set("file", new File([], ""));
    expect((await browse("POST", `${path}/attachments`, { body: empty })).status).toBe(422);
    expect(await eventTypes(vulnId)).toEqual([...eventsBefore, "Vuln::Updated"]);
  });

  it("says how many files were not stored from what the report holds, never from a number in the address", async () => {
    const res = await send(
      shortcode,
      reportForm({ title: `Files ${crypto.randomUUID()}` }, [new File(["x"], "one.txt", { type: "text/plain" })]),
      nextIp(),
    );
    const path = res.headers.get("Location")!.split("?")[0]!;
    expect((await browse("GET", `${path}?sent=1`)).text).not.toContain("could not be stored");
    // The one file the form sent is stored: whatever the address claims, nothing is missing.
    for (const query of ["failed=1000000000", "failed=1", "files=1", "files=1e9"]) {
      expect([query, (await browse("GET", `${path}?sent=1&${query}`)).text.includes("could not be stored")]).toEqual([query, false]);
    }
    // Had the form sent three, two would be missing; a count past the form's own limit is none at all.
    expect((await browse("GET", `${path}?sent=1&files=3`)).text).toContain("2 of its files could not be stored");
    expect((await browse("GET", `${path}?sent=1&files=1000000000`)).text).not.toContain("could not be stored");
  });

  it("answers an unknown or malformed token with the 404 page, privately", async () => {
    for (const path of [`/r/vdpr_${"A".repeat(43)}`, "/r/vdpr_short", `/r/vdp_${"A".repeat(43)}`]) {
      const res = await browse("GET", path, { headers: { "CF-Connecting-IP": nextIp() } });
      expect(res.status).toBe(404);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      expect(res.text).toContain("<h1>Not found</h1>");
    }
  });
});

describe("GET /d/{slug}", () => {
  it("lists the organizations with their terms and briefs' links, cached and evicted with the JSON read", async () => {
    const operator = org.operatorKey;
    const dir = await directory(operator, { min_maturity_rating: 1 });
    const l = await listing(operator, dir.id, org.id);
    const p = await policy(org, { published_at: PUBLISHED, point_of_contact: "security@acme.example" });
    await post(`/v1/directory_listings/${l.id}/items`, org.key, {
      data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: p.id } },
    });
    await post(`/v1/directory_listings/${l.id}/items`, org.key, {
      data: { type: "directory_listing_item", attributes: { listable_type: "Brief", listable_id: briefId } },
    });
    const first = await browse("GET", `/d/${dir.attributes.slug}`);
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Cache")).toBe("MISS");
    expect(first.text).toContain(`href="/b/${shortcode}"`);
    expect(first.text).toContain("security@acme.example");
    expect((await browse("GET", `/d/${dir.attributes.slug}`)).headers.get("X-Cache")).toBe("HIT");
    await patch(`/v1/directory_listings/${l.id}`, org.key, {
      data: { type: "directory_listing", id: l.id, attributes: { visible: false } },
    });
    const after = await browse("GET", `/d/${dir.attributes.slug}`);
    expect(after.headers.get("X-Cache")).toBe("MISS");
    expect(after.text).not.toContain(`href="/b/${shortcode}"`);
  });
});

describe("the stylesheet", () => {
  it("is served under its hash for a year", async () => {
    const res = await browse("GET", PAGES_CSS_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toContain("immutable");
    expect(res.text).toBe(PAGES_CSS);
  });
});

describe("the icon and the description", () => {
  it("serves an icon, so no page logs a failed request for /favicon.ico, and every page links it", async () => {
    for (const path of ["/favicon.ico", "/favicon.svg"]) {
      const res = await browse("GET", path);
      expect([path, res.status, res.headers.get("Content-Type")]).toEqual([path, 200, "image/svg+xml"]);
      expect(res.text).toMatch(/^<svg /);
      expect(res.headers.get("Cache-Control")).toContain("max-age=");
    }
    const page = await browse("GET", `/b/${shortcode}`);
    expect(page.text).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  });

  it("tells crawlers in /robots.txt to keep away from reporters' pages and the API's answers", async () => {
    const res = await browse("GET", "/robots.txt");
    expect([res.status, res.headers.get("Content-Type")]).toEqual([200, "text/plain; charset=utf-8"]);
    const rules = res.text.split("\n").filter(Boolean);
    expect(rules[0]).toBe("User-agent: *");
    expect(rules).toEqual(expect.arrayContaining(["Disallow: /r/", "Disallow: /v1/"]));
    // Every line is a directive crawlers read (what Lighthouse's robots.txt audit checks).
    for (const line of rules) expect(line).toMatch(/^(User-agent|Allow|Disallow): \S+$/);
  });

  it("describes the pages meant to be found (a brief, a directory) for search engines, and only those", async () => {
    const brief = await browse("GET", `/b/${shortcode}`);
    expect(brief.text).toMatch(/<meta name="description" content="[^"]*report a security vulnerability[^"]*">/i);
    const report = await send(shortcode, reportForm({ title: `Described ${crypto.randomUUID()}` }), nextIp());
    const reportPage = await browse("GET", report.headers.get("Location")!.split("?")[0]!);
    expect(reportPage.text).not.toContain('name="description"');
  });
});

describe("D1 round trips and weight per page", () => {
  it("costs nothing on a hit; a miss costs its services' reads; the table goes in the closing note", async () => {
    const css = new TextEncoder().encode(PAGES_CSS).byteLength;
    const rows: string[] = [];
    const measure = async (
      name: string,
      path: string,
      expected: { miss: number; hit: number | null },
      init?: Parameters<typeof browse>[2],
    ) => {
      const miss = await browse(init?.body ? "POST" : "GET", path, init);
      const hit = expected.hit === null ? null : await browse("GET", path);
      expect([name, miss.shardTrips, hit?.roundTrips ?? null]).toEqual([name, expected.miss, expected.hit]);
      rows.push(
        `| ${name} | ${miss.roundTrips} | ${hit?.roundTrips ?? "never cached"} | ${new TextEncoder().encode(miss.text).byteLength} + ${css} |`,
      );
      return miss;
    };
    const fresh = await brief(org, { published_at: PUBLISHED });
    await measure("GET /b/{shortcode}", `/b/${fresh.attributes.shortcode}`, { miss: 1, hit: 0 });
    const dir = await directory(org.operatorKey, { min_maturity_rating: 0 });
    await listing(org.operatorKey, dir.id, org.id);
    await measure("GET /d/{slug}", `/d/${dir.attributes.slug}`, { miss: 1, hit: 0 });
    const sent = await measure(
      "POST /b/{shortcode} (one file)",
      `/b/${shortcode}`,
      { miss: 6, hit: null },
      { body: reportForm({ title: "Weighed" }, [new File(["f"], "f.txt")]), headers: { "CF-Connecting-IP": nextIp() } },
    );
    const path = sent.headers.get("Location")!.split("?")[0]!;
    await measure("GET /r/{token}", path, { miss: 3, hit: null });
    await measure(
      "POST /r/{token}/comments",
      `${path}/comments`,
      { miss: 2, hit: null },
      { body: new URLSearchParams({ body: "x" }), headers: { "Content-Type": "application/x-www-form-urlencoded" } },
    );
    await measure("404 page", "/b/ZZZZ-ZZZZ", { miss: 1, hit: null });
    console.log(["| page | D1 round trips, miss | hit | bytes (HTML + CSS) |", "|---|---|---|---|", ...rows].join("\n"));
  });
});
