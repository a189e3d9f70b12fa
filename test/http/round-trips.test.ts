import { beforeAll, describe, expect, it } from "vitest";
import { api, get } from "../helpers/api";
import { fakeDns } from "../helpers/dns";
import { fakeQueue } from "../helpers/events";
import { webhookDoc } from "../helpers/endpoints";
import { asset, brief, directory, listing, organization, policy, PUBLISHED, webhook, type TestOrganization } from "../helpers/factories";
import { asReporter, reporterFixture, reporterUpload, submitReport } from "../helpers/reporter";

// Each D1 query is a network round trip at the edge. Budgets (issue 2): an authenticated read costs at
// most 2 (key lookup + one query or batch), a write at most 3, a public read from cache none. The
// table holds the exact figures, so an extra query fails here and the table in docs/round-trips.md stays true.

type Case = {
  name: string;
  trips: number;
  /** Above the usual budget, said so in the table with the reason. */
  budget?: number;
  run: (o: TestOrganization) => Promise<{ status: number; roundTrips: number }>;
};

const doc = (type: string, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});
const rel = (type: string, id: string) => ({ data: { type, id } });

const contactDoc = () => doc("contact", { name: "Dana", email: `dana-${crypto.randomUUID()}@acme.example`, role: "responder" });
async function contact(o: TestOrganization) {
  const res = await api("POST", "/v1/contacts", { key: o.key, body: contactDoc() });
  if (res.status !== 201) throw new Error(`contact: ${res.status} ${res.text}`);
  return res.body.data as { id: string };
}

// The fixtures of the reporter's reads (reporterFixture) send to the real queue, whose consumer would
// deliver to the webhooks the cases above give this organization (hooks.example.com, which resolves
// nowhere): they make organizations of their own, with no webhook, so nothing leaves the machine.
let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

