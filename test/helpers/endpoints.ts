import { api, post } from "./api";
import { asset, brief, directory, listing, organization, policy, PUBLISHED, vuln, webhook, type TestOrganization } from "./factories";
import type { Fixture as FixtureOf } from "./endpoint-table";

export * from "./endpoint-table";

/** What one organization owns, for endpoints that need ids, made inside the Worker's test runtime. */
export type Fixture = FixtureOf<TestOrganization>;

/** One organization with one of everything; `attributes` go to the organization (e.g. claimed: false). */
export async function fixture(attributes: Record<string, unknown> = {}): Promise<Fixture> {
  const org = await organization(attributes);
  const p = await policy(org, { published_at: PUBLISHED, custom_domain: `security.${org.slug}.example.com` });
  const a = await asset(org);
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const spare = await brief(org, { published_at: PUBLISHED });
  const k = await post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, { data: { type: "api_key", attributes: {} } });
  const v = await vuln(org, b.id);
  const file = await api("POST", `/v1/vulns/${v.id}/attachments?filename=poc.json`, {
    key: org.key,
    rawBody: '{"poc":true}',
    contentType: "application/json",
  });
  const note = await post(`/v1/vulns/${v.id}/comments`, org.key, { data: { type: "comment", attributes: { body: "Triage note" } } });
  const filing = await post(`/v1/vulns/${v.id}/regulatory_reports`, org.key, {
    data: { type: "regulatory_report", attributes: { kind: "early_warning", submitted_at: "2026-01-01T00:00:00Z", body: "Early warning" } },
  });
  const contact = await post("/v1/contacts", org.key, {
    data: { type: "contact", attributes: { name: "Ana", email: `ana-${org.slug}@acme.example`, role: "responder" } },
  });
  const log = await api("GET", "/v1/notifications", { key: org.key });
  const advisory = (status: string) =>
    post("/v1/advisories", org.key, {
      data: {
        type: "advisory",
        attributes: {
          title: "Open redirect",
          summary: "Redirects anywhere.",
          state: status,
          affected: [{ vendor: "Acme", product: "Widget", versions: [{ version: "1.0.0", status: "affected" }] }],
        },
        relationships: { vulns: { data: [{ type: "vuln", id: v.id }] } },
      },
    });
  const published = await advisory("published");
  const draftAdvisory = await advisory("draft");
  const w = await webhook(org);
  const d = await post(`/v1/webhooks/${w.id}/ping`, org.key, undefined);
  const dir = await directory(org.operatorKey);
  const spareDir = await directory(org.operatorKey);
  const l = await listing(org.operatorKey, dir.id, org.id);
  const item = await post(`/v1/directory_listings/${l.id}/items`, org.key, {
    data: { type: "directory_listing_item", attributes: { listable_type: "Brief", listable_id: b.id } },
  });
  return {
    org,
    policyId: p.id,
    assetId: a.id,
    briefId: b.id,
    spareBriefId: spare.id,
    apiKeyId: k.body.data.id,
    vulnId: v.id,
    attachmentId: file.body.data.id,
    commentId: note.body.data.id,
    regulatoryReportId: filing.body.data.id,
    webhookId: w.id,
    deliveryId: d.body.data.id,
    contactId: contact.body.data.id,
    notificationId: log.body.data[0].id,
    advisoryId: published.body.data.id,
    draftAdvisoryId: draftAdvisory.body.data.id,
    directoryId: dir.id,
    spareDirectoryId: spareDir.id,
    listingId: l.id,
    itemId: item.body.data.id,
  };
}
