import { beforeAll, describe, expect, it } from "vitest";
import { api, get } from "../helpers/api";
import { fakeDns } from "../helpers/dns";
import { fakeQueue } from "../helpers/events";
import { endpoint, template, webhookDoc } from "../helpers/endpoints";
import { asset, brief, directory, listing, organization, policy, PUBLISHED, webhook, type TestOrganization } from "../helpers/factories";
import { asReporter, reporterFixture, reporterUpload, submitReport } from "../helpers/reporter";
import { sharded } from "../helpers/shards";

// Each D1 query is a network round trip at the edge. Budgets (issue 2): an authenticated read costs at
// most 2 (key lookup + one query or batch), a write at most 3, a public read from cache none. The
// table holds the exact figures, so an extra query fails here and the table in docs/round-trips.md stays true.

/** A case's name: its operation as the document names it (from the endpoint table), and what sets the case apart. */
const at = (operationId: string, variant = "") => `${template(endpoint(operationId))}${variant}`;

type Case = {
  name: string;
  trips: number;
  /** Above the usual budget, said so in the table with the reason. */
  budget?: number;
  run: (o: TestOrganization) => Promise<{ status: number; roundTrips: number; catalogTrips: number }>;
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

const cannedDoc = () =>
  doc("canned_response", { name: `Thanks ${crypto.randomUUID()}`, body: "Thank you, {{reporter_name}}.", visibility: "reporter" });
async function canned(o: TestOrganization) {
  const res = await api("POST", "/v1/canned_responses", { key: o.key, body: cannedDoc() });
  if (res.status !== 201) throw new Error(`canned response: ${res.status} ${res.text}`);
  return res.body.data as { id: string };
}

const memberDoc = () => doc("member", { email: `lee-${crypto.randomUUID()}@acme.example`, role: "viewer" });
async function member(o: TestOrganization) {
  const res = await api("POST", "/v1/members", { key: o.key, body: memberDoc() });
  if (res.status !== 201) throw new Error(`member: ${res.status} ${res.text}`);
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
  { name: at("listOrganizations"), trips: 2, run: (o) => get("/v1/organizations", o.key) },
  { name: at("showOrganization"), trips: 2, run: (o) => get(`/v1/organizations/${o.id}`, o.key) },
  {
    name: at("createOrganization"),
    trips: 2,
    run: (o) =>
      api("POST", "/v1/organizations", {
        key: o.operatorKey,
        body: doc("organization", { name: "RT", slug: `rt-${crypto.randomUUID().slice(0, 8)}` }),
      }),
  },
  {
    name: at("createOrganization", " (with owner_email: the owner and the invitation in the same batch)"),
    trips: 2,
    run: (o) =>
      api("POST", "/v1/organizations", {
        key: o.operatorKey,
        body: doc("organization", { name: "RT", slug: `rt-${crypto.randomUUID().slice(0, 8)}`, owner_email: "owner@rt.example" }),
      }),
  },
  {
    name: at("updateOrganization"),
    trips: 2,
    run: (o) => api("PATCH", `/v1/organizations/${o.id}`, { key: o.operatorKey, body: doc("organization", { name: "RT" }) }),
  },
  {
    name: at("createOrganizationApiKey"),
    trips: 2,
    run: (o) => api("POST", `/v1/organizations/${o.id}/api_keys`, { key: o.operatorKey, body: doc("api_key") }),
  },
  { name: at("listOrganizationApiKeys"), trips: 2, run: (o) => get(`/v1/organizations/${o.id}/api_keys`, o.operatorKey) },
  { name: at("showApiKey"), trips: 2, run: (o) => get(`/v1/api_keys/${o.keyId}`, o.operatorKey) },
  {
    name: at("revokeApiKey"),
    trips: 2,
    run: async (o) => {
      const made = await api("POST", `/v1/organizations/${o.id}/api_keys`, { key: o.operatorKey, body: doc("api_key") });
      return api("DELETE", `/v1/api_keys/${made.body.data.id}`, { key: o.operatorKey });
    },
  },
  { name: at("listApiKeys"), trips: 2, run: (o) => get("/v1/api_keys", o.key) },
  {
    name: at("createApiKey"),
    trips: 2,
    run: (o) => api("POST", "/v1/api_keys", { key: o.key, body: doc("api_key", { scopes: ["read"], expires_at: "2099-01-01T00:00:00Z" }) }),
  },
  {
    name: at("revokeApiKey", " (the organization's own key)"),
    trips: 2,
    run: async (o) => {
      const made = await api("POST", "/v1/api_keys", { key: o.key, body: doc("api_key") });
      return api("DELETE", `/v1/api_keys/${made.body.data.id}`, { key: o.key });
    },
  },
  {
    name: at("listPolicies", " (a key used from a new address: the audit row after the answer)"),
    trips: 3,
    budget: 3,
    run: (o) => get("/v1/policies", o.key, { headers: { "CF-Connecting-IP": `192.0.2.${Math.floor(Math.random() * 250)}` } }),
  },
  { name: at("listPolicies"), trips: 2, run: (o) => get("/v1/policies", o.key) },
  { name: at("showPolicy"), trips: 2, run: async (o) => get(`/v1/policies/${(await policy(o)).id}`, o.key) },
  { name: at("createPolicy"), trips: 2, run: (o) => api("POST", "/v1/policies", { key: o.key, body: doc("policy", { name: "RT" }) }) },
  {
    name: at("createPolicy", " (with assets)"),
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/policies", {
        key: o.key,
        body: doc("policy", {}, { assets: { data: [{ type: "asset", id: (await asset(o)).id }] } }),
      }),
  },
  {
    name: at("createPolicy", " (operator, naming the organization)"),
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
    name: at("updatePolicy"),
    trips: 3,
    run: async (o) => api("PATCH", `/v1/policies/${(await policy(o)).id}`, { key: o.key, body: doc("policy", { name: "RT" }) }),
  },
  {
    name: at("updatePolicy", " (with assets)"),
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
    name: at("deletePolicy", " (read, then the delete with its unlisting)"),
    trips: 3,
    run: async (o) => api("DELETE", `/v1/policies/${(await policy(o)).id}`, { key: o.key }),
  },
  {
    name: at("verifyPolicyCustomDomain"),
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
  { name: at("listAssets"), trips: 2, run: (o) => get("/v1/assets", o.key) },
  { name: at("showAsset"), trips: 2, run: async (o) => get(`/v1/assets/${(await asset(o)).id}`, o.key) },
  {
    name: at("createAsset"),
    trips: 2,
    run: (o) =>
      api("POST", "/v1/assets", { key: o.key, body: doc("asset", { kind: "domain", value: `${crypto.randomUUID()}.example.com` }) }),
  },
  {
    name: at("updateAsset", " (kind and value, or neither)"),
    trips: 2,
    run: async (o) => api("PATCH", `/v1/assets/${(await asset(o)).id}`, { key: o.key, body: doc("asset", { short_description: "RT" }) }),
  },
  {
    name: at("updateAsset", " (value alone)"),
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/assets/${(await asset(o)).id}`, {
        key: o.key,
        body: doc("asset", { value: `${crypto.randomUUID()}.example.com` }),
      }),
  },
  {
    name: at("deleteAsset", " (its vulns get Vuln::Updated)"),
    trips: 3,
    run: async (o) => api("DELETE", `/v1/assets/${(await asset(o)).id}`, { key: o.key }),
  },
  { name: at("listBriefs"), trips: 2, run: (o) => get("/v1/briefs", o.key) },
  { name: at("showBrief"), trips: 2, run: async (o) => get(`/v1/briefs/${(await brief(o)).id}`, o.key) },
  { name: at("createBrief"), trips: 2, run: (o) => api("POST", "/v1/briefs", { key: o.key, body: doc("brief", { name: "RT" }) }) },
  {
    name: at("createBrief", " (with policy)"),
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/briefs", { key: o.key, body: doc("brief", { name: "RT" }, { policy: rel("policy", (await policy(o)).id) }) }),
  },
  {
    name: at("updateBrief", " (with policy)"),
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/briefs/${(await brief(o)).id}`, {
        key: o.key,
        body: doc("brief", { name: "RT" }, { policy: rel("policy", (await policy(o)).id) }),
      }),
  },
  {
    name: at("deleteBrief", " (read, then the delete with its unlisting)"),
    trips: 3,
    run: async (o) => api("DELETE", `/v1/briefs/${(await brief(o)).id}`, { key: o.key }),
  },
  {
    name: at("showPublicBrief", " (miss)"),
    trips: 1,
    run: async (o) => get(`/v1/p/briefs/${(await brief(o, { published_at: PUBLISHED })).attributes.shortcode}`),
  },
  {
    name: at("showPublicBrief", " (hit)"),
    trips: 0,
    run: async (o) => {
      const path = `/v1/p/briefs/${(await brief(o, { published_at: PUBLISHED })).attributes.shortcode}`;
      await get(path);
      return get(path);
    },
  },
  { name: at("listVulns"), trips: 2, run: (o) => get("/v1/vulns", o.key) },
  {
    name: at("showVuln", " (first read: read_at and Vuln::Read in the same batch)"),
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await newVuln(o)).id}`, o.key),
  },
  {
    name: at("showVuln", " (later reads)"),
    trips: 2,
    run: async (o) => {
      const v = await newVuln(o);
      await get(`/v1/vulns/${v.id}`, o.key);
      return get(`/v1/vulns/${v.id}`, o.key);
    },
  },
  {
    name: at("createVuln"),
    trips: 3,
    run: async (o) =>
      api("POST", "/v1/vulns", { key: o.key, body: vulnDoc(await publishedBrief(o), { domains: ["a.example.com"] }), env: quiet }),
  },
  {
    name: at("createVuln", " (with Idempotency-Key)"),
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
    name: at("updateVuln", " (close)"),
    trips: 3,
    run: async (o) => {
      const briefId = await publishedBrief(o);
      const v = await newVuln(o, briefId);
      return api("PATCH", `/v1/vulns/${v.id}`, { key: o.key, body: vulnDoc(briefId, { processing_state: "closed" }), env: quiet });
    },
  },
  {
    name: at("deleteVuln"),
    trips: 2,
    run: async (o) => api("DELETE", `/v1/vulns/${(await newVuln(o)).id}`, { key: o.key, env: quiet }),
  },
  {
    name: at("updateVuln", " (triage alone, no brief named)"),
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/vulns/${(await newVuln(o)).id}`, {
        key: o.key,
        body: { data: { type: "vuln", attributes: { cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" } } },
        env: quiet,
      }),
  },
  {
    name: at("deleteVuln", " (with attachments: their keys ride in the delete's batch)"),
    trips: 2,
    run: async (o) => {
      const v = await newVuln(o);
      await attach(o, v.id);
      return api("DELETE", `/v1/vulns/${v.id}`, { key: o.key, env: quiet });
    },
  },
  {
    name: at("createVulnAttachment", " (the vuln and its usage, then the row)"),
    trips: 3,
    run: async (o) => attach(o, (await newVuln(o)).id),
  },
  {
    name: at("createVulnAttachment", " (with Idempotency-Key)"),
    trips: 3,
    run: async (o) => attach(o, (await newVuln(o)).id, { "Idempotency-Key": crypto.randomUUID() }),
  },
  {
    name: at("listVulnAttachments"),
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await attachedVuln(o)).vulnId}/attachments`, o.key),
  },
  { name: at("showVulnAttachment"), trips: 2, run: async (o) => get((await attachedVuln(o)).self, o.key) },
  {
    name: at("downloadVulnAttachment"),
    trips: 2,
    run: async (o) => get(`${(await attachedVuln(o)).self}/content`, o.key),
  },
  {
    name: at("deleteVulnAttachment"),
    trips: 2,
    run: async (o) => api("DELETE", (await attachedVuln(o)).self, { key: o.key }),
  },
  {
    name: at("createPublicVuln"),
    trips: 2,
    run: async (o) => {
      const shortcode = (await brief(o, { published_at: PUBLISHED })).attributes.shortcode;
      return api("POST", `/v1/p/briefs/${shortcode}/vulns`, {
        body: { data: { type: "vuln", attributes: { title: "T", description: "D" } } },
        env: quiet,
      });
    },
  },
  { name: at("listWebhookEventTypes", " (no query)"), trips: 1, run: (o) => get("/v1/webhook_event_types", o.key) },
  {
    name: at("listPolicyVersions"),
    trips: 2,
    run: async (o) => get(`/v1/policies/${(await policy(o)).id}/versions`, o.key),
  },
  {
    name: at("showPolicyVersion"),
    trips: 2,
    run: async (o) => get(`/v1/policies/${(await policy(o)).id}/versions/1`, o.key),
  },
  {
    name: at("showPublicPolicyVersion"),
    trips: 1,
    run: async (o) => api("GET", `/v1/p/policies/${(await policy(o, { published_at: PUBLISHED })).attributes.shortcode}/versions/1`),
  },
  { name: at("listContacts"), trips: 2, run: (o) => get("/v1/contacts", o.key) },
  { name: at("showContact"), trips: 2, run: async (o) => get(`/v1/contacts/${(await contact(o)).id}`, o.key) },
  { name: at("createContact"), trips: 3, run: (o) => api("POST", "/v1/contacts", { key: o.key, body: contactDoc() }) },
  {
    name: at("updateContact"),
    trips: 3,
    run: async (o) => {
      const id = (await contact(o)).id;
      return api("PATCH", `/v1/contacts/${id}`, {
        key: o.key,
        body: { data: { type: "contact", id, attributes: { email: `new-${id}@acme.example` } } },
      });
    },
  },
  { name: at("deleteContact"), trips: 2, run: async (o) => api("DELETE", `/v1/contacts/${(await contact(o)).id}`, { key: o.key }) },
  { name: at("listCannedResponses"), trips: 2, run: (o) => get("/v1/canned_responses", o.key) },
  { name: at("showCannedResponse"), trips: 2, run: async (o) => get(`/v1/canned_responses/${(await canned(o)).id}`, o.key) },
  { name: at("createCannedResponse"), trips: 2, run: (o) => api("POST", "/v1/canned_responses", { key: o.key, body: cannedDoc() }) },
  {
    name: at("updateCannedResponse"),
    trips: 2,
    run: async (o) => {
      const id = (await canned(o)).id;
      return api("PATCH", `/v1/canned_responses/${id}`, {
        key: o.key,
        body: { data: { type: "canned_response", id, attributes: { body: "Hi." } } },
      });
    },
  },
  {
    name: at("deleteCannedResponse"),
    trips: 2,
    run: async (o) => api("DELETE", `/v1/canned_responses/${(await canned(o)).id}`, { key: o.key }),
  },
  { name: at("listMembers"), trips: 2, run: (o) => get("/v1/members", o.key) },
  { name: at("showMember"), trips: 2, run: async (o) => get(`/v1/members/${(await member(o)).id}`, o.key) },
  { name: at("createMember"), trips: 3, run: (o) => api("POST", "/v1/members", { key: o.key, body: memberDoc() }) },
  {
    name: at("updateMember", " (a new role: the sessions end in the same batch)"),
    trips: 3,
    run: async (o) => {
      const id = (await member(o)).id;
      return api("PATCH", `/v1/members/${id}`, { key: o.key, body: { data: { type: "member", id, attributes: { role: "triager" } } } });
    },
  },
  { name: at("deleteMember"), trips: 3, run: async (o) => api("DELETE", `/v1/members/${(await member(o)).id}`, { key: o.key }) },
  {
    name: at("resendMemberInvitation"),
    trips: 3,
    run: async (o) => api("POST", `/v1/members/${(await member(o)).id}/invitation`, { key: o.key }),
  },
  {
    name: at("revokeMemberSessions"),
    trips: 3,
    run: async (o) => api("DELETE", `/v1/members/${(await member(o)).id}/sessions`, { key: o.key }),
  },
  { name: at("listNotifications"), trips: 2, run: (o) => get("/v1/notifications", o.key) },
  {
    name: at("showNotification"),
    trips: 2,
    run: async (o) => {
      await contact(o);
      return get(`/v1/notifications/${(await get("/v1/notifications", o.key)).body.data[0].id}`, o.key);
    },
  },
  { name: at("listAuditEvents"), trips: 2, run: (o) => get("/v1/audit_events?page[after]=", o.key) },
  {
    name: at("listAuditEvents", " (CSV)"),
    trips: 2,
    run: (o) => api("GET", "/v1/audit_events?q[action_eq]=api_key.create", { key: o.key, headers: { Accept: "text/csv" } }),
  },
  {
    name: at("showAuditEvent"),
    trips: 2,
    run: async (o) => get(`/v1/audit_events/${(await get("/v1/audit_events", o.key)).body.data[0].id}`, o.key),
  },
  { name: at("listWebhooks"), trips: 2, run: (o) => get("/v1/webhooks", o.key) },
  { name: at("showWebhook"), trips: 2, run: async (o) => get(`/v1/webhooks/${(await webhook(o)).id}`, o.key) },
  { name: at("createWebhook"), trips: 2, run: (o) => api("POST", "/v1/webhooks", { key: o.key, body: webhookDoc() }) },
  {
    name: at("updateWebhook"),
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/webhooks/${(await webhook(o)).id}`, {
        key: o.key,
        body: { data: { type: "webhook", attributes: { enabled: false } } },
      }),
  },
  { name: at("deleteWebhook"), trips: 2, run: async (o) => api("DELETE", `/v1/webhooks/${(await webhook(o)).id}`, { key: o.key }) },
  {
    name: at("rotateWebhookSecret"),
    trips: 3,
    run: async (o) => api("POST", `/v1/webhooks/${(await webhook(o)).id}/rotate_secret`, { key: o.key }),
  },
  {
    name: at("pingWebhook"),
    trips: 3,
    run: async (o) => api("POST", `/v1/webhooks/${(await webhook(o)).id}/ping`, { key: o.key }),
  },
  {
    name: at("listWebhookDeliveries"),
    trips: 2,
    run: async (o) => api("GET", `/v1/webhooks/${(await webhook(o)).id}/deliveries`, { key: o.key }),
  },
  {
    name: at("showWebhookDelivery"),
    trips: 2,
    run: async (o) => {
      const w = await webhook(o);
      const d = await api("POST", `/v1/webhooks/${w.id}/ping`, { key: o.key });
      return get(`/v1/webhooks/${w.id}/deliveries/${d.body.data.id}`, o.key);
    },
  },
  {
    name: at("redeliverWebhookDelivery"),
    trips: 3,
    run: async (o) => {
      const w = await webhook(o);
      const d = await api("POST", `/v1/webhooks/${w.id}/ping`, { key: o.key });
      return api("POST", `/v1/webhooks/${w.id}/deliveries/${d.body.data.id}/redeliver`, { key: o.key });
    },
  },
  { name: at("listDirectories"), trips: 2, run: (o) => get("/v1/directories", o.key) },
  { name: at("showDirectory"), trips: 2, run: async (o) => get(`/v1/directories/${(await directory(o.operatorKey)).id}`, o.key) },
  {
    name: at("createDirectory"),
    trips: 2,
    run: (o) =>
      api("POST", "/v1/directories", {
        key: o.operatorKey,
        body: doc("directory", { name: "D", slug: `rt-${crypto.randomUUID().slice(0, 8)}` }),
      }),
  },
  {
    name: at("updateDirectory"),
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/directories/${(await directory(o.operatorKey)).id}`, {
        key: o.operatorKey,
        body: doc("directory", { name: "D2" }),
      }),
  },
  { name: at("listDirectoryListings"), trips: 2, run: (o) => get("/v1/directory_listings", o.key) },
  { name: at("showDirectoryListing"), trips: 2, run: async (o) => get(`/v1/directory_listings/${(await listed(o)).id}`, o.key) },
  {
    name: at("createDirectoryListing"),
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
    name: at("updateDirectoryListing"),
    trips: 3,
    run: async (o) =>
      api("PATCH", `/v1/directory_listings/${(await listed(o)).id}`, { key: o.key, body: doc("directory_listing", { visible: false }) }),
  },
  {
    name: at("deleteDirectoryListing"),
    trips: 3,
    run: async (o) => api("DELETE", `/v1/directory_listings/${(await listed(o)).id}`, { key: o.operatorKey }),
  },
  {
    name: at("listDirectoryListingItems"),
    trips: 2,
    run: async (o) => get(`/v1/directory_listings/${(await listed(o)).id}/items`, o.key),
  },
  {
    name: at("createDirectoryListingItem"),
    trips: 3,
    run: async (o) =>
      api("POST", `/v1/directory_listings/${(await listed(o)).id}/items`, {
        key: o.key,
        body: doc("directory_listing_item", { listable_type: "Brief", listable_id: await publishedBrief(o) }),
      }),
  },
  {
    name: at("reorderDirectoryListingItems"),
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
    name: at("deleteDirectoryListingItem"),
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
    name: at("showPublicDirectory", " (miss)"),
    trips: 1,
    run: async (o) => get(`/v1/p/directories/${(await directory(o.operatorKey)).attributes.slug}`),
  },
  {
    name: at("showPublicDirectory", " (hit)"),
    trips: 0,
    run: async (o) => {
      const path = `/v1/p/directories/${(await directory(o.operatorKey)).attributes.slug}`;
      await get(path);
      return get(path);
    },
  },
  { name: at("listVulnComments"), trips: 2, run: async (o) => get(`/v1/vulns/${(await commented(o)).vulnId}/comments`, o.key) },
  {
    name: at("createVulnComment"),
    trips: 2,
    run: async (o) =>
      api("POST", `/v1/vulns/${(await newVuln(o)).id}/comments`, { key: o.key, body: doc("comment", { body: "Fixed" }), env: quiet }),
  },
  {
    name: at("createVulnComment", " (with Idempotency-Key)"),
    trips: 3,
    run: async (o) =>
      api("POST", `/v1/vulns/${(await newVuln(o)).id}/comments`, {
        key: o.key,
        body: doc("comment", { body: "Fixed" }),
        headers: { "Idempotency-Key": crypto.randomUUID() },
        env: quiet,
      }),
  },
  { name: at("showVulnComment"), trips: 2, run: async (o) => get((await commented(o)).self, o.key) },
  {
    name: at("deleteVulnComment"),
    trips: 2,
    run: async (o) => api("DELETE", (await commented(o)).self, { key: o.key }),
  },
  {
    name: at("listRegulatoryReports"),
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await newVuln(o)).id}/regulatory_reports`, o.key),
  },
  {
    name: at("createRegulatoryReport"),
    trips: 3,
    run: async (o) =>
      api("POST", `/v1/vulns/${(await newVuln(o)).id}/regulatory_reports`, {
        key: o.key,
        body: doc("regulatory_report", { kind: "early_warning", submitted_at: "2026-01-01T00:00:00Z", body: "Filed" }),
      }),
  },
  {
    name: at("showRegulatoryReport"),
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
    name: at("showRegulatoryReportDraft"),
    trips: 2,
    run: async (o) => get(`/v1/vulns/${(await newVuln(o)).id}/regulatory_reports/draft?kind=notification`, o.key),
  },
  { name: at("showReport"), trips: 1, run: async (o) => asReporter("GET", "/v1/p/report", (await submitReport(o)).token) },
  {
    name: at("listReportComments"),
    trips: 2,
    run: async (o) => asReporter("GET", "/v1/p/report/comments", (await submitReport(o)).token),
  },
  {
    name: at("createReportComment"),
    trips: 2,
    run: async (o) =>
      asReporter("POST", "/v1/p/report/comments", (await submitReport(o)).token, {
        body: doc("comment", { body: "Any news?" }),
        env: quiet,
      }),
  },
  {
    name: at("showReportComment"),
    trips: 2,
    run: async () => {
      const f = await reporterFixture();
      return asReporter("GET", `/v1/p/report/comments/${f.commentId}`, f.report.token);
    },
  },
  {
    name: at("listReportAttachments"),
    trips: 2,
    run: async (o) => asReporter("GET", "/v1/p/report/attachments", (await submitReport(o)).token),
  },
  {
    name: at("createReportAttachment", " (Vuln::Updated in the file's batch)"),
    trips: 3,
    run: async (o) =>
      reporterUpload((await submitReport(o)).token, "print('poc')\n", "poc.py", { contentType: "text/x-python", env: quiet }),
  },
  {
    name: at("showReportAttachment"),
    trips: 2,
    run: async () => {
      const f = await reporterFixture();
      return asReporter("GET", `/v1/p/report/attachments/${f.attachmentId}`, f.report.token);
    },
  },
  {
    name: at("downloadReportAttachment"),
    trips: 2,
    run: async () => {
      const f = await reporterFixture();
      return asReporter("GET", `/v1/p/report/attachments/${f.attachmentId}/content`, f.report.token);
    },
  },
  {
    name: at("updateReport"),
    trips: 2,
    run: async (o) =>
      asReporter("PATCH", "/v1/p/report", (await submitReport(o)).token, {
        body: doc("report", { credit_name: "Jane", credit_consent: true }),
      }),
  },
  { name: at("listAdvisories"), trips: 2, run: (o) => get("/v1/advisories", o.key) },
  { name: at("showAdvisory"), trips: 2, run: async (o) => get(`/v1/advisories/${await advisory(o, "draft")}`, o.key) },
  {
    name: at("createAdvisory", " (a draft)"),
    trips: 3,
    run: async (o) => api("POST", "/v1/advisories", { key: o.key, body: advisoryDoc((await newVuln(o)).id, "draft"), env: quiet }),
  },
  {
    name: at("createAdvisory", " (published at once)"),
    trips: 3,
    run: async (o) => api("POST", "/v1/advisories", { key: o.key, body: advisoryDoc((await newVuln(o)).id, "published"), env: quiet }),
  },
  {
    name: at("updateAdvisory", " (a new revision)"),
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
    name: at("deleteAdvisory"),
    trips: 2,
    run: async (o) => api("DELETE", `/v1/advisories/${await advisory(o, "draft")}`, { key: o.key }),
  },
  {
    name: at("listAdvisoryRevisions"),
    trips: 2,
    run: async (o) => get(`/v1/advisories/${await advisory(o, "published")}/revisions`, o.key),
  },
  {
    name: at("showAdvisoryRevision"),
    trips: 2,
    run: async (o) => get(`/v1/advisories/${await advisory(o, "published")}/revisions/1`, o.key),
  },
  { name: at("showPublicAdvisory", " (miss)"), trips: 1, run: async (o) => get(`/v1/p/advisories/${await advisory(o, "published")}`) },
  {
    name: at("showPublicAdvisory", " (hit)"),
    trips: 0,
    run: async (o) => {
      const path = `/v1/p/advisories/${await advisory(o, "published")}`;
      await get(path);
      return get(path);
    },
  },
  {
    name: at("showPublicAdvisoryCsaf", " (miss)"),
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

/**
 * The cases whose figures differ in a sharded world, as [all round trips, of them the catalog's]: a cold
 * lookup of a key, a token or a shortcode (1), names claimed or given back, an organization placed, an
 * operator's request by id asking every shard where its record is, a read or write of every shard.
 * Every other case costs exactly what it costs with one database, none of it in the catalog.
 */
const SHARDED = new Map<string, [number, number]>([
  ["GET /v1/organizations", [3, 1]],
  ["POST /v1/organizations", [5, 4]],
  ["POST /v1/organizations (with owner_email: the owner and the invitation in the same batch)", [6, 5]],
  ["PATCH /v1/organizations/{id}", [3, 2]],
  ["POST /v1/organizations/{id}/api_keys", [3, 2]],
  ["GET /v1/organizations/{id}/api_keys", [2, 1]],
  ["GET /v1/api_keys/{id}", [4, 1]],
  ["DELETE /v1/api_keys/{id}", [5, 2]],
  ["POST /v1/api_keys", [3, 1]],
  ["DELETE /v1/api_keys/{id} (the organization's own key)", [3, 1]],
  ["POST /v1/policies", [3, 1]],
  ["POST /v1/policies (with assets)", [4, 1]],
  ["POST /v1/policies (operator, naming the organization)", [4, 2]],
  ["DELETE /v1/policies/{id} (read, then the delete with its unlisting)", [4, 1]],
  ["POST /v1/briefs", [3, 1]],
  ["POST /v1/briefs (with policy)", [4, 1]],
  ["DELETE /v1/briefs/{id} (read, then the delete with its unlisting)", [4, 1]],
  ["GET /v1/p/briefs/{shortcode} (miss)", [2, 1]],
  ["POST /v1/p/briefs/{shortcode}/vulns", [4, 2]],
  ["GET /v1/p/policies/{shortcode}/versions/{number}", [2, 1]],
  ["POST /v1/contacts", [4, 1]],
  ["DELETE /v1/contacts/{id}", [3, 1]],
  ["POST /v1/members", [4, 1]],
  ["DELETE /v1/members/{id}", [4, 1]],
  ["POST /v1/directories", [4, 2]],
  ["PATCH /v1/directories/{id}", [5, 3]],
  ["POST /v1/directory_listings", [4, 2]],
  ["DELETE /v1/directory_listings/{id}", [6, 2]],
  ["GET /v1/p/directories/{slug} (miss)", [2, 0]],
  ["GET /v1/p/report", [2, 1]],
  ["GET /v1/p/report/comments", [3, 1]],
  ["POST /v1/p/report/comments", [3, 1]],
  ["GET /v1/p/report/comments/{comment_id}", [3, 1]],
  ["GET /v1/p/report/attachments", [3, 1]],
  ["POST /v1/p/report/attachments (Vuln::Updated in the file's batch)", [4, 1]],
  ["GET /v1/p/report/attachments/{attachment_id}", [3, 1]],
  ["GET /v1/p/report/attachments/{attachment_id}/content", [3, 1]],
  ["PATCH /v1/p/report", [3, 1]],
  ["POST /v1/advisories (a draft)", [4, 1]],
  ["POST /v1/advisories (published at once)", [4, 1]],
  ["DELETE /v1/advisories/{id}", [3, 1]],
  ["GET /v1/p/advisories/{id} (miss)", [2, 1]],
  ["GET /v1/p/advisories/{id}/csaf (miss)", [2, 1]],
]);

describe("D1 round trips per request", () => {
  const measured: Record<string, number> = {};

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const res = await c.run(org);
    expect(res.status).toBeLessThan(300);
    measured[c.name] = res.roundTrips;
    if (sharded()) {
      const [all, catalog] = SHARDED.get(c.name) ?? [c.trips, 0];
      expect([res.roundTrips, res.catalogTrips]).toEqual([all, catalog]);
      return;
    }
    expect(res.roundTrips).toBe(c.trips);
    const isRead = c.name.startsWith("GET");
    expect(res.roundTrips).toBeLessThanOrEqual(c.budget ?? (isRead ? 2 : 3));
  });

  it("prints the table", () => {
    console.log(["| request | D1 round trips |", "|---|---|", ...Object.entries(measured).map(([n, t]) => `| ${n} | ${t} |`)].join("\n"));
    expect(Object.keys(measured)).toHaveLength(CASES.length);
  });
});
