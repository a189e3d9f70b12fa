// The API's operations as plain data, free of the Worker's test runtime: the one table of operations
// the tests keep. The tests inside workerd (tenancy, operator powers, the reporter's generator, the
// fuzzer) and the Node-side ones (every answer against its documented schema) walk it, and the OpenAPI
// test checks it against the document both ways, operationIds included.

import { EVENT_TYPE_ID, webhookDoc, type Fixture } from "./fixture";
import { OPEN_ENDPOINTS } from "./open-endpoints";

export { EVENT_TYPE_ID, webhookDoc, type Fixture, type FixtureOrganization } from "./fixture";

export interface Endpoint {
  /** The document's operationId: a contract with every generated client, renamed only on purpose. */
  operationId: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** Who calls it where not an API key: nobody ("public"), or the reporter with the follow-up token. */
  caller?: "public" | "reporter";
  /** Its body is the file itself (an upload), not a JSON document. */
  raw?: boolean;
  /** The media type asked for where a client's default would get another answer (the root serves browsers a page). */
  accept?: string;
  /** Needs an operator key: organization keys get 403. */
  operatorOnly?: boolean;
  /** The path names a record of the fixture's organization: other organizations get 404. */
  owned?: boolean;
  /** An action on a record: other organizations get 404; the record is read back at this path. */
  ownedBy?: (f: Fixture) => string;
  /**
   * Every write (POST, PATCH, DELETE) with an API key says what an operator key may do there: "any"
   * organization's, only an "unclaimed" organization's (a claimed one's is 403), or "never" (403).
   */
  operator?: "any" | "unclaimed" | "never";
  /** The code another organization gets where it is not "not_found" (routes under a vuln: "vuln_not_found"). */
  notFound?: "vuln_not_found" | "brief_not_found";
  /** Its success status where it is not the method's usual one (201 for POST, 204 for DELETE, else 200). */
  success?: number;
  /**
   * What a write leaves in the audit log (every write says; test/http/audit-trail.test.ts holds it to
   * it): its action and target, by default the record a create made or the last id in the path; in the
   * fixture's organization's log unless it is the organization just made or the platform's own (null).
   */
  audit?: { action: string; target?: (f: Fixture) => string; organization?: "created" | "platform" };
  /**
   * The scope a key (or a member's role) acting for the organization needs, as the product defines it
   * (README, "Members and keys"), written here apart from the services' own mapping so that a wrong one
   * fails the scopes test: "read" for the organization's data, an area's scope for its changes, "none"
   * for what any key reads (shared catalogs). Every operation an organization's key may call says it.
   */
  scope?: "read" | "vulns" | "advisories" | "settings" | "members" | "none";
  /**
   * An organization's move between tenant databases (one database answers 409): it fences the organization it
   * moves, so the tests that make every write on a fixture (operator powers, the audit trail) leave it to
   * test/shards/, and the answers' test asks for it last.
   */
  shardedOnly?: true;
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

/** Every operation of the API. The OpenAPI test checks this list against the document. */
export const ENDPOINTS: Endpoint[] = [
  { operationId: "listOrganizations", scope: "read", method: "GET", path: () => "/v1/organizations" },
  { operationId: "showOrganization", scope: "read", method: "GET", path: (f) => `/v1/organizations/${f.org.id}`, owned: true },
  {
    operationId: "createOrganization",
    method: "POST",
    path: () => "/v1/organizations",
    body: (f) => doc("organization", { name: "X", slug: `x-${f.org.id.slice(-12)}` })(),
    operatorOnly: true,
    operator: "any",
    audit: { action: "organization.create", organization: "created" },
  },
  {
    operationId: "updateOrganization",
    method: "PATCH",
    path: (f) => `/v1/organizations/${f.org.id}`,
    body: doc("organization", { name: "Renamed" }),
    operatorOnly: true,
    operator: "any",
    audit: { action: "organization.update" },
  },
  {
    operationId: "moveOrganization",
    method: "POST",
    path: (f) => `/v1/organizations/${f.org.id}/move`,
    body: doc("organization_move", { to: "TENANT_2" }),
    operatorOnly: true,
    operator: "any",
    shardedOnly: true,
  },
  {
    operationId: "showOrganizationMove",
    method: "GET",
    path: (f) => `/v1/organizations/${f.org.id}/move`,
    operatorOnly: true,
    shardedOnly: true,
  },
  {
    operationId: "cancelOrganizationMove",
    method: "DELETE",
    path: (f) => `/v1/organizations/${f.org.id}/move`,
    operatorOnly: true,
    operator: "any",
    shardedOnly: true,
  },
  {
    operationId: "createOrganizationApiKey",
    method: "POST",
    path: (f) => `/v1/organizations/${f.org.id}/api_keys`,
    body: doc("api_key"),
    operatorOnly: true,
    operator: "any",
    audit: { action: "api_key.create" },
  },
  { operationId: "listOrganizationApiKeys", method: "GET", path: (f) => `/v1/organizations/${f.org.id}/api_keys`, operatorOnly: true },
  { operationId: "listApiKeys", scope: "read", method: "GET", path: () => "/v1/api_keys" },
  {
    operationId: "createApiKey",
    scope: "members",
    method: "POST",
    path: () => "/v1/api_keys",
    // Within the scopes of any key that may make keys (the `members` scope), so only the scope decides.
    body: (f) => owned("api_key", { name: "Deploys", scopes: ["members"] })(f),
    operator: "any",
    audit: { action: "api_key.create" },
  },
  { operationId: "showApiKey", scope: "read", method: "GET", path: (f) => `/v1/api_keys/${f.apiKeyId}`, owned: true },
  {
    operationId: "revokeApiKey",
    scope: "members",
    method: "DELETE",
    path: (f) => `/v1/api_keys/${f.apiKeyId}`,
    owned: true,
    operator: "any",
    audit: { action: "api_key.revoke" },
  },
  { operationId: "listPolicies", scope: "read", method: "GET", path: () => "/v1/policies" },
  {
    operationId: "createPolicy",
    scope: "settings",
    method: "POST",
    path: () => "/v1/policies",
    body: owned("policy", { name: "P" }),
    operator: "unclaimed",
    audit: { action: "policy.create" },
  },
  { operationId: "showPolicy", scope: "read", method: "GET", path: (f) => `/v1/policies/${f.policyId}`, owned: true },
  { operationId: "listPolicyVersions", scope: "read", method: "GET", path: (f) => `/v1/policies/${f.policyId}/versions`, owned: true },
  { operationId: "showPolicyVersion", scope: "read", method: "GET", path: (f) => `/v1/policies/${f.policyId}/versions/1`, owned: true },
  {
    operationId: "updatePolicy",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/policies/${f.policyId}`,
    body: doc("policy", { name: "Changed" }),
    owned: true,
    operator: "unclaimed",
    audit: { action: "policy.update" },
  },
  // An action, not a create: 200 with the policy. The fixture's policy has a custom domain.
  {
    operationId: "verifyPolicyCustomDomain",
    scope: "settings",
    method: "POST",
    path: (f) => `/v1/policies/${f.policyId}/verify_custom_domain`,
    ownedBy: (f) => `/v1/policies/${f.policyId}`,
    operator: "unclaimed",
    success: 200,
    audit: { action: "policy.verify_custom_domain", target: (f) => f.policyId },
  },
  {
    operationId: "deletePolicy",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/policies/${f.policyId}`,
    owned: true,
    operator: "unclaimed",
    audit: { action: "policy.delete" },
  },
  { operationId: "listAssets", scope: "read", method: "GET", path: () => "/v1/assets" },
  {
    operationId: "createAsset",
    scope: "settings",
    method: "POST",
    path: () => "/v1/assets",
    body: owned("asset", { kind: "domain", value: "tenancy.example.com" }),
    operator: "unclaimed",
    audit: { action: "asset.create" },
  },
  { operationId: "showAsset", scope: "read", method: "GET", path: (f) => `/v1/assets/${f.assetId}`, owned: true },
  {
    operationId: "updateAsset",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/assets/${f.assetId}`,
    body: doc("asset", { short_description: "Changed" }),
    owned: true,
    operator: "unclaimed",
    audit: { action: "asset.update" },
  },
  {
    operationId: "deleteAsset",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/assets/${f.assetId}`,
    owned: true,
    operator: "unclaimed",
    audit: { action: "asset.delete" },
  },
  { operationId: "listBriefs", scope: "read", method: "GET", path: () => "/v1/briefs" },
  {
    operationId: "createBrief",
    scope: "settings",
    method: "POST",
    path: () => "/v1/briefs",
    body: owned("brief", { name: "B" }),
    operator: "unclaimed",
    audit: { action: "brief.create" },
  },
  { operationId: "showBrief", scope: "read", method: "GET", path: (f) => `/v1/briefs/${f.briefId}`, owned: true },
  {
    operationId: "updateBrief",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/briefs/${f.briefId}`,
    body: doc("brief", { name: "Changed" }),
    owned: true,
    operator: "unclaimed",
    audit: { action: "brief.update" },
  },
  {
    operationId: "deleteBrief",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/briefs/${f.spareBriefId}`,
    owned: true,
    operator: "unclaimed",
    audit: { action: "brief.delete" },
  },
  // An action, not a create: 200 with the brief and what it released (the fixture's brief has no queue).
  {
    operationId: "releaseQueuedVulns",
    scope: "settings",
    method: "POST",
    path: (f) => `/v1/briefs/${f.briefId}/release-queued`,
    ownedBy: (f) => `/v1/briefs/${f.briefId}`,
    operator: "unclaimed",
    success: 200,
    notFound: "brief_not_found",
    audit: { action: "brief.release_queued", target: (f) => f.briefId },
  },
  { operationId: "listVulns", scope: "read", method: "GET", path: () => "/v1/vulns" },
  {
    operationId: "createVuln",
    scope: "vulns",
    method: "POST",
    path: () => "/v1/vulns",
    body: (f) => vulnDoc(f.briefId),
    operator: "never",
    audit: { action: "vuln.create" },
  },
  { operationId: "showVuln", scope: "read", method: "GET", path: (f) => `/v1/vulns/${f.vulnId}`, owned: true },
  {
    operationId: "updateVuln",
    scope: "vulns",
    method: "PATCH",
    path: (f) => `/v1/vulns/${f.vulnId}`,
    body: (f) => vulnDoc(f.briefId),
    owned: true,
    operator: "never",
    audit: { action: "vuln.update" },
  },
  {
    operationId: "deleteVuln",
    scope: "vulns",
    method: "DELETE",
    path: (f) => `/v1/vulns/${f.vulnId}`,
    owned: true,
    operator: "never",
    audit: { action: "vuln.delete" },
  },
  {
    operationId: "updateVulns",
    scope: "vulns",
    method: "PATCH",
    path: () => "/v1/vulns",
    body: (f) => ({ data: [{ type: "vuln", id: f.vulnId, attributes: { severity: "low" } }] }),
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
    audit: { action: "vuln.update", target: (f) => f.vulnId },
  },
  // Under another organization's vuln these answer vuln_not_found, as the vuln itself does.
  {
    operationId: "listVulnAttachments",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  {
    operationId: "createVulnAttachment",
    scope: "vulns",
    method: "POST",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments?filename=proof.txt`,
    body: () => "proof",
    raw: true,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
    audit: { action: "attachment.create" },
  },
  {
    operationId: "showVulnAttachment",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}`,
    owned: true,
  },
  {
    operationId: "downloadVulnAttachment",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}/content`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}`,
    notFound: "vuln_not_found",
  },
  {
    operationId: "deleteVulnAttachment",
    scope: "vulns",
    method: "DELETE",
    path: (f) => `/v1/vulns/${f.vulnId}/attachments/${f.attachmentId}`,
    owned: true,
    operator: "never",
    audit: { action: "attachment.delete" },
  },
  {
    operationId: "listSimilarVulns",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/similar`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  {
    operationId: "listVulnComments",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/comments`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  {
    operationId: "createVulnComment",
    scope: "vulns",
    method: "POST",
    path: (f) => `/v1/vulns/${f.vulnId}/comments`,
    body: () => ({ data: { type: "comment", attributes: { body: "Reply", visibility: "reporter" } } }),
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
    audit: { action: "comment.create" },
  },
  {
    operationId: "showVulnComment",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/comments/${f.commentId}`,
    owned: true,
  },
  {
    operationId: "deleteVulnComment",
    scope: "vulns",
    method: "DELETE",
    path: (f) => `/v1/vulns/${f.vulnId}/comments/${f.commentId}`,
    owned: true,
    operator: "never",
    audit: { action: "comment.delete" },
  },
  {
    operationId: "listRegulatoryReports",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  {
    operationId: "createRegulatoryReport",
    scope: "vulns",
    method: "POST",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports`,
    body: () => ({
      data: { type: "regulatory_report", attributes: { kind: "notification", submitted_at: "2026-01-02T03:04:05Z", body: "Filed text" } },
    }),
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
    operator: "never",
    audit: { action: "regulatory_report.file" },
  },
  {
    operationId: "showRegulatoryReportDraft",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports/draft?kind=early_warning`,
    ownedBy: (f) => `/v1/vulns/${f.vulnId}`,
    notFound: "vuln_not_found",
  },
  {
    operationId: "showRegulatoryReport",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/vulns/${f.vulnId}/regulatory_reports/${f.regulatoryReportId}`,
    owned: true,
  },
  { operationId: "listWebhookEventTypes", scope: "none", method: "GET", path: () => "/v1/webhook_event_types" },
  { operationId: "showMetrics", scope: "read", method: "GET", path: () => "/v1/metrics" },
  { operationId: "showWebhookEventType", scope: "none", method: "GET", path: () => `/v1/webhook_event_types/${EVENT_TYPE_ID}` },
  { operationId: "listContacts", scope: "read", method: "GET", path: () => "/v1/contacts" },
  {
    operationId: "createContact",
    scope: "settings",
    method: "POST",
    path: () => "/v1/contacts",
    body: (f) =>
      owned("contact", {
        name: "Responder",
        email: `r-${f.org.id.slice(-12)}-${Math.random().toString(36).slice(2)}@acme.example`,
        role: "responder",
      })(f),
    operator: "never",
    audit: { action: "contact.create" },
  },
  { operationId: "showContact", scope: "read", method: "GET", path: (f) => `/v1/contacts/${f.contactId}`, owned: true },
  {
    operationId: "updateContact",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/contacts/${f.contactId}`,
    body: () => ({ data: { type: "contact", attributes: { name: "Renamed" } } }),
    owned: true,
    operator: "never",
    audit: { action: "contact.update" },
  },
  {
    operationId: "deleteContact",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/contacts/${f.contactId}`,
    owned: true,
    operator: "never",
    audit: { action: "contact.delete" },
  },
  { operationId: "listCannedResponses", scope: "read", method: "GET", path: () => "/v1/canned_responses" },
  {
    operationId: "createCannedResponse",
    scope: "settings",
    method: "POST",
    path: () => "/v1/canned_responses",
    body: (f) =>
      owned("canned_response", {
        name: `Thanks ${Math.random().toString(36).slice(2)}`,
        body: "Thank you, {{reporter_name}}.",
        visibility: "reporter",
      })(f),
    operator: "never",
    audit: { action: "canned_response.create" },
  },
  {
    operationId: "showCannedResponse",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/canned_responses/${f.cannedResponseId}`,
    owned: true,
  },
  {
    operationId: "updateCannedResponse",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/canned_responses/${f.cannedResponseId}`,
    body: () => ({ data: { type: "canned_response", attributes: { body: "We are looking into {{shortcode}}." } } }),
    owned: true,
    operator: "never",
    audit: { action: "canned_response.update" },
  },
  {
    operationId: "deleteCannedResponse",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/canned_responses/${f.cannedResponseId}`,
    owned: true,
    operator: "never",
    audit: { action: "canned_response.delete" },
  },
  { operationId: "listMembers", scope: "read", method: "GET", path: () => "/v1/members" },
  {
    operationId: "createMember",
    scope: "members",
    method: "POST",
    path: () => "/v1/members",
    body: (f) =>
      owned("member", { email: `m-${f.org.id.slice(-12)}-${Math.random().toString(36).slice(2)}@acme.example`, role: "viewer" })(f),
    operator: "never",
    audit: { action: "member.create" },
  },
  { operationId: "showMember", scope: "read", method: "GET", path: (f) => `/v1/members/${f.memberId}`, owned: true },
  {
    operationId: "updateMember",
    scope: "members",
    method: "PATCH",
    path: (f) => `/v1/members/${f.memberId}`,
    body: () => ({ data: { type: "member", attributes: { name: "Renamed" } } }),
    owned: true,
    operator: "never",
    audit: { action: "member.update" },
  },
  {
    operationId: "deleteMember",
    scope: "members",
    method: "DELETE",
    path: (f) => `/v1/members/${f.memberId}`,
    owned: true,
    operator: "never",
    audit: { action: "member.delete" },
  },
  // An action, not a create: 200 with the member (the fixture's has not joined).
  {
    operationId: "resendMemberInvitation",
    scope: "members",
    method: "POST",
    path: (f) => `/v1/members/${f.memberId}/invitation`,
    ownedBy: (f) => `/v1/members/${f.memberId}`,
    operator: "never",
    success: 200,
    audit: { action: "member.invite", target: (f) => f.memberId },
  },
  {
    operationId: "revokeMemberSessions",
    scope: "members",
    method: "DELETE",
    path: (f) => `/v1/members/${f.memberId}/sessions`,
    ownedBy: (f) => `/v1/members/${f.memberId}`,
    operator: "never",
    audit: { action: "member.sessions_revoke", target: (f) => f.memberId },
  },
  { operationId: "listAdvisories", scope: "read", method: "GET", path: () => "/v1/advisories" },
  {
    operationId: "createAdvisory",
    scope: "advisories",
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
    audit: { action: "advisory.create" },
  },
  { operationId: "showAdvisory", scope: "read", method: "GET", path: (f) => `/v1/advisories/${f.advisoryId}`, owned: true },
  {
    operationId: "updateAdvisory",
    scope: "advisories",
    method: "PATCH",
    path: (f) => `/v1/advisories/${f.advisoryId}`,
    body: () => ({
      data: { type: "advisory", attributes: { title: `Retitled ${Math.random().toString(36).slice(2)}`, revision_note: "Clearer title" } },
    }),
    owned: true,
    operator: "never",
    audit: { action: "advisory.update" },
  },
  {
    operationId: "deleteAdvisory",
    scope: "advisories",
    method: "DELETE",
    path: (f) => `/v1/advisories/${f.draftAdvisoryId}`,
    owned: true,
    operator: "never",
    audit: { action: "advisory.delete" },
  },
  {
    operationId: "listAdvisoryRevisions",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/advisories/${f.advisoryId}/revisions`,
    owned: true,
  },
  {
    operationId: "showAdvisoryRevision",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/advisories/${f.advisoryId}/revisions/1`,
    owned: true,
  },
  { operationId: "listNotifications", scope: "read", method: "GET", path: () => "/v1/notifications" },
  { operationId: "showNotification", scope: "read", method: "GET", path: (f) => `/v1/notifications/${f.notificationId}`, owned: true },
  { operationId: "listAuditEvents", scope: "read", method: "GET", path: () => "/v1/audit_events" },
  { operationId: "showAuditEvent", scope: "read", method: "GET", path: (f) => `/v1/audit_events/${f.auditEventId}`, owned: true },
  { operationId: "listWebhooks", scope: "read", method: "GET", path: () => "/v1/webhooks" },
  {
    operationId: "createWebhook",
    scope: "settings",
    method: "POST",
    path: () => "/v1/webhooks",
    body: (f) => webhookDoc(f.webhookUrl ? { url: f.webhookUrl } : {}, f.org.id),
    operator: "never",
    audit: { action: "webhook.create" },
  },
  { operationId: "showWebhook", scope: "read", method: "GET", path: (f) => `/v1/webhooks/${f.webhookId}`, owned: true },
  {
    operationId: "updateWebhook",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/webhooks/${f.webhookId}`,
    body: () => ({ data: { type: "webhook", attributes: { name: "Changed" } } }),
    owned: true,
    operator: "never",
    audit: { action: "webhook.update" },
  },
  {
    operationId: "deleteWebhook",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/webhooks/${f.webhookId}`,
    owned: true,
    operator: "never",
    audit: { action: "webhook.delete" },
  },
  {
    operationId: "rotateWebhookSecret",
    scope: "settings",
    method: "POST",
    path: (f) => `/v1/webhooks/${f.webhookId}/rotate_secret`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}`,
    operator: "never",
    success: 200,
    audit: { action: "webhook.rotate_secret", target: (f) => f.webhookId },
  },
  {
    operationId: "pingWebhook",
    scope: "settings",
    method: "POST",
    path: (f) => `/v1/webhooks/${f.webhookId}/ping`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}`,
    operator: "never",
    success: 202,
    audit: { action: "webhook.ping", target: (f) => f.webhookId },
  },
  {
    operationId: "listWebhookDeliveries",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/webhooks/${f.webhookId}/deliveries`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}`,
  },
  {
    operationId: "showWebhookDelivery",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}`,
    owned: true,
  },
  {
    operationId: "redeliverWebhookDelivery",
    scope: "settings",
    method: "POST",
    path: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}/redeliver`,
    ownedBy: (f) => `/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}`,
    operator: "never",
    success: 202,
    audit: { action: "webhook_delivery.redeliver", target: (f) => f.deliveryId },
  },
  { operationId: "listDirectories", scope: "none", method: "GET", path: () => "/v1/directories" },
  { operationId: "showDirectory", scope: "none", method: "GET", path: (f) => `/v1/directories/${f.directoryId}` },
  {
    operationId: "createDirectory",
    method: "POST",
    path: () => "/v1/directories",
    body: (f) => ({ data: { type: "directory", attributes: { name: "D", slug: `d-${f.org.id.slice(-12)}` } } }),
    operatorOnly: true,
    operator: "any",
    audit: { action: "directory.create", organization: "platform" },
  },
  {
    operationId: "updateDirectory",
    method: "PATCH",
    path: (f) => `/v1/directories/${f.directoryId}`,
    body: () => ({ data: { type: "directory", attributes: { name: "Renamed" } } }),
    operatorOnly: true,
    operator: "any",
    audit: { action: "directory.update", organization: "platform" },
  },
  { operationId: "listDirectoryListings", scope: "read", method: "GET", path: () => "/v1/directory_listings" },
  {
    operationId: "createDirectoryListing",
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
    audit: { action: "directory_listing.create" },
  },
  { operationId: "showDirectoryListing", scope: "read", method: "GET", path: (f) => `/v1/directory_listings/${f.listingId}`, owned: true },
  {
    operationId: "updateDirectoryListing",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/directory_listings/${f.listingId}`,
    body: () => ({ data: { type: "directory_listing", attributes: { visible: false } } }),
    owned: true,
    operator: "any",
    audit: { action: "directory_listing.update" },
  },
  {
    operationId: "deleteDirectoryListing",
    method: "DELETE",
    path: (f) => `/v1/directory_listings/${f.listingId}`,
    operatorOnly: true,
    operator: "any",
    audit: { action: "directory_listing.delete" },
  },
  {
    operationId: "listDirectoryListingItems",
    scope: "read",
    method: "GET",
    path: (f) => `/v1/directory_listings/${f.listingId}/items`,
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
  },
  {
    operationId: "createDirectoryListingItem",
    scope: "settings",
    method: "POST",
    path: (f) => `/v1/directory_listings/${f.listingId}/items`,
    body: (f) => ({ data: { type: "directory_listing_item", attributes: { listable_type: "Policy", listable_id: f.policyId } } }),
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
    operator: "unclaimed",
    audit: { action: "directory_listing_item.create" },
  },
  {
    operationId: "reorderDirectoryListingItems",
    scope: "settings",
    method: "PATCH",
    path: (f) => `/v1/directory_listings/${f.listingId}/items/reorder`,
    body: (f) => ({ data: [{ type: "directory_listing_item", id: f.itemId }] }),
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
    operator: "unclaimed",
    audit: { action: "directory_listing_item.reorder", target: (f) => f.listingId },
  },
  {
    operationId: "deleteDirectoryListingItem",
    scope: "settings",
    method: "DELETE",
    path: (f) => `/v1/directory_listings/${f.listingId}/items/${f.itemId}`,
    ownedBy: (f) => `/v1/directory_listings/${f.listingId}`,
    operator: "unclaimed",
    audit: { action: "directory_listing_item.delete" },
  },
  ...OPEN_ENDPOINTS,
];

function vulnDoc(briefId: string) {
  return {
    data: {
      type: "vuln",
      attributes: { title: "T", description: "D" },
      relationships: { brief: { data: { type: "brief", id: briefId } } },
    },
  };
}
