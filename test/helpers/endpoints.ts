import { post } from "./api";
import { asset, brief, directory, listing, organization, policy, PUBLISHED, vuln, webhook, type TestOrganization } from "./factories";

/** What one organization owns, for endpoints that need ids. */
export interface Fixture {
  org: TestOrganization;
  policyId: string;
  assetId: string;
  briefId: string;
  apiKeyId: string;
  vulnId: string;
  webhookId: string;
  deliveryId: string;
  directoryId: string;
  listingId: string;
  itemId: string;
}

export async function fixture(): Promise<Fixture> {
  const org = await organization();
  const p = await policy(org);
  const a = await asset(org);
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const k = await post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, { data: { type: "api_key", attributes: {} } });
  const v = await vuln(org, b.id);
  const w = await webhook(org);
  const d = await post(`/v1/webhooks/${w.id}/ping`, org.key, undefined);
  const dir = await directory(org.operatorKey);
  const l = await listing(org.operatorKey, dir.id, org.id);
  const item = await post(`/v1/directory_listings/${l.id}/items`, org.key, { data: { type: "directory_listing_item", attributes: { listable_type: "Brief", listable_id: b.id } } });
  return {
    org, policyId: p.id, assetId: a.id, briefId: b.id, apiKeyId: k.body.data.id, vulnId: v.id, webhookId: w.id, deliveryId: d.body.data.id,
    directoryId: dir.id, listingId: l.id, itemId: item.body.data.id,
  };
}

export interface Endpoint {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** Needs an operator key: organization keys get 403. */
  operatorOnly?: boolean;
  /** The path names a record of the fixture's organization: other organizations get 404. */
  owned?: boolean;
  /** An action on a record: other organizations get 404; the record is read back at this path. */
  ownedBy?: (f: Fixture) => string;
}

