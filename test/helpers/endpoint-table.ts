// The authenticated API's endpoints as plain data, free of the Worker's test runtime, so the tests
// inside workerd (tenancy, operator powers) and the Node-side ones (every answer against its
// documented schema) walk the same list.

/** The organization a fixture belongs to: its id, its own key and an operator's key. */
export interface FixtureOrganization {
  id: string;
  key: string;
  operatorKey: string;
}

/** What one organization owns, for endpoints that need ids. */
export interface Fixture<O extends FixtureOrganization = FixtureOrganization> {
  org: O;
  policyId: string;
  assetId: string;
  briefId: string;
  /** A published brief no report came through, so it can be deleted. */
  spareBriefId: string;
  apiKeyId: string;
  vulnId: string;
  /** An attachment of the vuln, whose bytes are JSON text (the generators parse every answer). */
  attachmentId: string;
  /** A comment on the vuln. */
  commentId: string;
  /** A regulatory report (a filing) on the vuln. */
  regulatoryReportId: string;
  webhookId: string;
  deliveryId: string;
  /** Where the webhooks made for the fixture send (default: the factories' https://hooks.example.com/vdp). */
  webhookUrl?: string;
  /** A contact, and the e-mail that asked it to confirm its address (the notification log's). */
  contactId: string;
  notificationId: string;
  /** A published advisory about the vuln (it has revision 1), and a draft one, which may be deleted. */
  advisoryId: string;
  draftAdvisoryId: string;
  directoryId: string;
  /** A directory the organization is not listed in. */
  spareDirectoryId: string;
  listingId: string;
  itemId: string;
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
  /**
   * Every write (POST, PATCH, DELETE) says what an operator key may do there: "any" organization's,
   * only an "unclaimed" organization's (a claimed one's is 403), or "never" (403).
   */
  operator?: "any" | "unclaimed" | "never";
  /** The code another organization gets where it is not "not_found" (routes under a vuln: "vuln_not_found"). */
  notFound?: "vuln_not_found";
  /** Its success status where it is not the method's usual one (201 for POST, 204 for DELETE, else 200). */
  success?: number;
}

