import { beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, api, get, patch, post } from "../helpers/api";
import { asset, brief, directory, organization, policy, PUBLISHED, type TestOrganization, vuln, webhook } from "../helpers/factories";
import { createContact } from "../helpers/mail";
import { asReporter, nextIp, submitReport } from "../helpers/reporter";

// A single-line member (a title, a name, a short description, a URL, a version...) takes no control
// character (C0 with CR, LF and TAB; DEL; C1), no line or paragraph separator and no bidirectional
// override or isolate: each is a 422 at the member. A title could otherwise write paragraphs and a fake
// link into the e-mails responders get, or reverse the text beside it on a page. Multi-line members (a
// report's description, a comment's body) keep their line breaks.

const HOSTILE = [
  "a\nb",
  "a\r\nb",
  "a\rb",
  "a\tb",
  "a\u0000b",
  "a\u001bb",
  "a\u007fb",
  "a\u0085b",
  "a\u2028b",
  "a\u2029b",
  "a\u202eb",
  "a\u2066b",
];

let org: TestOrganization;
let ids: Record<string, string>;
let token: string;

beforeAll(async () => {
  org = await organization();
  const p = await policy(org);
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const v = await vuln(org, b.id, { actively_exploited: true });
  const a = await asset(org);
  const hook = await webhook(org);
  const contact = await createContact(org, { name: "Ana", email: `ana-${org.slug}@acme.example`, role: "responder" });
  const dir = await directory(org.operatorKey);
  const advisory = await post("/v1/advisories", org.key, {
    data: {
      type: "advisory",
      attributes: {
        title: "Open redirect",
        affected: [{ vendor: "Acme", product: "Web", versions: [{ version: "1.0", status: "affected" }] }],
      },
      relationships: { vulns: { data: [{ type: "vuln", id: v.id }] } },
    },
  });
  expect(advisory.status).toBe(201);
  const report = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
  token = report.token;
  ids = {
    policy: p.id,
    brief: b.id,
    shortcode: b.attributes.shortcode,
    vuln: v.id,
    asset: a.id,
    webhook: hook.id,
    contact: contact.body.data.id,
    directory: dir.id,
    advisory: advisory.body.data.id,
  };
});

const change = (type: string, path: string, attributes: Record<string, unknown>, key = org.key) =>
  patch(path, key, { data: { type, id: path.split("/").pop(), attributes } });

