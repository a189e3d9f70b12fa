// One organization with one of everything, made through the API by any client: the tests inside
// workerd call the Worker in-process, the Node-side ones call npm run dev over HTTP. Free of the
// Worker's test runtime, so both sides import it.

/** The organization a fixture belongs to: its id, its own key and an operator's key. */
export interface FixtureOrganization {
  id: string;
  slug: string;
  key: string;
  keyId: string;
  operatorKey: string;
}

/** What one organization owns, for endpoints that need ids. */
export interface Fixture<O extends FixtureOrganization = FixtureOrganization> {
  org: O;
  policyId: string;
  /** The policy's public shortcode, and its brief's. */
  policyShortcode: string;
  assetId: string;
  briefId: string;
  shortcode: string;
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
  /** Where the webhooks made for the fixture send (default: https://hooks.example.com/vdp). */
  webhookUrl?: string;
  /** A contact, and the e-mail that asked it to confirm its address (the notification log's). */
  contactId: string;
  notificationId: string;
  /** A member, invited (not joined), not an owner. */
  memberId: string;
  /** A canned response of the organization. */
  cannedResponseId: string;
  /** An event of the organization's audit log (the last change the fixture made). */
  auditEventId: string;
  /** A published advisory about the vuln (it has revision 1), and a draft one, which may be deleted. */
  advisoryId: string;
  draftAdvisoryId: string;
  directoryId: string;
  directorySlug: string;
  /** A directory the organization is not listed in. */
  spareDirectoryId: string;
  listingId: string;
  itemId: string;
  /** Where the vuln came through the brief (`buildFixture`'s `submitted`): the reporter's follow-up token. */
  token?: string;
  /** What a reporter's endpoints name: a comment and a file the reporter can see on their report. */
  reportCommentId?: string;
  reportAttachmentId?: string;
  /** A policy whose hall of fame the public endpoint shows (the dev server's demo data has one). */
  hallOfFameShortcode?: string;
}

export const EVENT_TYPE_ID = "0b1e7f1a-5c52-5d7e-9a01-000000000001";

/**
 * How the builder calls the API: one request, answered with its parsed body on a success, thrown on
 * anything else. `raw` is a body sent as it is (an upload), with its Content-Type.
 */
export type Client = (
  method: string,
  path: string,
  init?: { key?: string; body?: unknown; raw?: { text: string; type: string } },
) => Promise<any>;

export interface FixtureOptions {
  operatorKey: string;
  /** Attributes of the organization (e.g. claimed: false). */
  organization?: Record<string, unknown>;
  webhookUrl?: string;
  /** The vuln comes through the brief's public submission, as a reporter sends it, and the token is kept. */
  submitted?: boolean;
}

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

export const PUBLISHED = "2020-01-01T00:00:00.000Z";

