import { normalizeShortcode } from "../lib/ids";
import { publicBriefPath, publicDirectoryPath, publicHit } from "./cache";
import { clientIp, counted } from "./rate-limit";

// The public brief and directory reads, answered from the edge cache before the app is built or a
// router runs: a hit costs a rate-limit count and a cache match, as little as a bare Worker's
// cache.match, where the full middleware chain cost about half the throughput. A miss, a bad path or
// a limited client falls through to the app, which answers exactly as before (and does not count the
// request against the limit a second time).
const PUBLIC_READ = /^\/v1\/p\/(briefs|directories)\/([^/]+)$/;


/**
 * What every answer of the app carries besides its own headers (security headers and the public
 * routes' CORS), kept equal to the app's by a test that compares a hit from here with one from there.
 */
const HIT_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "ETag,X-Cache,X-Request-Id,Retry-After",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "Origin-Agent-Cluster": "?1",
  "Referrer-Policy": "no-referrer",
  "Strict-Transport-Security": "max-age=15552000; includeSubDomains",
  "X-Content-Type-Options": "nosniff",
  "X-DNS-Prefetch-Control": "off",
  "X-Download-Options": "noopen",
  "X-Frame-Options": "SAMEORIGIN",
  "X-Permitted-Cross-Domain-Policies": "none",
  "X-XSS-Protection": "0",
};

const CLIENT_REQUEST_ID = /^[\w\-=.:]{1,255}$/;

function cachePath(kind: string, segment: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (kind === "directories") return publicDirectoryPath(decoded);
  const shortcode = normalizeShortcode(decoded);
  return shortcode ? publicBriefPath(shortcode) : null;
}

export async function publicReadFromCache(request: Request, env: Env): Promise<Response | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const match = PUBLIC_READ.exec(new URL(request.url).pathname);
  const path = match && cachePath(match[1]!, match[2]!);
  if (!path) return null;
  const [{ success }, hit] = await Promise.all([
    env.PUBLIC_READ_RATE_LIMITER.limit({ key: clientIp({ header: (name) => request.headers.get(name) ?? undefined }) }),
    publicHit(path, request.headers.get("if-none-match") ?? undefined),
  ]);
  counted.set(request, success);
  if (!hit || !success) return null;
  for (const [name, value] of Object.entries(HIT_HEADERS)) hit.headers.set(name, value);
  hit.headers.set("X-Request-Id", crypto.randomUUID());
  const theirs = request.headers.get("x-request-id");
  if (theirs && CLIENT_REQUEST_ID.test(theirs)) hit.headers.set("X-Client-Request-Id", theirs);
  return request.method === "HEAD" ? new Response(null, hit) : hit;
}