const doc =
  (type: string, attributes: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  () => ({
    data: { type, attributes, ...extra },
  });
/** A create that names the fixture's organization, as an operator must (its own key may too). */
const owned = (type: string, attributes: Record<string, unknown>) => (f: Fixture) => ({
  data: { type, attributes, relationships: { organization: { data: { type: "organization", id: f.org.id } } } },
});

/** Every authenticated endpoint of the API. The OpenAPI test checks this list against the document. */
export const ENDPOINTS: Endpoint[] = [
  { method: "GET", path: () => "/v1/organizations" },
  { method: "GET", path: (f) => `/v1/organizations/${f.org.id}`, owned: true },
  {
    method: "POST",
    path: () => "/v1/organizations",
    body: (f) => doc("organization", { name: "X", slug: `x-${f.org.id.slice(-12)}` })(),
    operatorOnly: true,
    operator: "any",
  },
  {
    method: "PATCH",
    path: (f) => `/v1/organizations/${f.org.id}`,
    body: doc("organization", { name: "Renamed" }),
    operatorOnly: true,
    operator: "any",
  },
  { method: "POST", path: (f) => `/v1/organizations/${f.org.id}/api_keys`, body: doc("api_key"), operatorOnly: true, operator: "any" },
  { method: "GET", path: (f) => `/v1/organizations/${f.org.id}/api_keys`, operatorOnly: true },
  { method: "GET", path: (f) => `/v1/api_keys/${f.apiKeyId}`, operatorOnly: true },
  { method: "DELETE", path: (f) => `/v1/api_keys/${f.apiKeyId}`, operatorOnly: true, operator: "any" },
  { method: "GET", path: () => "/v1/policies" },
  { method: "POST", path: () => "/v1/policies", body: owned("policy", { name: "P" }), operator: "unclaimed" },
  { method: "GET", path: (f) => `/v1/policies/${f.policyId}`, owned: true },
  { method: "GET", path: (f) => `/v1/policies/${f.policyId}/versions`, owned: true },
  { method: "GET", path: (f) => `/v1/policies/${f.policyId}/versions/1`, owned: true },
  {
    method: "PATCH",
    path: (f) => `/v1/policies/${f.policyId}`,
    body: doc("policy", { name: "Changed" }),
    owned: true,
    operator: "unclaimed",
  },
  // An action, not a create: 200 with the policy. The fixture's policy has a custom domain.
  {
    method: "POST",
    path: (f) => `/v1/policies/${f.policyId}/verify_custom_domain`,
    ownedBy: (f) => `/v1/policies/${f.policyId}`,
    operator: "unclaimed",
    success: 200,
  },
  { method: "DELETE", path: (f) => `/v1/policies/${f.policyId}`, owned: true, operator: "unclaimed" },
  { method: "GET", path: () => "/v1/assets" },
  {
    method: "POST",
    path: () => "/v1/assets",
    body: owned("asset", { kind: "domain", value: "tenancy.example.com" }),
    operator: "unclaimed",
  },
  { method: "GET", path: (f) => `/v1/assets/${f.assetId}`, owned: true },
  {
    method: "PATCH",
    path: (f) => `/v1/assets/${f.assetId}`,
    body: doc("asset", { short_description: "Changed" }),
    owned: true,
    operator: "unclaimed",
  },
  { method: "DELETE", path: (f) => `/v1/assets/${f.assetId}`, owned: true, operator: "unclaimed" },
  { method: "GET", path: () => "/v1/briefs" },
  { method: "POST", path: () => "/v1/briefs", body: owned("brief", { name: "B" }), operator: "unclaimed" },
  { method: "GET", path: (f) => `/v1/briefs/${f.briefId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/briefs/${f.briefId}`, body: doc("brief", { name: "Changed" }), owned: true, operator: "unclaimed" },
  { method: "DELETE", path: (f) => `/v1/briefs/${f.spareBriefId}`, owned: true, operator: "unclaimed" },
  { method: "GET", path: () => "/v1/vulns" },
  { method: "POST", path: () => "/v1/vulns", body: (f) => vulnDoc(f.briefId), operator: "never" },
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}`, owned: true },
  { method: "PATCH", path: (f) => `/v1/vulns/${f.vulnId}`, body: (f) => vulnDoc(f.briefId), owned: true, operator: "never" },
  { method: "DELETE", path: (f) => `/v1/vulns/${f.vulnId}`, owned: true, operator: "never" },
  {
    method: "PATCH",
    path: () => "/v1/vulns",
    body: (f) => ({ data: [{ type: "vuln", id: f.vulnId, attributes: { severity: "low" } }] }),
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
  },
  // Under another organization's vuln these answer vuln_not_found, as the vuln itself does.
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}/attachments`, ownedBy: (f) => `/v1/vulns/${f.vulnId}`, notFound: "vuln_not_found" },
  {
    method: "POST",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments?filename=proof.txt`,
    body: () => "proof",
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
  },
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}`, owned: true },
  {
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}/content`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}`,
    notFound: "vuln_not_found",
  },
  { method: "DELETE", path: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}`, owned: true, operator: "never" },
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}/comments`, ownedBy: (f) => `/v1/vulns/${f.vulnId}`, notFound: "vuln_not_found" },
  {
    method: "POST",
    path: (f) => `/v1/vulns/${f.vulnId}/comments`,
    body: () => ({ data: { type: "comment", attributes: { body: "Reply", visibility: "reporter" } } }),
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
  },
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}/comments/${f.commentId}`, owned: true },
  { method: "DELETE", path: (f) => `/v1/vulns/${f.vulnId}/comments/${f.commentId}`, owned: true, operator: "never" },
  {
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  {
    method: "POST",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports`,
    body: () => ({
      data: { type: "regulatory_report", attributes: { kind: "notification", submitted_at: "2026-01-02T03:04:05Z", body: "Filed text" } },
    }),
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
  },
  {
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports/draft?kind=early_warning`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  { method: "GET", path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports/${f.regulatoryReportId}`, owned: true },
  { method: "GET", path: () => "/v1/webhook_event_types" },
  { method: "GET", path: () => "/v1/metrics" },
  { method: "GET", path: () => `/v1/webhook_event_types/${EVENT_TYPE_ID}` },
  { method: "GET", path: () => "/v1/contacts" },
  {
    method: "POST",
    path: () => "/v1/contacts",
    body: (f) =>
      owned("contact", {
        name: "Responder",
        email: `r-${f.org.id.slice(-12)}-${Math.random().toString(36).slice(2)}@acme.example`,
        role: "responder",
      })(f),
    operator: "never",
  },
  { method: "GET", path: (f) => `/v1/contacts/${f.contactId}`, owned: true },
  {
    method: "PATCH",
    path: (f) => `/v1/contacts/${f.contactId}`,
    body: () => ({ data: { type: "contact", attributes: { name: "Renamed" } } }),
    owned: true,
    operator: "never",
  },
  { method: "DELETE", path: (f) => `/v1/contacts/${f.contactId}`, owned: true, operator: "never" },
  { method: "GET", path: () => "/v1/advisories" },
  {
    method: "POST",
    path: () => "/v1/advisories",
    body: (f) => ({
      data: {
        type: "advisory",
        attributes: {
          title: "Another advisory",
          affected: [{ vendor: "Acme", product: "Widget", versions: [{ version: "1.0.0", status: "affected" }] }],
        },
        relationships: { vulns: { data: [{ type: "vuln", id: f.vulnId }] } },
      },
    }),
    operator: "never",
  },
  { method: "GET", path: (f) => `/v1/advisories/${f.advisoryId}`, owned: true },
  {
    method: "PATCH",
    path: (f) => `/v1/advisories/${f.advisoryId}`,
    body: () => ({
      data: { type: "advisory", attributes: { title: `Retitled ${Math.random().toString(36).slice(2)}`, revision_note: "Clearer title" } },
    }),
    owned: true,
    operator: "never",
  },
  { method: "DELETE", path: (f) => `/v1/advisories/${f.draftAdvisoryId}`, owned: true, operator: "never" },
  { method: "GET", path: (f) => `/v1/advisories/${f.advisoryId}/revisions`, owned: true },
  { method: "GET", path: (f) => `/v1/advisories/${f.advisoryId}/revisions/1`, owned: true },
  { method: "GET", path: () => "/v1/notifications" },
  { method: "GET", path: (f) => `/v1/notifications/${f.notificationId}`, owned: true },
  { method: "GET", path: () => "/v1/webhooks" },
  {
    method: "POST",
    path: () => "/v1/webhooks",
    body: (f) => webhookDoc(f.webhookUrl ? { url: f.webhookUrl } : {}, f.org.id),
    operator: "never",
  },
  { method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}`, owned: true },
  {
    method: "PATCH",
    path: (f) => `/v1/webhooks/${f.webhookId}`,
    body: () => ({ data: { type: "webhook", attributes: { name: "Changed" } } }),
    owned: true,
    operator: "never",
  },
  { method: "DELETE", path: (f) => `/v1/webhooks/${f.webhookId}`, owned: true, operator: "never" },
  {
    method: "POST",
    path: (f) => `/v1/webhooks/${f.webhookId}/rotate_secret`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}`,
    operator: "never",
  },
  { method: "POST", path: (f) => `/v1/webhooks/${f.webhookId}/ping`, ownedBy: (f) => `/v1/webhooks/${f.webhookId}`, operator: "never" },
  { method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}/deliveries`, ownedBy: (f) => `/v1/webhooks/${f.webhookId}` },
  { method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}`, owned: true },
  {
    method: "POST",
    path: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}/redeliver`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}`,
    operator: "never",
  },
  { method: "GET", path: () => "/v1/directories" },
  { method: "GET", path: (f) => `/v1/directories/${f.directoryId}` },
  {
    method: "POST",
    path: () => "/v1/directories",
    body: (f) => ({ data: { type: "directory", attributes: { name: "D", slug: `d-${f.org.id.slice(-12)}` } } }),
    operatorOnly: true,
    operator: "any",
  },
  {
    method: "PATCH",
    path: (f) => `/v1/directories/${f.directoryId}`,
    body: () => ({ data: { type: "directory", attributes: { name: "Renamed" } } }),
    operatorOnly: true,
    operator: "any",
  },
  { method: "GET", path: () => "/v1/directory_listings" },
  {
    method: "POST",
    path: () => "/v1/directory_listings",
    body: (f) => ({
      data: {
        type: "directory_listing",
        relationships: {
          directory: { data: { type: "directory", id: f.spareDirectoryId } },
          organization: { data: { type: "organization", id: f.org.id } },
        },
      },
    }),
    operatorOnly: true,
    operator: "any",
  },
  { method: "GET", path: (f) => `/v1/directory_listings/${f.listingId}`, owned: true },
  {
    method: "PATCH",
    path: (f) => `/v1/directory_listings/${f.listingId}`,
    body: () => ({ data: { type: "directory_listing", attributes: { visible: false } } }),
    owned: true,
    operator: "any",
  },
  { method: "DELETE", path: (f) => `/v1/directory_listings/${f.listingId}`, operatorOnly: true, operator: "any" },
  { method: "GET", path: (f) => `/v1/directory_listings/${f.listingId}/items`, ownedBy: (f) => `/v1/directory_listings/${f.listingId}` },
  {
    method: "POST",
    path: (f) => `/v1/directory_listings/${f.listingId}/items`,
    body: (f) => ({ data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: f.policyId } } }),
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
    operator: "unclaimed",
  },
  {
    method: "PATCH",
    path: (f) => `/v1/directory_listings/${f.listingId}/items/reorder`,
    body: (f) => ({ data: [{ type: "directory_listing_item", id: f.itemId }] }),
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
    operator: "unclaimed",
  },
  {
    method: "DELETE",
    path: (f) => `/v1/directory_listings/${f.listingId}/items/${f.itemId}`,
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
    operator: "unclaimed",
  },
];