const doc = (type: string, attributes: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => () => ({
  data: { type, attributes, ...extra },
});

/** Every authenticated endpoint of the API. The OpenAPI test checks this list against the document. */
export const ENDPOINTS: Endpoint[] = [
  { method: "GET", path: () => "/v1/organizations" },
  { method: "GET", path: (f) => `/v1/organizations/${f.org.id}`, owned: true },
  { method: "POST", path: () => "/v1/organizations", body: doc("organization", { name: "X", slug: "tenancy-x" }), operatorOnly: true },
  { method: "PATCH", path: (f) => `/v1/organizations/${f.org.id}`, body: doc("organization", { name: "Renamed" }), operatorOnly: true },
  { method: "POST", path: (f) => `/v1/organizations/${f.org.id}/api_keys`, body: doc("api_key"), operatorOnly: true },
  { method: "GET", path: (f) => `/v1/organizations/${f.org.id}/api_keys`, operatorOnly: true },
  { method: "GET", path: (f) => `/v1/api_keys/${f.apiKeyId}`, operatorOnly: true },
  { method: "DELETE", path: (f) => `/v1/api_keys/${f.apiKeyId}`, operatorOnly: true },
  { method: "GET", path: () => "/v1/policies" },
  { method: "POST", path: () => "/v1/policies", body: doc("policy", { name: "P" }) },
  { method: "GET", path: (f) => `/v1/policies/${f.policyId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/policies/${f.policyId}`, body: doc("policy", { name: "Changed" }), owned: true },
  { method: "DELETE", path: (f) => `/v1/policies/${f.policyId}`, owned: true },
  { method: "GET", path: () => "/v1/assets" },
  { method: "POST", path: () => "/v1/assets", body: doc("asset", { kind: "domain", value: "tenancy.example.com" }) },
  { method: "GET", path: (f) => `/v1/assets/${f.assetId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/assets/${f.assetId}`, body: doc("asset", { short_description: "Changed" }), owned: true },
  { method: "DELETE", path: (f) => `/v1/assets/${f.assetId}`, owned: true },
  { method: "GET", path: () => "/v1/briefs" },
  { method: "POST", path: () => "/v1/briefs", body: doc("brief", { name: "B" }) },
  { method: "GET", path: (f) => `/v1/briefs/${f.briefId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/briefs/${f.briefId}`, body: doc("brief", { name: "Changed" }), owned: true },
  { method: "DELETE", path: (f) => `/v1/briefs/${f.briefId}`, owned: true },
  { method: "GET", path: () => "/v1/vulns" },
  { method: "POST", path: () => "/v1/vulns", body: (f) => vulnDoc(f.briefId) },
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/vulns/${f.vulnId}`, body: (f) => vulnDoc(f.briefId), owned: true },
  { method: "DELETE", path: (f) => `/v1/vulns/${f.vulnId}`, owned: true },
  { method: "GET", path: () => "/v1/webhook_event_types" },
  { method: "GET", path: () => `/v1/webhook_event_types/${EVENT_TYPE_ID}` },
  { method: "GET", path: () => "/v1/webhooks" },
  { method: "POST", path: () => "/v1/webhooks", body: () => webhookDoc() },
  { method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/webhooks/${f.webhookId}`, body: () => ({ data: { type: "webhook", attributes: { name: "Changed" } } }), owned: true },
  { method: "DELETE", path: (f) => `/v1/webhooks/${f.webhookId}`, owned: true },
  { method: "POST", path: (f) => `/v1/webhooks/${f.webhookId}/rotate_secret`, ownedBy: (f) => `/v1/webhooks/${f.webhookId}` },
  { method: "POST", path: (f) => `/v1/webhooks/${f.webhookId}/ping`, ownedBy: (f) => `/v1/webhooks/${f.webhookId}` },
  { method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}/deliveries`, ownedBy: (f) => `/v1/webhooks/${f.webhookId}` },
  { method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}`, owned: true },
  {
    method: "POST",
    path: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}/redeliver`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}`,
  },
  { method: "GET", path: () => "/v1/directories" },
  { method: "GET", path: (f) => `/v1/directories/${f.directoryId}` },
  { method: "POST", path: () => "/v1/directories", body: () => ({ data: { type: "directory", attributes: { name: "D", slug: "tenancy-dir" } } }), operatorOnly: true },
  { method: "PATCH", path: (f) => `/v1/directories/${f.directoryId}`, body: () => ({ data: { type: "directory", attributes: { name: "Renamed" } } }), operatorOnly: true },
  { method: "GET", path: () => "/v1/directory_listings" },
  {
    method: "POST",
    path: () => "/v1/directory_listings",
    body: (f) => ({ data: { type: "directory_listing", relationships: { directory: { data: { type: "directory", id: f.directoryId } }, organization: { data: { type: "organization", id: f.org.id } } } } }),
    operatorOnly: true,
  },
  { method: "GET", path: (f) => `/v1/directory_listings/${f.listingId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/directory_listings/${f.listingId}`, body: () => ({ data: { type: "directory_listing", attributes: { visible: false } } }), owned: true },
  { method: "DELETE", path: (f) => `/v1/directory_listings/${f.listingId}`, operatorOnly: true },
  { method: "GET", path: (f) => `/v1/directory_listings/${f.listingId}/items`, ownedBy: (f) => `/v1/directory_listings/${f.listingId}` },
  {
    method: "POST",
    path: (f) => `/v1/directory_listings/${f.listingId}/items`,
    body: (f) => ({ data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: f.policyId } } }),
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
  },
  {
    method: "PATCH",
    path: (f) => `/v1/directory_listings/${f.listingId}/items/reorder`,
    body: (f) => ({ data: [{ type: "directory_listing_item", id: f.itemId }] }),
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
  },
  { method: "DELETE", path: (f) => `/v1/directory_listings/${f.listingId}/items/${f.itemId}`, ownedBy: (f) => `/v1/directory_listings/${f.listingId}` },
];

export const EVENT_TYPE_ID = "0b1e7f1a-5c52-5d7e-9a01-000000000001";

export function webhookDoc(attributes: Record<string, unknown> = {}) {
  return {
    data: {
      type: "webhook",
      attributes: { name: "Hook", url: "https://hooks.example.com/vdp", ...attributes },
      relationships: { trigger_event_types: { data: [{ type: "trigger_event_type", id: EVENT_TYPE_ID }] } },
    },
  };
}

function vulnDoc(briefId: string) {
  return { data: { type: "vuln", attributes: { title: "T", description: "D" }, relationships: { brief: { data: { type: "brief", id: briefId } } } } };
}

export const label = (e: Endpoint) =>
  `${e.method} ${e.path({ org: { id: "{org}" }, policyId: "{id}", assetId: "{id}", briefId: "{id}", apiKeyId: "{id}", vulnId: "{id}", webhookId: "{id}", deliveryId: "{delivery_id}", directoryId: "{id}", listingId: "{directory_listing_id}", itemId: "{id}" } as never)}`
    // The document names a listing {id} in its own paths and {directory_listing_id} under /items.
    .replace(/^(\w+ \/v1\/directory_listings\/)\{directory_listing_id\}$/, "$1{id}");