const CASES: Case[] = [
  { name: "GET /v1/organizations", trips: 2, run: (o) => get("/v1/organizations", o.key) },
  { name: "GET /v1/organizations/{id}", trips: 2, run: (o) => get(`/v1/organizations/${o.id}`, o.key) },
  {
    name: "POST /v1/organizations",
    trips: 2,
    run: (o) =>
      api("POST", "/v1/organizations", {
        key: o.operatorKey,
        body: doc("organization", { name: "RT", slug: `rt-${crypto.randomUUID().slice(0, 8)}` }),
      }),
  },
  {
    name: "PATCH /v1/organizations/{id}",
    trips: 2,
    run: (o) => api("PATCH", `/v1/organizations/${o.id}`, { key: o.operatorKey, body: doc("organization", { name: "RT" }) }),
  },
  {
    name: "POST /v1/organizations/{id}/api_keys",
    trips: 2,
    run: (o) => api("POST", `/v1/organizations/${o.id}/api_keys`, { key: o.operatorKey, body: doc("api_key") }),
  },
  { name: "GET /v1/organizations/{id}/api_keys", trips: 2, run: (o) => get(`/v1/organizations/${o.id}/api_keys`, o.operatorKey) },
  { name: "GET /v1/api_keys/{id}", trips: 2, run: (o) => get(`/v1/api_keys/${o.keyId}`, o.operatorKey) },
  {
    name: "DELETE /v1/api_keys/{id}",
    trips: 2,
    run: async (o) => {
      const made = await api("POST", `/v1/organizations/${o.id}/api_keys`, { key: o.operatorKey, body: doc("api_key") });
      return api("DELETE", `/v1/api_keys/${made.body.data.id}`, { key: o.operatorKey });
    },
  },
  { name: "GET /v1/policies", trips: 2, run: (o) => get("/v1/policies", o.key) },
  { name: "GET /v1/policies/{id}", trips: 2, run: async (o) => get(`/v1/policies/${(await policy(o)).id}`, o.key) },
  { name: "POST /v1/policies", trips: 2, run: (o) => api("POST", "/v1/policies", { key: o.key, body: doc("policy", { name: "RT" }) }) },
  {
    name: "POST /v1/policies (with assets)",
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/policies", {
        key: o.key,
        body: doc("policy", {}, { assets: { data: [{ type: "asset", id: (await asset(o)).id }] } }),
      }),
  },
  {
    name: "POST /v1/policies (operator, naming the organization)",
    trips: 3,
    run: async (o) => {
      const unclaimed = await organization({ claimed: false });
      return api("POST", "/v1/policies", {
        key: o.operatorKey,
        body: doc("policy", {}, { organization: rel("organization", unclaimed.id) }),
      });
    },
  },
  {
    name: "PATCH /v1/policies/{id}",
    trips: 3,
    run: async (o) => api("PATCH", `/v1/policies/${(await policy(o)).id}`, { key: o.key, body: doc("policy", { name: "RT" }) }),
  },
  {
    name: "PATCH /v1/policies/{id} (with assets)",
    trips: 3,
    run: async (o) => {
      const [p, a] = [await policy(o), await asset(o)];
      return api("PATCH", `/v1/policies/${p.id}`, {
        key: o.key,
        body: doc("policy", { name: "RT" }, { assets: { data: [{ type: "asset", id: a.id }] } }),
      });
    },
  },
  {
    name: "DELETE /v1/policies/{id} (read, then the delete with its unlisting)",
    trips: 3,
    run: async (o) => api("DELETE", `/v1/policies/${(await policy(o)).id}`, { key: o.key }),
  },
  {
    name: "POST /v1/policies/{id}/verify_custom_domain",
    trips: 3,
    run: async (o) => {
      const host = `rt-${crypto.randomUUID().slice(0, 8)}.example.com`;
      const p = await policy(o, { custom_domain: host });
      const dns = fakeDns();
      try {
        dns.publish(`_vdp-challenge.${host}`, p.attributes.custom_domain_verification.record_value);
        return await api("POST", `/v1/policies/${p.id}/verify_custom_domain`, { key: o.key });
      } finally {
        dns.restore();
      }
    },
  },
  { name: "GET /v1/assets", trips: 2, run: (o) => get("/v1/assets", o.key) },
  { name: "GET /v1/assets/{id}", trips: 2, run: async (o) => get(`/v1/assets/${(await asset(o)).id}`, o.key) },
  {
    name: "POST /v1/assets",
    trips: 2,
    run: (o) =>
      api("POST", "/v1/assets", { key: o.key, body: doc("asset", { kind: "domain", value: `${crypto.randomUUID()}.example.com` }) }),
  },
  {
    name: "PATCH /v1/assets/{id} (kind and value, or neither)",
    trips: 2,
    run: async (o) => api("PATCH", `/v1/assets/${(await asset(o)).id}`, { key: o.key, body: doc("asset", { short_description: "RT" }) }),
  },
  {
    name: "PATCH /v1/assets/{id} (value alone)",
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/assets/${(await asset(o)).id}`, {
        key: o.key,
        body: doc("asset", { value: `${crypto.randomUUID()}.example.com` }),
      }),
  },
  {
    name: "DELETE /v1/assets/{id} (its vulns get Vuln::Updated)",
    trips: 3,
    run: async (o) => api("DELETE", `/v1/assets/${(await asset(o)).id}`, { key: o.key }),
  },
  { name: "GET /v1/briefs", trips: 2, run: (o) => get("/v1/briefs", o.key) },
  { name: "GET /v1/briefs/{id}", trips: 2, run: async (o) => get(`/v1/briefs/${(await brief(o)).id}`, o.key) },
  { name: "POST /v1/briefs", trips: 2, run: (o) => api("POST", "/v1/briefs", { key: o.key, body: doc("brief", { name: "RT" }) }) },
  {
    name: "POST /v1/briefs (with policy)",
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/briefs", { key: o.key, body: doc("brief", { name: "RT" }, { policy: rel("policy", (await policy(o)).id) }) }),
  },
  {
    name: "PATCH /v1/briefs/{id} (with policy)",
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/briefs/${(await brief(o)).id}`, {
        key: o.key,
        body: doc("brief", { name: "RT" }, { policy: rel("policy", (await policy(o)).id) }),
      }),
  },
  {
    name: "DELETE /v1/briefs/{id} (read, then the delete with its unlisting)",
    trips: 3,
    run: async (o) => api("DELETE", `/v1/briefs/${(await brief(o)).id}`, { key: o.key }),
  },
  {
    name: "GET /v1/p/briefs/{shortcode} (miss)",
    trips: 1,
    run: async (o) => get(`/v1/p/briefs/${(await brief(o, { published_at: PUBLISHED })).attributes.shortcode}`),
  },
  {
    name: "GET /v1/p/briefs/{shortcode} (hit)",
    trips: 0,
    run: async (o) => {
      const path = `/v1/p/briefs/${(await brief(o, { published_at: PUBLISHED })).attributes.shortcode}`;
      await get(path);
      return get(path);
    },
  },
  { name: "GET /v1/vulns", trips: 2, run: (o) => get("/v1/vulns", o.key) },
  {
    name: "GET /v1/vulns/{id} (first read: read_at and Vuln::Read in the same batch)",
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await newVuln(o)).id}`, o.key),
  },
  {
    name: "GET /v1/vulns/{id} (later reads)",
    trips: 2,
    run: async (o) => {
      const v = await newVuln(o);
      await get(`/v1/vulns/${v.id}`, o.key);
      return get(`/v1/vulns/${v.id}`, o.key);
    },
  },
  {
    name: "POST /v1/vulns",
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/vulns", { key: o.key, body: vulnDoc(await publishedBrief(o), { domains: ["a.example.com"] }), env: quiet }),
  },
  {
    name: "POST /v1/vulns (with Idempotency-Key)",
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/vulns", {
        key: o.key,
        body: vulnDoc(await publishedBrief(o)),
        headers: { "Idempotency-Key": crypto.randomUUID() },
        env: quiet,
      }),
  },
  {
    name: "PATCH /v1/vulns/{id} (close)",
    trips: 3,
    run: async (o) => {
      const briefId = await publishedBrief(o);
      const v = await newVuln(o, briefId);
      return api("PATCH", `/v1/vulns/${v.id}`, { key: o.key, body: vulnDoc(briefId, { processing_state: "closed" }), env: quiet });
    },
  },
  {
    name: "DELETE /v1/vulns/{id}",
    trips: 2,
    run: async (o) => api("DELETE", `/v1/vulns/${(await newVuln(o)).id}`, { key: o.key, env: quiet }),
  },
  {
    name: "PATCH /v1/vulns/{id} (triage alone, no brief named)",
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/vulns/${(await newVuln(o)).id}`, {
        key: o.key,
        body: { data: { type: "vuln", attributes: { cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" } } },
        env: quiet,
      }),
  },
  {
    name: "DELETE /v1/vulns/{id} (with attachments: their keys ride in the delete's batch)",
    trips: 2,
    run: async (o) => {
      const v = await newVuln(o);
      await attach(o, v.id);
      return api("DELETE", `/v1/vulns/${v.id}`, { key: o.key, env: quiet });
    },
  },
  {
    name: "POST /v1/vulns/{id}/attachments (the vuln and its usage, then the row)",
    trips: 3,
    run: async (o) => attach(o, (await newVuln(o)).id),
  },
  {
    name: "POST /v1/vulns/{id}/attachments (with Idempotency-Key)",
    trips: 3,
    run: async (o) => attach(o, (await newVuln(o)).id, { "Idempotency-Key": crypto.randomUUID() }),
  },
  {
    name: "GET /v1/vulns/{id}/attachments",
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await attachedVuln(o)).vulnId}/attachments`, o.key),
  },
  { name: "GET /v1/vulns/{id}/attachments/{attachment_id}", trips: 2, run: async (o) => get((await attachedVuln(o)).self, o.key) },
  {
    name: "GET /v1/vulns/{id}/attachments/{attachment_id}/content",
    trips: 2,
    run: async (o) => get(`${(await attachedVuln(o)).self}/content`, o.key),
  },
  {
    name: "DELETE /v1/vulns/{id}/attachments/{attachment_id}",
    trips: 2,
    run: async (o) => api("DELETE", (await attachedVuln(o)).self, { key: o.key }),
  },
  {
    name: "POST /v1/p/briefs/{shortcode}/vulns",
    trips: 2,
    run: async (o) => {
      const shortcode = (await brief(o, { published_at: PUBLISHED })).attributes.shortcode;
      return api("POST", `/v1/p/briefs/${shortcode}/vulns`, {
        body: { data: { type: "vuln", attributes: { title: "T", description: "D" } } },
        env: quiet,
      });
    },
  },
  { name: "GET /v1/webhook_event_types (no query)", trips: 1, run: (o) => get("/v1/webhook_event_types", o.key) },
  {
    name: "GET /v1/policies/{id}/versions",
    trips: 2,
    run: async (o) => get(`/v1/policies/${(await policy(o)).id}/versions`, o.key),
  },
  {
    name: "GET /v1/policies/{id}/versions/{number}",
    trips: 2,
    run: async (o) => get(`/v1/policies/${(await policy(o)).id}/versions/1`, o.key),
  },
  {
    name: "GET /v1/p/policies/{shortcode}/versions/{number}",
    trips: 1,
    run: async (o) => api("GET", `/v1/p/policies/${(await policy(o, { published_at: PUBLISHED })).attributes.shortcode}/versions/1`),
  },
  { name: "GET /v1/contacts", trips: 2, run: (o) => get("/v1/contacts", o.key) },
  { name: "GET /v1/contacts/{id}", trips: 2, run: async (o) => get(`/v1/contacts/${(await contact(o)).id}`, o.key) },
  { name: "POST /v1/contacts", trips: 3, run: (o) => api("POST", "/v1/contacts", { key: o.key, body: contactDoc() }) },
  {
    name: "PATCH /v1/contacts/{id}",
    trips: 3,
    run: async (o) => {
      const id = (await contact(o)).id;
      return api("PATCH", `/v1/contacts/${id}`, {
        key: o.key,
        body: { data: { type: "contact", id, attributes: { email: `new-${id}@acme.example` } } },
      });
    },
  },
  { name: "DELETE /v1/contacts/{id}", trips: 2, run: async (o) => api("DELETE", `/v1/contacts/${(await contact(o)).id}`, { key: o.key }) },
  { name: "GET /v1/notifications", trips: 2, run: (o) => get("/v1/notifications", o.key) },
  {
    name: "GET /v1/notifications/{id}",
    trips: 2,
    run: async (o) => {
      await contact(o);
      return get(`/v1/notifications/${(await get("/v1/notifications", o.key)).body.data[0].id}`, o.key);
    },
  },
  { name: "GET /v1/webhooks", trips: 2, run: (o) => get("/v1/webhooks", o.key) },
  { name: "GET /v1/webhooks/{id}", trips: 2, run: async (o) => get(`/v1/webhooks/${(await webhook(o)).id}`, o.key) },
  { name: "POST /v1/webhooks", trips: 2, run: (o) => api("POST", "/v1/webhooks", { key: o.key, body: webhookDoc() }) },
  {
    name: "PATCH /v1/webhooks/{id}",
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/webhooks/${(await webhook(o)).id}`, {
        key: o.key,
        body: { data: { type: "webhook", attributes: { enabled: false } } },
      }),
  },
  { name: "DELETE /v1/webhooks/{id}", trips: 2, run: async (o) => api("DELETE", `/v1/webhooks/${(await webhook(o)).id}`, { key: o.key }) },
  {
    name: "POST /v1/webhooks/{id}/rotate_secret",
    trips: 3,
    run: async (o) => api("POST", `/v1/webhooks/${(await webhook(o)).id}/rotate_secret`, { key: o.key }),
  },
  {
    name: "POST /v1/webhooks/{id}/ping",
    trips: 3,
    run: async (o) => api("POST", `/v1/webhooks/${(await webhook(o)).id}/ping`, { key: o.key }),
  },
  {
    name: "GET /v1/webhooks/{id}/deliveries",
    trips: 2,
    run: async (o) => api("GET", `/v1/webhooks/${(await webhook(o)).id}/deliveries`, { key: o.key }),
  },
  {
    name: "GET /v1/webhooks/{id}/deliveries/{delivery_id}",
    trips: 2,
    run: async (o) => {
      const w = await webhook(o);
      const d = await api("POST", `/v1/webhooks/${w.id}/ping`, { key: o.key });
      return get(`/v1/webhooks/${w.id}/deliveries/${d.body.data.id}`, o.key);
    },
  },
  {
    name: "POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    trips: 3,
    run: async (o) => {
      const w = await webhook(o);
      const d = await api("POST", `/v1/webhooks/${w.id}/ping`, { key: o.key });
      return api("POST", `/v1/webhooks/${w.id}/deliveries/${d.body.data.id}/redeliver`, { key: o.key });
    },
  },
  { name: "GET /v1/directories", trips: 2, run: (o) => get("/v1/directories", o.key) },
  { name: "GET /v1/directories/{id}", trips: 2, run: async (o) => get(`/v1/directories/${(await directory(o.operatorKey)).id}`, o.key) },
  {
    name: "POST /v1/directories",
    trips: 2,
    run: (o) =>
      api("POST", "/v1/directories", {
        key: o.operatorKey,
        body: doc("directory", { name: "D", slug: `rt-${crypto.randomUUID().slice(0, 8)}` }),
      }),
  },
  {
    name: "PATCH /v1/directories/{id}",
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/directories/${(await directory(o.operatorKey)).id}`, {
        key: o.operatorKey,
        body: doc("directory", { name: "D2" }),
      }),
  },
  { name: "GET /v1/directory_listings", trips: 2, run: (o) => get("/v1/directory_listings", o.key) },
  { name: "GET /v1/directory_listings/{id}", trips: 2, run: async (o) => get(`/v1/directory_listings/${(await listed(o)).id}`, o.key) },
  {
    name: "POST /v1/directory_listings",
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/directory_listings", {
        key: o.operatorKey,
        body: doc(
          "directory_listing",
          {},
          { directory: rel("directory", (await directory(o.operatorKey)).id), organization: rel("organization", o.id) },
        ),
      }),
  },
  {
    name: "PATCH /v1/directory_listings/{id}",
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/directory_listings/${(await listed(o)).id}`, { key: o.key, body: doc("directory_listing", { visible: false }) }),
  },
  {
    name: "DELETE /v1/directory_listings/{id}",
    trips: 3,
    run: async (o) => api("DELETE", `/v1/directory_listings/${(await listed(o)).id}`, { key: o.operatorKey }),
  },
  {
    name: "GET /v1/directory_listings/{id}/items",
    trips: 2,
    run: async (o) => get(`/v1/directory_listings/${(await listed(o)).id}/items`, o.key),
  },
  {
    name: "POST /v1/directory_listings/{id}/items",
    trips: 3,
    run: async (o) =>
      api("POST", `/v1/directory_listings/${(await listed(o)).id}/items`, {
        key: o.key,
        body: doc("directory_listing_item", { listable_type: "Brief", listable_id: await publishedBrief(o) }),
      }),
  },
  {
    name: "PATCH /v1/directory_listings/{id}/items/reorder",
    trips: 3,
    run: async (o) => {
      const l = await listed(o);
      const item = await api("POST", `/v1/directory_listings/${l.id}/items`, {
        key: o.key,
        body: doc("directory_listing_item", { listable_type: "Brief", listable_id: await publishedBrief(o) }),
      });
      return api("PATCH", `/v1/directory_listings/${l.id}/items/reorder`, {
        key: o.key,
        body: { data: [{ type: "directory_listing_item", id: item.body.data.id }] },
      });
    },
  },
  {
    name: "DELETE /v1/directory_listings/{id}/items/{id}",
    trips: 3,
    run: async (o) => {
      const l = await listed(o);
      const item = await api("POST", `/v1/directory_listings/${l.id}/items`, {
        key: o.key,
        body: doc("directory_listing_item", { listable_type: "Brief", listable_id: await publishedBrief(o) }),
      });
      return api("DELETE", `/v1/directory_listings/${l.id}/items/${item.body.data.id}`, { key: o.key });
    },
  },
  {
    name: "GET /v1/p/directories/{slug} (miss)",
    trips: 1,
    run: async (o) => get(`/v1/p/directories/${(await directory(o.operatorKey)).attributes.slug}`),
  },
  {
    name: "GET /v1/p/directories/{slug} (hit)",
    trips: 0,
    run: async (o) => {
      const path = `/v1/p/directories/${(await directory(o.operatorKey)).attributes.slug}`;
      await get(path);
      return get(path);
    },
  },
  { name: "GET /v1/vulns/{id}/comments", trips: 2, run: async (o) => get(`/v1/vulns/${(await commented(o)).vulnId}/comments`, o.key) },
  {
    name: "POST /v1/vulns/{id}/comments",
    trips: 2,
    run: async (o) =>
      api("POST", `/v1/vulns/${(await newVuln(o)).id}/comments`, { key: o.key, body: doc("comment", { body: "Fixed" }), env: quiet }),
  },
  {
    name: "POST /v1/vulns/{id}/comments (with Idempotency-Key)",
    trips: 3,
    run: async (o) =>
      api("POST", `/v1/vulns/${(await newVuln(o)).id}/comments`, {
        key: o.key,
        body: doc("comment", { body: "Fixed" }),
        headers: { "Idempotency-Key": crypto.randomUUID() },
        env: quiet,
      }),
  },
  { name: "GET /v1/vulns/{id}/comments/{comment_id}", trips: 2, run: async (o) => get((await commented(o)).self, o.key) },
  {
    name: "DELETE /v1/vulns/{id}/comments/{comment_id}",
    trips: 2,
    run: async (o) => api("DELETE", (await commented(o)).self, { key: o.key }),
  },
  {
    name: "GET /v1/vulns/{id}/regulatory_reports",
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await newVuln(o)).id}/regulatory_reports`, o.key),
  },
  {
    name: "POST /v1/vulns/{id}/regulatory_reports",
    trips: 3,
    run: async (o) =>
      api("POST", `/v1/vulns/${(await newVuln(o)).id}/regulatory_reports`, {
        key: o.key,
        body: doc("regulatory_report", { kind: "early_warning", submitted_at: "2026-01-01T00:00:00Z", body: "Filed" }),
      }),
  },
  {
    name: "GET /v1/vulns/{id}/regulatory_reports/{report_id}",
    trips: 2,
    run: async (o) => {
      const filed = await api("POST", `/v1/vulns/${(await newVuln(o)).id}/regulatory_reports`, {
        key: o.key,
        body: doc("regulatory_report", { kind: "notification", submitted_at: "2026-01-01T00:00:00Z", body: "Filed" }),
      });
      return get(filed.body.data.links.self, o.key);
    },
  },
  {
    name: "GET /v1/vulns/{id}/regulatory_reports/draft",
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await newVuln(o)).id}/regulatory_reports/draft?kind=notification`, o.key),
  },
  { name: "GET /v1/p/report", trips: 1, run: async (o) => asReporter("GET", "/v1/p/report", (await submitReport(o)).token) },
  {
    name: "GET /v1/p/report/comments",
    trips: 2,
    run: async (o) => asReporter("GET", "/v1/p/report/comments", (await submitReport(o)).token),
  },
  {
    name: "POST /v1/p/report/comments",
    trips: 2,
    run: async (o) =>
      asReporter("POST", "/v1/p/report/comments", (await submitReport(o)).token, {
        body: doc("comment", { body: "Any news?" }),
        env: quiet,
      }),
  },
  {
    name: "GET /v1/p/report/comments/{comment_id}",
    trips: 2,
    run: async () => {
      const f = await reporterFixture();
      return asReporter("GET", `/v1/p/report/comments/${f.commentId}`, f.report.token);
    },
  },
  {
    name: "GET /v1/p/report/attachments",
    trips: 2,
    run: async (o) => asReporter("GET", "/v1/p/report/attachments", (await submitReport(o)).token),
  },
  {
    name: "POST /v1/p/report/attachments (Vuln::Updated in the file's batch)",
    trips: 3,
    run: async (o) =>
      reporterUpload((await submitReport(o)).token, "print('poc')\n", "poc.py", { contentType: "text/x-python", env: quiet }),
  },
  {
    name: "GET /v1/p/report/attachments/{attachment_id}",
    trips: 2,
    run: async () => {
      const f = await reporterFixture();
      return asReporter("GET", `/v1/p/report/attachments/${f.attachmentId}`, f.report.token);
    },
  },
  {
    name: "GET /v1/p/report/attachments/{attachment_id}/content",
    trips: 2,
    run: async () => {
      const f = await reporterFixture();
      return asReporter("GET", `/v1/p/report/attachments/${f.attachmentId}/content`, f.report.token);
    },
  },
  {
    name: "PATCH /v1/p/report",
    trips: 2,
    run: async (o) =>
      asReporter("PATCH", "/v1/p/report", (await submitReport(o)).token, {
        body: doc("report", { credit_name: "Jane", credit_consent: true }),
      }),
  },
  { name: "GET /v1/advisories", trips: 2, run: (o) => get("/v1/advisories", o.key) },
  { name: "GET /v1/advisories/{id}", trips: 2, run: async (o) => get(`/v1/advisories/${await advisory(o, "draft")}`, o.key) },
  {
    name: "POST /v1/advisories (a draft)",
    trips: 3,
    run: async (o) => api("POST", "/v1/advisories", { key: o.key, body: advisoryDoc((await newVuln(o)).id, "draft"), env: quiet }),
  },
  {
    name: "POST /v1/advisories (published at once)",
    trips: 3,
    run: async (o) => api("POST", "/v1/advisories", { key: o.key, body: advisoryDoc((await newVuln(o)).id, "published"), env: quiet }),
  },
  {
    name: "PATCH /v1/advisories/{id} (a new revision)",
    trips: 3,
    run: async (o) => {
      const id = await advisory(o, "published");
      return api("PATCH", `/v1/advisories/${id}`, {
        key: o.key,
        body: doc("advisory", { title: "New", revision_note: "Retitled" }),
        env: quiet,
      });
    },
  },
  {
    name: "DELETE /v1/advisories/{id}",
    trips: 2,
    run: async (o) => api("DELETE", `/v1/advisories/${await advisory(o, "draft")}`, { key: o.key }),
  },
  {
    name: "GET /v1/advisories/{id}/revisions",
    trips: 2,
    run: async (o) => get(`/v1/advisories/${await advisory(o, "published")}/revisions`, o.key),
  },
  {
    name: "GET /v1/advisories/{id}/revisions/{number}",
    trips: 2,
    run: async (o) => get(`/v1/advisories/${await advisory(o, "published")}/revisions/1`, o.key),
  },
  { name: "GET /v1/p/advisories/{id} (miss)", trips: 1, run: async (o) => get(`/v1/p/advisories/${await advisory(o, "published")}`) },
  {
    name: "GET /v1/p/advisories/{id} (hit)",
    trips: 0,
    run: async (o) => {
      const path = `/v1/p/advisories/${await advisory(o, "published")}`;
      await get(path);
      return get(path);
    },
  },
  {
    name: "GET /v1/p/advisories/{id}/csaf (miss)",
    trips: 1,
    run: async (o) => get(`/v1/p/advisories/${await advisory(o, "published")}/csaf`),
  },
  { name: "GET /v1/openapi.json", trips: 0, run: () => get("/v1/openapi.json") },
];

