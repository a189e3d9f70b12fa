import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, patch, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization, vuln } from "../helpers/factories";
import { nextIp } from "../helpers/reporter";

// Single-line values (titles, names, URLs, versions, tags) hold no line break, tab or control
// character: each is refused at its member and nothing is written. A row written before the rule is
// rendered as one line (test/routes/notifications.test.ts), so an anonymous title never writes a
// paragraph into a responder's e-mail.

const BREAKERS: [string, string][] = [
  ["a line feed", "Stored XSS\nClick https://evil.example to claim your bounty"],
  ["a carriage return", "Stored XSS\r\nBcc: someone@example.com"],
  ["a tab", "Stored\tXSS"],
  ["a NUL", "Stored\u0000XSS"],
  ["a C1 control", "Stored\u0085XSS"],
  ["a line separator", "Stored\u2028XSS"],
  ["a bidirectional override", "Stored \u202eSSX"],
];

let org: TestOrganization;
let briefId: string;
let policyId: string;
let vulnId: string;
beforeAll(async () => {
  org = await organization();
  policyId = (await policy(org, { published_at: PUBLISHED })).id;
  const b = await brief(org, { published_at: PUBLISHED }, policyId);
  briefId = b.id;
  vulnId = (await vuln(org, briefId)).id;
});

/** [what, request, member pointer] for each single-line member, with `value` as the member's value. */
const CASES: [string, (value: string) => Promise<{ status: number; body: any }>, string][] = [
  [
    "a vuln's title",
    (title) => patch(`/v1/vulns/${vulnId}`, org.key, { data: { type: "vuln", id: vulnId, attributes: { title } } }),
    "/data/attributes/title",
  ],
  [
    "a vuln's tag",
    (tag) => patch(`/v1/vulns/${vulnId}`, org.key, { data: { type: "vuln", id: vulnId, attributes: { tags: ["ok", tag] } } }),
    "/data/attributes/tags/1",
  ],
  [
    "a public submission's title",
    (title) =>
      api("POST", `/v1/p/briefs/${briefShortcode}/vulns`, {
        body: { data: { type: "vuln", attributes: { title, description: "Steps." } } },
        contentType: "application/json",
        headers: { "CF-Connecting-IP": nextIp() },
      }),
    "/data/attributes/title",
  ],
  [
    "a policy's contact_url",
    (contact_url) =>
      patch(`/v1/policies/${policyId}`, org.key, {
        data: { type: "policy", id: policyId, attributes: { contact_url: `https://acme.example/${contact_url}` } },
      }),
    "/data/attributes/contact_url",
  ],
  [
    "a policy's point of contact",
    (point_of_contact) =>
      patch(`/v1/policies/${policyId}`, org.key, { data: { type: "policy", id: policyId, attributes: { point_of_contact } } }),
    "/data/attributes/point_of_contact",
  ],
  [
    "a brief's name",
    (name) => patch(`/v1/briefs/${briefId}`, org.key, { data: { type: "brief", id: briefId, attributes: { name } } }),
    "/data/attributes/name",
  ],
  [
    "a contact's name",
    (name) =>
      post("/v1/contacts", org.key, { data: { type: "contact", attributes: { name, email: "a@acme.example", role: "responder" } } }),
    "/data/attributes/name",
  ],
  [
    "a webhook's name",
    (name) =>
      post("/v1/webhooks", org.key, {
        data: {
          type: "webhook",
          attributes: { name, url: "https://hooks.example.com/vdp" },
          relationships: { trigger_event_types: { data: [] } },
        },
      }),
    "/data/attributes/name",
  ],
  [
    "an advisory's title",
    (title) =>
      post("/v1/advisories", org.key, {
        data: {
          type: "advisory",
          attributes: {
            title,
            summary: "It redirects.",
            affected: [{ vendor: "Acme", product: "Login", versions: [{ version: "1.0", status: "affected" }] }],
          },
          relationships: { vulns: { data: [{ type: "vuln", id: vulnId }] } },
        },
      }),
    "/data/attributes/title",
  ],
];
let briefShortcode: string;
beforeAll(async () => {
  briefShortcode = (await get(`/v1/briefs/${briefId}`, org.key)).body.data.attributes.shortcode;
});

describe("single-line values", () => {
  for (const [what, send, pointer] of CASES) {
    it.each(BREAKERS)(`refuse ${what} holding %s, at its member, writing nothing`, async (_, value) => {
      const before = await env.DB.prepare(
        "SELECT (SELECT count(*) FROM vulns) + (SELECT count(*) FROM contacts) + (SELECT count(*) FROM webhooks) + (SELECT count(*) FROM advisories) AS n, (SELECT revision FROM vulns WHERE id = ?) AS r, (SELECT updated_at FROM policies WHERE id = ?) AS p, (SELECT updated_at FROM briefs WHERE id = ?) AS b",
      )
        .bind(vulnId, policyId, briefId)
        .first();
      const res = await send(value);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.errors).toContainEqual(
        expect.objectContaining({
          source: { pointer },
          detail: expect.stringContaining("must be one line: no line breaks, tabs or control characters"),
        }),
      );
      const after = await env.DB.prepare(
        "SELECT (SELECT count(*) FROM vulns) + (SELECT count(*) FROM contacts) + (SELECT count(*) FROM webhooks) + (SELECT count(*) FROM advisories) AS n, (SELECT revision FROM vulns WHERE id = ?) AS r, (SELECT updated_at FROM policies WHERE id = ?) AS p, (SELECT updated_at FROM briefs WHERE id = ?) AS b",
      )
        .bind(vulnId, policyId, briefId)
        .first();
      expect(after).toEqual(before);
    });
  }

  it("keep their line breaks where a value is text: a description, a comment", async () => {
    const described = await patch(`/v1/vulns/${vulnId}`, org.key, {
      data: { type: "vuln", id: vulnId, attributes: { description: "Step 1.\nStep 2.\r\n\tIndented." } },
    });
    expect(described.status).toBe(200);
    expect(described.body.data.attributes.description).toBe("Step 1.\nStep 2.\r\n\tIndented.");
  });
});
