import { env } from "cloudflare:workers";
import { createDb } from "../../src/db";
import { apiKeys, catalogNames } from "../../src/db/schema";
import { OPERATOR } from "../../src/db/catalog";
import { sharded, shardOf, tenantBindings } from "./shards";
import { newKeyRecord } from "../../src/services/api-keys";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { api, BASE, post } from "./api";

let sequence = 0;
const unique = () => `${Date.now().toString(36)}${(sequence++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/**
 * An operator key, written the way `npm run operator-key` writes one: the bootstrap that every
 * other key comes from.
 */
export async function operatorKey(): Promise<string> {
  const { key, record } = await newKeyRecord("operator", null, { name: "test operator" });
  // A sharded world keeps operators' keys in the catalog, named there as no organization's.
  await createDb(sharded() ? env.CATALOG : env.DB)
    .insert(apiKeys)
    .values(record);
  if (sharded())
    await createDb(env.CATALOG)
      .insert(catalogNames)
      .values({ kind: "api_key", name: record.keyHash, organizationId: OPERATOR, createdAt: record.createdAt });
  return key;
}

export interface TestOrganization {
  id: string;
  slug: string;
  key: string;
  keyId: string;
  operatorKey: string;
}

/** A fresh organization with its own key, made through the API like an operator would. */
export async function organization(attributes: Record<string, unknown> = {}): Promise<TestOrganization> {
  const operator = await operatorKey();
  const slug = `org-${unique()}`;
  const org = await post("/v1/organizations", operator, {
    data: { type: "organization", attributes: { name: `Org ${slug}`, slug, website_url: "https://example.com", ...attributes } },
  });
  if (org.status !== 201) throw new Error(`organization factory: ${org.status} ${org.text}`);
  const key = await post(`/v1/organizations/${org.body.data.id}/api_keys`, operator, {
    data: { type: "api_key", attributes: { name: "test" } },
  });
  if (key.status !== 201) throw new Error(`api key factory: ${key.status} ${key.text}`);
  return { id: org.body.data.id, slug, key: key.body.data.attributes.key, keyId: key.body.data.id, operatorKey: operator };
}

/**
 * A fresh organization in the tenant database named (DB in a one-database world), for a test of what one
 * database holds together: in a sharded world the catalog places it there because, for its creation, every
 * other shard reads as full.
 */
export async function organizationIn(shard: string, attributes: Record<string, unknown> = {}): Promise<TestOrganization> {
  if (!sharded()) return organization(attributes);
  const rooms = await env.CATALOG.prepare("SELECT shard, size_bytes, measured_at FROM shard_rooms").all<Record<string, unknown>>();
  const room = (name: string, size: unknown, at: unknown) =>
    env.CATALOG.prepare(
      "INSERT INTO shard_rooms (shard, size_bytes, measured_at) VALUES (?, ?, ?) ON CONFLICT (shard) DO UPDATE SET size_bytes = excluded.size_bytes, measured_at = excluded.measured_at",
    ).bind(name, size, at);
  const full = Object.keys(tenantBindings()).filter((name) => name !== shard);
  await env.CATALOG.batch(full.map((name) => room(name, Number.MAX_SAFE_INTEGER, new Date().toISOString())));
  try {
    const org = await organization(attributes);
    const placed = await shardOf(org.id);
    if (placed !== shard) throw new Error(`organizationIn: placed in ${placed}, not ${shard}`);
    return org;
  } finally {
    // The sizes the cron recorded, as they were.
    await env.CATALOG.batch([
      env.CATALOG.prepare("DELETE FROM shard_rooms"),
      ...rooms.results.map((r) => room(String(r.shard), r.size_bytes, r.measured_at)),
    ]);
  }
}

/** A fresh organization in the same database as `beside`. */
export const organizationBeside = async (beside: TestOrganization, attributes: Record<string, unknown> = {}) =>
  organizationIn(await shardOf(beside.id), attributes);

async function create(
  path: string,
  type: string,
  key: string,
  attributes: Record<string, unknown>,
  relationships?: Record<string, unknown>,
) {
  const res = await post(path, key, { data: { type, attributes, ...(relationships ? { relationships } : {}) } });
  if (res.status !== 201) throw new Error(`${type} factory: ${res.status} ${res.text}`);
  return res.body.data;
}

export const PUBLISHED = "2020-01-01T00:00:00.000Z";

export function policy(org: TestOrganization, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) {
  return create("/v1/policies", "policy", org.key, { name: `Policy ${unique()}`, ...attributes }, relationships);
}

export function asset(org: TestOrganization, attributes: Record<string, unknown> = {}) {
  return create("/v1/assets", "asset", org.key, { kind: "domain", value: `${unique()}.example.com`, ...attributes });
}

export function brief(org: TestOrganization, attributes: Record<string, unknown> = {}, policyId?: string) {
  return create(
    "/v1/briefs",
    "brief",
    org.key,
    { name: `Brief ${unique()}`, ...attributes },
    policyId ? { policy: { data: { type: "policy", id: policyId } } } : undefined,
  );
}

export function vuln(org: TestOrganization, briefId: string, attributes: Record<string, unknown> = {}) {
  return create(
    "/v1/vulns",
    "vuln",
    org.key,
    { title: `Report ${unique()}`, description: "Steps to reproduce", ...attributes },
    {
      brief: { data: { type: "brief", id: briefId } },
    },
  );
}

/** A fresh organization with one report, through a published brief: what the attachment tests start from. */
export async function organizationWithVuln(): Promise<{ org: TestOrganization; vulnId: string }> {
  const org = await organization();
  const b = await brief(org, { published_at: PUBLISHED });
  const v = await vuln(org, b.id);
  return { org, vulnId: v.id as string };
}

export async function webhook(
  org: TestOrganization,
  attributes: Record<string, unknown> = {},
  eventTypeIds: string[] = ["0b1e7f1a-5c52-5d7e-9a01-000000000001"],
) {
  const res = await post("/v1/webhooks", org.key, {
    data: {
      type: "webhook",
      attributes: { name: `Hook ${unique()}`, url: "https://hooks.example.com/vdp", ...attributes },
      relationships: { trigger_event_types: { data: eventTypeIds.map((id) => ({ type: "trigger_event_type", id })) } },
    },
  });
  if (res.status !== 201) throw new Error(`webhook factory: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function directory(operatorKey: string, attributes: Record<string, unknown> = {}) {
  const res = await post("/v1/directories", operatorKey, {
    data: { type: "directory", attributes: { name: `Directory ${unique()}`, slug: `dir-${unique()}`, ...attributes } },
  });
  if (res.status !== 201) throw new Error(`directory factory: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function listing(operatorKey: string, directoryId: string, organizationId: string) {
  const res = await post("/v1/directory_listings", operatorKey, {
    data: {
      type: "directory_listing",
      relationships: {
        directory: { data: { type: "directory", id: directoryId } },
        organization: { data: { type: "organization", id: organizationId } },
      },
    },
  });
  if (res.status !== 201) throw new Error(`listing factory: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Bytes that are not text, so a test can tell them apart from any JSON document. */
export function attachmentBytes(size: number, seed = 7): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

/** An attachment upload as a client sends it: the file as the body, its name in ?filename=. */
export function upload(
  key: string | null,
  vulnId: string,
  bytes: Uint8Array | string,
  opts: { filename?: string; contentType?: string | null; headers?: Record<string, string>; env?: Partial<Env> } = {},
) {
  const query = opts.filename === undefined ? "" : `?filename=${encodeURIComponent(opts.filename)}`;
  const length = typeof bytes === "string" ? new TextEncoder().encode(bytes).byteLength : bytes.byteLength;
  return api("POST", `/v1/vulns/${vulnId}/attachments${query}`, {
    key,
    rawBody: bytes,
    contentType: opts.contentType === undefined ? "application/octet-stream" : opts.contentType,
    headers: { "Content-Length": String(length), ...opts.headers },
    env: opts.env,
  });
}

/** A download: the answer's bytes as they are (the api helper parses JSON). */
export async function download(key: string | null, path: string, opts: { method?: string; env?: Partial<Env> } = {}) {
  const ctx = createExecutionContext();
  const headers = key ? { Authorization: `Bearer ${key}` } : undefined;
  const res = await worker.fetch(new Request(`${BASE}${path}`, { method: opts.method ?? "GET", headers }), { ...env, ...opts.env }, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer());
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, bytes };
}