export const EVENT_TYPE_ID = "0b1e7f1a-5c52-5d7e-9a01-000000000001";

export function webhookDoc(attributes: Record<string, unknown> = {}, organizationId?: string) {
  return {
    data: {
      type: "webhook",
      attributes: { name: "Hook", url: "https://hooks.example.com/vdp", ...attributes },
      relationships: {
        trigger_event_types: { data: [{ type: "trigger_event_type", id: EVENT_TYPE_ID }] },
        ...(organizationId ? { organization: { data: { type: "organization", id: organizationId } } } : {}),
      },
    },
  };
}

function vulnDoc(briefId: string) {
  return {
    data: {
      type: "vuln",
      attributes: { title: "T", description: "D" },
      relationships: { brief: { data: { type: "brief", id: briefId } } },
    },
  };
}

export const label = (e: Endpoint) =>
  `${e.method} ${e.path({ org: { id: "{org}" }, policyId: "{id}", assetId: "{id}", briefId: "{id}", spareBriefId: "{id}", apiKeyId: "{id}", vulnId: "{id}", attachmentId: "{attachment_id}", commentId: "{comment_id}", regulatoryReportId: "{report_id}", webhookId: "{id}", deliveryId: "{delivery_id}", directoryId: "{id}", spareDirectoryId: "{id}", listingId: "{directory_listing_id}", itemId: "{id}", contactId: "{id}", notificationId: "{id}", advisoryId: "{id}", draftAdvisoryId: "{id}" } as never)}`
    // The document names a listing {id} in its own paths and {directory_listing_id} under /items.
    .replace(/\?.*$/, "")
    // A policy version is named by its number (the fixture's is 1).
    .replace(/\/versions\/1$/, "/versions/{number}")
    .replace(/\/revisions\/1$/, "/revisions/{number}")
    .replace(/^(\w+ \/v1\/directory_listings\/)\{directory_listing_id\}$/, "$1{id}");
