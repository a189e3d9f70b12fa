import { LIMITS } from "../lib/limits";

// The forms of the request headers a client chooses the value of.

/** An Idempotency-Key: 1 to 255 printable ASCII characters (space included). */
export const IDEMPOTENCY_KEY_PATTERN = `^[\\x20-\\x7E]{1,${LIMITS.idempotencyKeyLength}}$`;
/** The X-Request-Id a client sends that is echoed back as X-Client-Request-Id: 1 to 255 word characters and -=.: */
export const CLIENT_REQUEST_ID_PATTERN = `^[\\w\\-=.:]{1,${LIMITS.clientRequestIdLength}}$`;
export const CLIENT_REQUEST_ID = new RegExp(CLIENT_REQUEST_ID_PATTERN);

/**
 * Whether a browser sent this request from this site's own pages. A browser says where a request came
 * from: `Sec-Fetch-Site`, its own verdict (current browsers), or else `Origin`, compared with this
 * request's own ("null", an opaque origin, counts as another site). The browser's verdict comes first
 * because a proxy in front of the Worker (wrangler dev's, for one) may rewrite the address the Worker
 * sees, never what the browser judged. A client that sends neither is no browser acting for someone
 * else. The pages' forms and the console's session are held to it.
 */
export function fromOwnSite(req: { url: string; header(name: string): string | undefined }): boolean {
  const site = req.header("sec-fetch-site");
  const origin = req.header("origin");
  return site !== undefined ? site !== "cross-site" : origin === undefined || origin === new URL(req.url).origin;
}
