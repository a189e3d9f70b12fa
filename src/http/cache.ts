import { ADVISORY_RENDERINGS as ADVISORY_FORMATS, type AdvisoryRendering as AdvisoryFormat } from "../lib/advisory-renderings";
import type { Context } from "hono";
import { toHex } from "../lib/crypto";
import type { Stale } from "../lib/stale";

/**
 * The edge cache of public reads, on the Cache API. Entries live in the data center
 * that made them; a write evicts them there, and elsewhere they expire within `max-age`.
 * (The Cache API does nothing on *.workers.dev hosts: serve the API from a custom domain.)
 */
export const PUBLIC_MAX_AGE = 60;
export const PUBLIC_CACHE_CONTROL = `public, max-age=${PUBLIC_MAX_AGE}, s-maxage=${PUBLIC_MAX_AGE}`;

/**
 * The public reads the edge cache keeps, in two representations each: the JSON read and the page for
 * people, under their own paths. Writers name the JSON path only; evictPublic drops the page beside
 * it, so no writer can forget it. The cache-first path (src/http/public-hit.ts) matches these too.
 */
export const PUBLIC_READS = {
  briefs: { json: "/v1/p/briefs/", page: "/b/" },
  directories: { json: "/v1/p/directories/", page: "/d/" },
  // A policy has its page only (its versions are read by number, never cached): the JSON path is the
  // key writers name, as for the others.
  policies: { json: "/v1/p/policies/", page: "/p/" },
  // A published advisory: its JSON:API read and page, and its renderings beside the read (ADVISORY_FORMATS).
  advisories: { json: "/v1/p/advisories/", page: "/a/" },
} as const;

/** The renderings of a published advisory, each at its read's path and one of these, cached and evicted with it. */
export { ADVISORY_FORMATS, type AdvisoryFormat };

export function publicAdvisoryPath(id: string, format?: AdvisoryFormat): string {
  return `${PUBLIC_READS.advisories.json}${encodeURIComponent(id)}${format ? `/${format}` : ""}`;
}

export function publicPolicyPath(shortcode: string): string {
  return `${PUBLIC_READS.policies.json}${encodeURIComponent(shortcode)}`;
}

export function publicDirectoryPath(slug: string): string {
  return `${PUBLIC_READS.directories.json}${encodeURIComponent(slug)}`;
}

export function publicBriefPath(shortcode: string): string {
  return `${PUBLIC_READS.briefs.json}${encodeURIComponent(shortcode)}`;
}

/**
 * The files an organization publishes for machines (its security.txt, its advisories' feeds and CSAF
 * provider files), kept in the cache by its slug
 * and evicted together; on a policy's custom domain the same file is kept per host.
 */
export const ORGANIZATION_FILES = [
  "security.txt",
  "advisories.atom",
  "csaf/provider-metadata.json",
  "csaf/white/feed-tlp-white.json",
  "csaf/white/index.txt",
  "csaf/white/changes.csv",
] as const;
export type OrganizationFile = (typeof ORGANIZATION_FILES)[number];

export function organizationFilePath(slug: string, file: OrganizationFile): string {
  return `/o/${encodeURIComponent(slug)}/${file}`;
}

/**
 * The cache's name for a well-known file served on a custom domain (a key only: no route answers it).
 * Only a verified domain's file is stored; entries stored before domains were verified (under
 * `/_hosts/`) are never read again and expire.
 */
export function customDomainFilePath(host: string, file: OrganizationFile): string {
  return `/_verified-hosts/${encodeURIComponent(host)}/.well-known/${file}`;
}

/** The page's cache path beside a public JSON path (`/v1/p/briefs/X` → `/b/X`), or null. */
export function publicPagePath(path: string): string | null {
  for (const { json, page } of Object.values(PUBLIC_READS)) if (path.startsWith(json)) return `${page}${path.slice(json.length)}`;
  return null;
}

// One key per public path, whatever hostname the request came in on (a Worker may serve several
// routes or custom domains): a write through any of them evicts what a read through another stored.
// Query strings and request headers never split the cache either.
const CACHE_ORIGIN = "https://public-cache.vdp-api.internal";
// v2: JSON entries carry their answer's final headers (PUBLIC_JSON_HEADERS); entries of the old form,
// under the old name, expire unread.
const CACHE_NAME = "vdp-public-v2";

// Opened once per isolate: a hit is a cache match and little else, and opening the named cache again on
// every read was a measurable part of it (the bare Worker the bench compares with uses caches.default).
let opened: Promise<Cache> | undefined;
const publicCache = () => (opened ??= caches.open(CACHE_NAME));

function cacheKey(path: string): string {
  return `${CACHE_ORIGIN}${path}`;
}