const advisoryDoc = (vulnId: string, state: string) =>
  doc(
    "advisory",
    {
      title: "Open redirect",
      summary: "Redirects anywhere.",
      state,
      affected: [{ vendor: "Acme", product: "Widget", versions: [{ version: "1.0.0", status: "affected" }] }],
    },
    { vulns: { data: [{ type: "vuln", id: vulnId }] } },
  );
async function advisory(o: TestOrganization, state: "draft" | "published"): Promise<string> {
  const res = await api("POST", "/v1/advisories", { key: o.key, body: advisoryDoc((await newVuln(o)).id, state), env: quiet });
  if (res.status !== 201) throw new Error(`advisory: ${res.status} ${res.text}`);
  return res.body.data.id;
}

async function commented(o: TestOrganization) {
  const vulnId = (await newVuln(o)).id;
  const made = await api("POST", `/v1/vulns/${vulnId}/comments`, { key: o.key, body: doc("comment", { body: "Note" }), env: quiet });
  return { vulnId, self: made.body.data.links.self as string };
}

async function listed(o: TestOrganization) {
  return listing(o.operatorKey, (await directory(o.operatorKey)).id, o.id) as Promise<{ id: string }>;
}

const quiet = { EVENTS: fakeQueue().queue };
const publishedBrief = async (o: TestOrganization) => (await brief(o, { published_at: PUBLISHED })).id as string;
const vulnDoc = (briefId: string, attributes: Record<string, unknown> = {}) => ({
  data: { type: "vuln", attributes: { title: "T", description: "D", ...attributes }, relationships: { brief: rel("brief", briefId) } },
});
/** An upload whose bytes are JSON text, so the download parses like any answer here. */
function attach(o: TestOrganization, vulnId: string, headers: Record<string, string> = {}) {
  return api("POST", `/v1/vulns/${vulnId}/attachments?filename=poc.json`, {
    key: o.key,
    rawBody: '{"poc":true}',
    contentType: "application/json",
    headers,
  });
}
async function attachedVuln(o: TestOrganization) {
  const vulnId = (await newVuln(o)).id;
  return { vulnId, self: (await attach(o, vulnId)).body.data.links.self as string };
}
async function newVuln(o: TestOrganization, briefId?: string) {
  const res = await api("POST", "/v1/vulns", { key: o.key, body: vulnDoc(briefId ?? (await publishedBrief(o))), env: quiet });
  return res.body.data as { id: string };
}

describe("D1 round trips per request", () => {
  const measured: Record<string, number> = {};

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const res = await c.run(org);
    expect(res.status).toBeLessThan(300);
    measured[c.name] = res.roundTrips;
    expect(res.roundTrips).toBe(c.trips);
    const isRead = c.name.startsWith("GET");
    expect(res.roundTrips).toBeLessThanOrEqual(c.budget ?? (isRead ? 2 : 3));
  });

  it("prints the table", () => {
    console.log(["| request | D1 round trips |", "|---|---|", ...Object.entries(measured).map(([n, t]) => `| ${n} | ${t} |`)].join("\n"));
    expect(Object.keys(measured)).toHaveLength(CASES.length);
  });
});
