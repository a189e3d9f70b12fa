import { post } from "./api";
import { asset, brief, organization, policy, PUBLISHED, vuln, type TestOrganization } from "./factories";

/** What one organization owns, for endpoints that need ids. */
export interface Fixture {
  org: TestOrganization;
  policyId: string;
  assetId: string;
  briefId: string;
  apiKeyId: string;
  vulnId: string;
}

export async function fixture(): Promise<Fixture> {
  const org = await organization();
  const p = await policy(org);
  const a = await asset(org);
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const k = await post(`/v1/organizations/${org.id}/api_keys`, org.operatorKey, { data: { type: "api_key", attributes: {} } });
  const v = await vuln(org, b.id);
  return { org, policyId: p.id, assetId: a.id, briefId: b.id, apiKeyId: k.body.data.id, vulnId: v.id };
}

export interface Endpoint {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** Needs an operator key: organization keys get 403. */
  operatorOnly?: boolean;
  /** The path names a record of the fixture's organization: other organizations get 404. */
  owned?: boolean;
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
];

function vulnDoc(briefId: string) {
  return { data: { type: "vuln", attributes: { title: "T", description: "D" }, relationships: { brief: { data: { type: "brief", id: briefId } } } } };
}

export const label = (e: Endpoint) =>
  `${e.method} ${e.path({ org: { id: "{org}" }, policyId: "{id}", assetId: "{id}", briefId: "{id}", apiKeyId: "{id}", vulnId: "{id}" } as never)}`;