/** The headers of a public answer a web page may read (CORS). */
export const PUBLIC_EXPOSED_HEADERS = ["ETag", "X-Cache", "X-Request-Id", "Retry-After", "X-RateLimit-Limit"];

/**
 * What every answer of the public JSON routes carries besides its own headers: the app's security
 * headers and the public routes' CORS. They are stored with each JSON entry, so a hit answered before
 * the app (src/http/public-hit.ts) returns the entry nearly as stored; a test compares such a hit with
 * the app's own answer header by header.
 */
export const PUBLIC_JSON_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": PUBLIC_EXPOSED_HEADERS.join(","),
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "Referrer-Policy": "no-referrer",
  "Strict-Transport-Security": "max-age=15552000; includeSubDomains",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "SAMEORIGIN",
};

async function etagOf(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return `"${toHex(new Uint8Array(digest).slice(0, 16))}"`;
}

function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

function notModified(etag: string, cacheState: "HIT" | "MISS"): Response {
  return new Response(null, {
    status: 304,
    headers: { ETag: etag, "Cache-Control": PUBLIC_CACHE_CONTROL, "X-Cache": cacheState },
  });
}

/**
 * Serves a public document from the cache, or builds it with `load` (which may query D1), stores it,
 * and serves it. A hit touches no database. `load` returns null for "not found", which is not cached.
 */
export function cachedPublicDocument(
  c: Context,
  path: string,
  mediaType: string,
  load: () => Promise<unknown | null>,
): Promise<Response | null> {
  return cachedPublicBody(
    c,
    path,
    mediaType,
    async () => {
      const document = await load();
      return document === null ? null : JSON.stringify(document);
    },
    PUBLIC_JSON_HEADERS,
  );
}

/**
 * cachedPublicDocument for a body that is already text (the pages: `load` renders the HTML). The
 * same entry rules: stored before answering, strong ETag, `null` (not found) never cached.
 */
export async function cachedPublicBody(
  c: Context,
  path: string,
  contentType: string,
  load: () => Promise<string | null>,
  stored: Readonly<Record<string, string>> = {},
): Promise<Response | null> {
  const ifNoneMatch = c.req.header("if-none-match");
  const hit = await publicHit(path, ifNoneMatch);
  if (hit) return hit;
  const cache = await publicCache();
  const key = cacheKey(path);
  const body = await load();
  if (body === null) return null;
  const etag = await etagOf(body);
  const headers = { ...stored, "Content-Type": contentType, "Cache-Control": PUBLIC_CACHE_CONTROL, ETag: etag };
  // Stored before answering, not in waitUntil: a write that evicts right after this response must
  // find the entry already there, or a stale copy could land after the eviction. Stored as a hit is
  // answered, X-Cache included, so a hit changes nothing but the request's own id.
  await cache.put(key, new Response(body, { headers: { ...headers, "X-Cache": "HIT" } }));
  if (matchesEtag(ifNoneMatch, etag)) return notModified(etag, "MISS");
  return new Response(body, { headers: { ...headers, "X-Cache": "MISS" } });
}

/** The cached answer for a public path (304 when If-None-Match matches), or null on a miss. */
export async function publicHit(path: string, ifNoneMatch: string | undefined): Promise<Response | null> {
  const cache = await publicCache();
  const hit = await cache.match(cacheKey(path));
  if (!hit) return null;
  const etag = hit.headers.get("ETag") ?? "";
  if (matchesEtag(ifNoneMatch, etag)) return notModified(etag, "HIT");
  // A copy: what the cache hands out may not be changed, and callers add the request's id.
  return new Response(hit.body, hit);
}

/** The cache's JSON paths of what a change made stale (evictPublic adds each one's page). */
export function stalePaths(stale: Stale): string[] {
  return [
    ...(stale.briefs ?? []).map(publicBriefPath),
    ...(stale.directories ?? []).map(publicDirectoryPath),
    ...(stale.policies ?? []).map(publicPolicyPath),
    ...(stale.organizations ?? []).flatMap((slug) => ORGANIZATION_FILES.map((file) => organizationFilePath(slug, file))),
    ...(stale.hosts ?? []).flatMap((host) => ORGANIZATION_FILES.map((file) => customDomainFilePath(host, file))),
    ...(stale.advisories ?? []).flatMap((id) => [publicAdvisoryPath(id), ...ADVISORY_FORMATS.map((f) => publicAdvisoryPath(id, f))]),
  ];
}

/**
 * Evicts public entries in this data center, each JSON path with its page (publicPagePath); awaited
 * so the writer's next read is already fresh.
 */
export async function evictPublic(paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const cache = await publicCache();
  const all = paths.flatMap((path) => [path, publicPagePath(path) ?? []].flat());
  await Promise.all(all.map((path) => cache.delete(cacheKey(path))));
}
