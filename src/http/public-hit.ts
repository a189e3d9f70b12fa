import { normalizeShortcode, normalizeUuid } from "../lib/ids";
import { CLIENT_REQUEST_ID } from "./request-headers";
import { PUBLIC_JSON_HEADERS, PUBLIC_READS, publicAdvisoryPath, publicBriefPath, publicDirectoryPath, publicHit } from "./cache";
import { allowAddress, clientIp, counted, PUBLIC_READS_PER_MINUTE, RATE_LIMIT_HEADER } from "./rate-limit";

// The public brief and directory reads, answered from the edge cache before the app is built or a
// router runs: a hit costs a count against the read limit (most often in this isolate's memory, see
// ReadBudget) and a cache match, close to a bare Worker's cache.match, where the full middleware chain
// cost about half the throughput. A miss, a bad path or a limited client falls through to the app,
// which answers exactly as before (and does not count the request against the limit a second time).
// A regex (one test, no router), built from the cache's own table of public reads. A request with a
// query string is the app's to answer: these reads take no parameters, and any is a 400.
const PUBLIC_READ = new RegExp(
  `^(${Object.values(PUBLIC_READS)
    .map((r) => r.json)
    .join("|")})([^/?#]+)$`,
);

/** The path and query of a request's URL, which the runtime hands over absolute and normalized. */
function pathOf(url: string): string {
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
}

function cachePath(prefix: string, segment: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (prefix === PUBLIC_READS.directories.json) return publicDirectoryPath(decoded);
  // No JSON read of a policy is cached (only its page): the app answers.
  if (prefix === PUBLIC_READS.policies.json) return null;
  if (prefix === PUBLIC_READS.advisories.json) {
    const id = normalizeUuid(decoded);
    return id && publicAdvisoryPath(id);
  }
  const shortcode = normalizeShortcode(decoded);
  return shortcode ? publicBriefPath(shortcode) : null;
}

export async function publicReadFromCache(request: Request, env: Env): Promise<Response | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const match = PUBLIC_READ.exec(pathOf(request.url));
  const path = match && cachePath(match[1]!, match[2]!);
  if (!path) return null;
  const [success, hit] = await Promise.all([
    allowAddress(env, "PUBLIC_READ_RATE_LIMITER", clientIp({ header: (name) => request.headers.get(name) ?? undefined })),
    publicHit(path, request.headers.get("if-none-match") ?? undefined),
  ]);
  counted.set(request, success);
  if (!hit || !success) return null;
  // A 200 comes with the stored headers (PUBLIC_JSON_HEADERS); a 304 is made afresh.
  if (hit.status === 304) for (const [name, value] of Object.entries(PUBLIC_JSON_HEADERS)) hit.headers.set(name, value);
  hit.headers.set("X-Request-Id", crypto.randomUUID());
  hit.headers.set(RATE_LIMIT_HEADER, String(PUBLIC_READS_PER_MINUTE));
  const theirs = request.headers.get("x-request-id");
  if (theirs && CLIENT_REQUEST_ID.test(theirs)) hit.headers.set("X-Client-Request-Id", theirs);
  return request.method === "HEAD" ? new Response(null, hit) : hit;
}