/** Each single-line member, as a client writes it: the request for a value, and the member's pointer. */
const MEMBERS: [string, (value: string) => Promise<ApiResponse>, string][] = [
  [
    "organization name",
    (v) => change("organization", `/v1/organizations/${org.id}`, { name: v }, org.operatorKey),
    "/data/attributes/name",
  ],
  [
    "organization website_url",
    (v) => change("organization", `/v1/organizations/${org.id}`, { website_url: `https://acme.example/${v}` }, org.operatorKey),
    "/data/attributes/website_url",
  ],
  ["policy name", (v) => change("policy", `/v1/policies/${ids.policy}`, { name: v }), "/data/attributes/name"],
  [
    "policy short_description",
    (v) => change("policy", `/v1/policies/${ids.policy}`, { short_description: v }),
    "/data/attributes/short_description",
  ],
  [
    "policy point_of_contact",
    (v) => change("policy", `/v1/policies/${ids.policy}`, { point_of_contact: `sec${v}@acme.example` }),
    "/data/attributes/point_of_contact",
  ],
  [
    "policy contact_url",
    (v) => change("policy", `/v1/policies/${ids.policy}`, { contact_url: `https://acme.example/${v}` }),
    "/data/attributes/contact_url",
  ],
  [
    "policy branding font",
    (v) => change("policy", `/v1/policies/${ids.policy}`, { branding: { font_heading: v } }),
    "/data/attributes/branding/font_heading",
  ],
  [
    "policy branding google font",
    (v) => change("policy", `/v1/policies/${ids.policy}`, { branding: { google_fonts: ["Inter", v] } }),
    "/data/attributes/branding/google_fonts/1",
  ],
  [
    "policy scope entry",
    (v) => change("policy", `/v1/policies/${ids.policy}`, { in_scope_assets: [{ kind: "other", value: v }] }),
    "/data/attributes/in_scope_assets/0/value",
  ],
  [
    "policy scope description",
    (v) =>
      change("policy", `/v1/policies/${ids.policy}`, {
        in_scope_assets: [{ kind: "domain", value: "acme.example", short_description: v }],
      }),
    "/data/attributes/in_scope_assets/0/short_description",
  ],
  ["brief name", (v) => change("brief", `/v1/briefs/${ids.brief}`, { name: v }), "/data/attributes/name"],
  [
    "brief short_description",
    (v) => change("brief", `/v1/briefs/${ids.brief}`, { short_description: v }),
    "/data/attributes/short_description",
  ],
  ["asset value", (v) => change("asset", `/v1/assets/${ids.asset}`, { kind: "hardware", value: v }), "/data/attributes/value"],
  [
    "asset short_description",
    (v) => change("asset", `/v1/assets/${ids.asset}`, { short_description: v }),
    "/data/attributes/short_description",
  ],
  ["vuln title", (v) => change("vuln", `/v1/vulns/${ids.vuln}`, { title: v }), "/data/attributes/title"],
  ["vuln tag", (v) => change("vuln", `/v1/vulns/${ids.vuln}`, { tags: ["ok", v] }), "/data/attributes/tags/1"],
  ["webhook name", (v) => change("webhook", `/v1/webhooks/${ids.webhook}`, { name: v }), "/data/attributes/name"],
  [
    "webhook short_description",
    (v) => change("webhook", `/v1/webhooks/${ids.webhook}`, { short_description: v }),
    "/data/attributes/short_description",
  ],
  ["contact name", (v) => change("contact", `/v1/contacts/${ids.contact}`, { name: v }), "/data/attributes/name"],
  ["directory name", (v) => change("directory", `/v1/directories/${ids.directory}`, { name: v }, org.operatorKey), "/data/attributes/name"],
  [
    "directory description",
    (v) => change("directory", `/v1/directories/${ids.directory}`, { description: v }, org.operatorKey),
    "/data/attributes/description",
  ],
  [
    "API key name",
    (v) => post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, { data: { type: "api_key", attributes: { name: v } } }),
    "/data/attributes/name",
  ],
  ["advisory title", (v) => change("advisory", `/v1/advisories/${ids.advisory}`, { title: v }), "/data/attributes/title"],
  [
    "advisory vendor",
    (v) =>
      change("advisory", `/v1/advisories/${ids.advisory}`, {
        affected: [{ vendor: v, product: "Web", versions: [{ version: "1.0", status: "affected" }] }],
      }),
    "/data/attributes/affected/0/vendor",
  ],
  [
    "advisory version",
    (v) =>
      change("advisory", `/v1/advisories/${ids.advisory}`, {
        affected: [{ vendor: "Acme", product: "Web", versions: [{ version: `1.${v}`, status: "affected" }] }],
      }),
    "/data/attributes/affected/0/versions/0/version",
  ],
  [
    "advisory credit",
    (v) => change("advisory", `/v1/advisories/${ids.advisory}`, { credits: [{ name: v, type: "finder" }] }),
    "/data/attributes/credits/0/name",
  ],
  [
    "advisory revision_note",
    (v) => change("advisory", `/v1/advisories/${ids.advisory}`, { state: "published", summary: "S", revision_note: v }),
    "/data/attributes/revision_note",
  ],
  [
    "regulatory report reference",
    (v) =>
      post(`/v1/vulns/${ids.vuln}/regulatory_reports`, org.key, {
        data: {
          type: "regulatory_report",
          attributes: { kind: "early_warning", submitted_at: new Date().toISOString(), body: "Filed", reference: v },
        },
      }),
    "/data/attributes/reference",
  ],
  [
    "public submission title",
    (v) =>
      api("POST", `/v1/p/briefs/${ids.shortcode}/vulns`, {
        body: { data: { type: "vuln", attributes: { title: v, description: "D" } } },
        headers: { "CF-Connecting-IP": nextIp() },
      }),
    "/data/attributes/title",
  ],
  [
    "reporter credit_name",
    (v) => asReporter("PATCH", "/v1/p/report", token, { body: { data: { type: "report", attributes: { credit_name: v } } } }),
    "/data/attributes/credit_name",
  ],
];

describe("a single-line member", () => {
  it.each(MEMBERS)("%s: refuses a control character, line break or bidi override, at the member", async (_, send, pointer) => {
    for (const value of HOSTILE) {
      const res = await send(value);
      expect([JSON.stringify(value), res.status, res.body?.errors?.map((e: any) => e.source?.pointer)]).toEqual([
        JSON.stringify(value),
        422,
        [pointer],
      ]);
      expect(res.body.errors[0].detail).toMatch(/one line|RFC 3986/);
    }
    // The same member without them is taken (the table names members that exist).
    expect((await send("a-b")).status).toBeLessThan(300);
  });
});

describe("a multi-line member", () => {
  it("keeps its line breaks and tabs: a report's description, a comment's body", async () => {
    const text = "Steps:\n1. Open /login\r\n2.\tLog in";
    const v = await change("vuln", `/v1/vulns/${ids.vuln}`, { description: text });
    expect([v.status, v.body.data.attributes.description]).toEqual([200, text]);
    const c = await post(`/v1/vulns/${ids.vuln}/comments`, org.key, { data: { type: "comment", attributes: { body: text } } });
    expect([c.status, c.body.data.attributes.body]).toEqual([201, text]);
    expect((await get(`/v1/vulns/${ids.vuln}`, org.key)).body.data.attributes.description).toBe(text);
  });
});
