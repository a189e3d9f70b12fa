import { api } from "./api";
import { ENDPOINTS, type Endpoint } from "./endpoint-table";
import { operatorKey, type TestOrganization } from "./factories";
import { buildFixture, type Client, type Fixture as FixtureOf } from "./fixture";

export * from "./endpoint-table";

/** What one organization owns, for endpoints that need ids, made inside the Worker's test runtime. */
export type Fixture = FixtureOf<TestOrganization>;

/** The API called in-process, as the fixture builder calls it: the parsed body of a success, or a throw. */
export const inProcess: Client = async (method, path, init = {}) => {
  const res = await api(method, path, {
    key: init.key,
    ...(init.raw ? { rawBody: init.raw.text, contentType: init.raw.type } : { body: init.body }),
  });
  if (res.status >= 300) throw new Error(`fixture: ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

/** One organization with one of everything; `attributes` go to the organization (e.g. claimed: false). */
export async function fixture(attributes: Record<string, unknown> = {}): Promise<Fixture> {
  return (await buildFixture(inProcess, { operatorKey: await operatorKey(), organization: attributes })) as Fixture;
}

/** Every operation the generators call with an API key (the organization's or an operator's). */
export const AUTHENTICATED = ENDPOINTS.filter((e) => e.caller === undefined);
/** The reporter's API, called with a report's follow-up token. */
export const REPORTER_ENDPOINTS = ENDPOINTS.filter((e) => e.caller === "reporter");
/** Every operationId of the document, as the table names them. */
export const OPERATION_IDS = ENDPOINTS.map((e) => e.operationId);

/** The fixture's ids as the document's path parameters, so a path reads as its template. */
const PLACEHOLDERS = {
  org: { id: "{org}" },
  policyId: "{id}",
  policyShortcode: "{shortcode}",
  assetId: "{id}",
  briefId: "{id}",
  shortcode: "{shortcode}",
  spareBriefId: "{id}",
  apiKeyId: "{id}",
  vulnId: "{id}",
  attachmentId: "{attachment_id}",
  commentId: "{comment_id}",
  regulatoryReportId: "{report_id}",
  webhookId: "{id}",
  deliveryId: "{delivery_id}",
  directoryId: "{id}",
  directorySlug: "{slug}",
  spareDirectoryId: "{id}",
  listingId: "{directory_listing_id}",
  itemId: "{id}",
  contactId: "{id}",
  notificationId: "{id}",
  memberId: "{id}",
  cannedResponseId: "{id}",
  auditEventId: "{id}",
  advisoryId: "{id}",
  draftAdvisoryId: "{id}",
  reportCommentId: "{comment_id}",
  reportAttachmentId: "{attachment_id}",
} as unknown as Fixture;

export const label = (e: Endpoint) =>
  `${e.method} ${e.path(PLACEHOLDERS)}`
    // The document names a listing {id} in its own paths and {directory_listing_id} under /items.
    .replace(/\?.*$/, "")
    // A policy version is named by its number (the fixture's is 1).
    .replace(/\/versions\/1$/, "/versions/{number}")
    .replace(/\/revisions\/1$/, "/revisions/{number}")
    .replace(/^(\w+ \/v1\/directory_listings\/)\{directory_listing_id\}$/, "$1{id}");

/** The operation as the document names it: "METHOD /template". */
export const template = (e: Endpoint) => label(e).replace(/\{org\}|[0-9a-f-]{36}/g, "{id}");

/** The operation of a table entry by its operationId (throws for one the table does not hold). */
export function endpoint(operationId: string): Endpoint {
  const found = ENDPOINTS.find((e) => e.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the endpoint table`);
  return found;
}