/** One organization with one of everything, made in the order the records depend on each other. */
export async function buildFixture(call: Client, opts: FixtureOptions): Promise<Fixture> {
  const tag = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  const operator = opts.operatorKey;
  const slug = `org-${tag}`;
  const made = await call("POST", "/v1/organizations", {
    key: operator,
    body: {
      data: { type: "organization", attributes: { name: `Org ${slug}`, slug, website_url: "https://example.com", ...opts.organization } },
    },
  });
  const orgId = made.data.id as string;
  const orgKey = await call("POST", `/v1/organizations/${orgId}/api_keys`, {
    key: operator,
    body: { data: { type: "api_key", attributes: { name: "test" } } },
  });
  const key = orgKey.data.attributes.key as string;
  const create = async (path: string, type: string, attributes: Record<string, unknown>, relationships?: unknown) =>
    (await call("POST", path, { key, body: { data: { type, attributes, ...(relationships ? { relationships } : {}) } } })).data;

  const policy = await create("/v1/policies", "policy", {
    name: `Policy ${tag}`,
    published_at: PUBLISHED,
    custom_domain: `security.${slug}.example.com`,
  });
  const asset = await create("/v1/assets", "asset", { kind: "domain", value: `${tag}.example.com` });
  const brief = await create(
    "/v1/briefs",
    "brief",
    { name: `Brief ${tag}`, published_at: PUBLISHED, proof_of_work: "auto" },
    { policy: { data: { type: "policy", id: policy.id } } },
  );
  const spare = await create("/v1/briefs", "brief", { name: `Spare ${tag}`, published_at: PUBLISHED });
  const apiKey = await call("POST", `/v1/organizations/${orgId}/api_keys`, {
    key: operator,
    body: { data: { type: "api_key", attributes: {} } },
  });
  // Through the brief, the report has a reporter who can read a reply; through the API, none.
  const receipt = opts.submitted
    ? await call("POST", `/v1/p/briefs/${brief.attributes.shortcode}/vulns`, {
        body: { data: { type: "vuln", attributes: { title: "Through the brief", description: "Steps", contact_email: "r@example.com" } } },
      })
    : undefined;
  const vuln =
    receipt?.data ??
    (await create(
      "/v1/vulns",
      "vuln",
      { title: `Report ${tag}`, description: "Steps to reproduce" },
      { brief: { data: { type: "brief", id: brief.id } } },
    ));
  const file = await call("POST", `/v1/vulns/${vuln.id}/attachments?filename=poc.json`, {
    key,
    raw: { text: '{"poc":true}', type: "application/json" },
  });
  const note = await create(`/v1/vulns/${vuln.id}/comments`, "comment", { body: "Triage note" });
  const filing = await create(`/v1/vulns/${vuln.id}/regulatory_reports`, "regulatory_report", {
    kind: "early_warning",
    submitted_at: "2026-01-01T00:00:00Z",
    body: "Early warning",
  });
  const contact = await create("/v1/contacts", "contact", { name: "Ana", email: `ana-${slug}@acme.example`, role: "responder" });
  const log = await call("GET", "/v1/notifications", { key });
  const member = await create("/v1/members", "member", { email: `mo-${slug}@acme.example`, name: "Mo", role: "triager" });
  const canned = await create("/v1/canned_responses", "canned_response", {
    name: `Acknowledged ${tag}`,
    body: "Thank you, {{reporter_name}}: we received {{shortcode}}.",
    visibility: "reporter",
  });
  const advisory = (state: string) =>
    create(
      "/v1/advisories",
      "advisory",
      {
        title: `Advisory ${tag}`,
        summary: "Redirects anywhere.",
        state,
        affected: [{ vendor: "Acme", product: "Widget", purl: "pkg:npm/widget", versions: [{ version: "1.0.0", status: "affected" }] }],
      },
      { vulns: { data: [{ type: "vuln", id: vuln.id }] } },
    );
  const published = await advisory("published");
  const draftAdvisory = await advisory("draft");
  const hook = (
    await call("POST", "/v1/webhooks", {
      key,
      body: webhookDoc({ name: `Hook ${tag}`, ...(opts.webhookUrl ? { url: opts.webhookUrl } : {}) }),
    })
  ).data;
  const delivery = await call("POST", `/v1/webhooks/${hook.id}/ping`, { key });
  const directory = async (name: string) =>
    (
      await call("POST", "/v1/directories", {
        key: operator,
        body: { data: { type: "directory", attributes: { name, slug: `${name}-${tag}` } } },
      })
    ).data;
  const dir = await directory("dir");
  const spareDir = await directory("spare");
  const listing = await call("POST", "/v1/directory_listings", {
    key: operator,
    body: {
      data: {
        type: "directory_listing",
        relationships: {
          directory: { data: { type: "directory", id: dir.id } },
          organization: { data: { type: "organization", id: orgId } },
        },
      },
    },
  });
  const item = await create(`/v1/directory_listings/${listing.data.id}/items`, "directory_listing_item", {
    listable_type: "Brief",
    listable_id: brief.id,
  });
  const audit = await call("GET", "/v1/audit_events", { key });
  return {
    org: { id: orgId, slug, key, keyId: orgKey.data.id, operatorKey: operator },
    policyId: policy.id,
    policyShortcode: policy.attributes.shortcode,
    assetId: asset.id,
    briefId: brief.id,
    shortcode: brief.attributes.shortcode,
    spareBriefId: spare.id,
    apiKeyId: apiKey.data.id,
    vulnId: vuln.id,
    attachmentId: file.data.id,
    commentId: note.id,
    regulatoryReportId: filing.id,
    webhookId: hook.id,
    deliveryId: delivery.data.id,
    ...(opts.webhookUrl ? { webhookUrl: opts.webhookUrl } : {}),
    contactId: contact.id,
    notificationId: log.data[0].id,
    memberId: member.id,
    cannedResponseId: canned.id,
    auditEventId: audit.data[0].id,
    advisoryId: published.id,
    draftAdvisoryId: draftAdvisory.id,
    directoryId: dir.id,
    directorySlug: dir.attributes.slug,
    spareDirectoryId: spareDir.id,
    listingId: listing.data.id,
    itemId: item.id,
    ...(receipt ? { token: receipt.data.attributes.follow_up_token as string } : {}),
  };
}

/**
 * The record types a fixture holds, with the collection that names them in paths and their id: what
 * the fuzzer aims its placeholders at. `shared` records belong to no organization (any key may name them).
 */
export const RECORDS: { type: string; collection: string; id: (f: Fixture) => string; shared?: boolean }[] = [
  { type: "organization", collection: "organizations", id: (f) => f.org.id },
  { type: "policy", collection: "policies", id: (f) => f.policyId },
  { type: "asset", collection: "assets", id: (f) => f.assetId },
  { type: "brief", collection: "briefs", id: (f) => f.briefId },
  { type: "api_key", collection: "api_keys", id: (f) => f.apiKeyId },
  { type: "vuln", collection: "vulns", id: (f) => f.vulnId },
  { type: "webhook", collection: "webhooks", id: (f) => f.webhookId },
  { type: "webhook_delivery", collection: "deliveries", id: (f) => f.deliveryId },
  { type: "contact", collection: "contacts", id: (f) => f.contactId },
  { type: "notification", collection: "notifications", id: (f) => f.notificationId },
  { type: "member", collection: "members", id: (f) => f.memberId },
  { type: "canned_response", collection: "canned_responses", id: (f) => f.cannedResponseId },
  { type: "advisory", collection: "advisories", id: (f) => f.advisoryId },
  { type: "directory", collection: "directories", id: (f) => f.directoryId, shared: true },
  { type: "directory_listing", collection: "directory_listings", id: (f) => f.listingId },
  { type: "directory_listing_item", collection: "items", id: (f) => f.itemId },
  { type: "trigger_event_type", collection: "webhook_event_types", id: () => EVENT_TYPE_ID, shared: true },
];
