import type { Endpoint } from "./endpoint-table";

/** The rows of the endpoint table (ENDPOINTS) that take no API key: the public side and the reporter's API. */
export const OPEN_ENDPOINTS: Endpoint[] = [
  // Needs no key: the service's entry points, a published brief and its submission, a directory, a
  // policy's version and hall of fame, a published advisory and its renderings, the receipts' keys.
  { operationId: "getIndex", method: "GET", path: () => "/", caller: "public", accept: "application/vnd.api+json" },
  { operationId: "getV1Index", method: "GET", path: () => "/v1", caller: "public" },
  { operationId: "showPublicBrief", method: "GET", path: (f) => `/v1/p/briefs/${f.shortcode}`, caller: "public" },
  // The fixture's brief has proof of work on auto, so it answers a challenge.
  { operationId: "showPublicBriefChallenge", method: "GET", path: (f) => `/v1/p/briefs/${f.shortcode}/challenge`, caller: "public" },
  {
    operationId: "createPublicVuln",
    method: "POST",
    path: (f) => `/v1/p/briefs/${f.shortcode}/vulns`,
    body: () => ({ data: { type: "vuln", attributes: { title: "Again", description: "Steps", contact_email: "r@example.com" } } }),
    caller: "public",
    audit: { action: "vuln.create" },
  },
  { operationId: "showPublicDirectory", method: "GET", path: (f) => `/v1/p/directories/${f.directorySlug}`, caller: "public" },
  {
    operationId: "showPublicPolicyVersion",
    method: "GET",
    path: (f) => `/v1/p/policies/${f.policyShortcode}/versions/1`,
    caller: "public",
  },
  {
    operationId: "showPublicHallOfFame",
    method: "GET",
    path: (f) => `/v1/p/policies/${f.hallOfFameShortcode ?? f.policyShortcode}/hall_of_fame`,
    caller: "public",
  },
  { operationId: "showPublicAdvisory", method: "GET", path: (f) => `/v1/p/advisories/${f.advisoryId}`, caller: "public" },
  { operationId: "showPublicAdvisoryCsaf", method: "GET", path: (f) => `/v1/p/advisories/${f.advisoryId}/csaf`, caller: "public" },
  { operationId: "showPublicAdvisoryOsv", method: "GET", path: (f) => `/v1/p/advisories/${f.advisoryId}/osv`, caller: "public" },
  { operationId: "showPublicAdvisoryCve", method: "GET", path: (f) => `/v1/p/advisories/${f.advisoryId}/cve`, caller: "public" },
  { operationId: "showSigningKeys", method: "GET", path: () => "/.well-known/vdp-keys.json", caller: "public" },
  // The reporter's API, with the follow-up token of the report (test/routes/reporter-access.test.ts).
  { operationId: "showReport", method: "GET", path: () => "/v1/p/report", caller: "reporter" },
  {
    operationId: "updateReport",
    method: "PATCH",
    path: () => "/v1/p/report",
    body: () => ({ data: { type: "report", attributes: { credit_name: "Jane Finder", credit_consent: true } } }),
    caller: "reporter",
    audit: { action: "vuln.update", target: (f) => f.vulnId },
  },
  { operationId: "listReportComments", method: "GET", path: () => "/v1/p/report/comments", caller: "reporter" },
  {
    operationId: "createReportComment",
    method: "POST",
    path: () => "/v1/p/report/comments",
    body: () => ({ data: { type: "comment", attributes: { body: "Any news?" } } }),
    caller: "reporter",
    audit: { action: "comment.create" },
  },
  { operationId: "showReportComment", method: "GET", path: (f) => `/v1/p/report/comments/${f.reportCommentId}`, caller: "reporter" },
  { operationId: "listReportAttachments", method: "GET", path: () => "/v1/p/report/attachments", caller: "reporter" },
  {
    operationId: "createReportAttachment",
    method: "POST",
    path: () => "/v1/p/report/attachments?filename=more.txt",
    body: () => "more",
    raw: true,
    caller: "reporter",
    audit: { action: "attachment.create" },
  },
  {
    operationId: "showReportAttachment",
    method: "GET",
    path: (f) => `/v1/p/report/attachments/${f.reportAttachmentId}`,
    caller: "reporter",
  },
  {
    operationId: "downloadReportAttachment",
    method: "GET",
    path: (f) => `/v1/p/report/attachments/${f.reportAttachmentId}/content`,
    caller: "reporter",
  },
  { operationId: "showReportReceipt", method: "GET", path: () => "/v1/p/report/receipt", caller: "reporter" },
  { operationId: "showReportTimeline", method: "GET", path: () => "/v1/p/report/timeline", caller: "reporter" },
];
