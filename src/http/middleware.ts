import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { PUBLIC_EXPOSED_HEADERS } from "./cache";
import type { AppEnv } from "./app-env";
import { RequestDatabase } from "../db";
import { SINGLE_DATABASE, shardsOf } from "../db/shards";
import { ApiError } from "./errors";
import { announcedFacts, type RouteLookup, rawUpload } from "./route-facts";
import { CLIENT_REQUEST_ID } from "./request-headers";
import { carriesSession } from "./session";
import { LIMITS } from "../lib/limits";

export const MAX_BODY_BYTES = LIMITS.bodyBytes;

// The form D1 gives its bookmarks (e.g. 00000000-00000005-00000000-<32 hex digits>). The runtime
// takes any string, so a malformed one must be refused here or it would silently read stale data.
// The OpenAPI document declares the same pattern for the header, both ways.
export const D1_BOOKMARK_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{32}$";
const BOOKMARK = new RegExp(D1_BOOKMARK_PATTERN);
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Every request's D1 work runs in one D1 session (read replication). Reads start at any replica, or
 * at the client's `X-D1-Bookmark` so it reads its own earlier writes; writes start at the primary.
 * Every authenticated answer, errors included, carries the session's latest `X-D1-Bookmark`.
 *
 * @example app.use("/v1/*", database())
 */
export function database(): MiddlewareHandler<AppEnv> {
  return async function databaseMiddleware(c, next) {
    const bookmark = c.req.header("x-d1-bookmark");
    if (bookmark !== undefined && !BOOKMARK.test(bookmark)) {
      throw new ApiError("bad_request", {
        detail: "X-D1-Bookmark must be a bookmark this API returned.",
        source: { header: "X-D1-Bookmark" },
      });
    }
    // A console session's reads start at the primary: a sign-out or revocation holds from the very next
    // request, which a replica that has not caught up would not know of.
    const cookieSession = !c.req.header("authorization") && carriesSession(c.req.header("cookie"));
    const start = READ_METHODS.has(c.req.method) && !cookieSession ? (bookmark ?? "first-unconstrained") : "first-primary";
    const shards = shardsOf(c.env);
    const requestDb = new RequestDatabase(start, shards.sharded ? undefined : { shard: SINGLE_DATABASE, d1: c.env.DB });
    c.set("database", requestDb);
    await next();
    const latest = requestDb.bookmark();
    if (c.var.caller && latest) c.res.headers.set("X-D1-Bookmark", latest);
  };
}

/**
 * Rejects bodies over LIMITS.bodyBytes (1 MiB) with the API's 413 document, before anything parses them. Attachment
 * uploads are the exception (a route that declares `rawUpload`): they stream up to 10 MiB and count as they go, where this
 * limit would gather a chunked body in memory first.
 *
 * @example app.use("/v1/*", limitBody())
 */
export function limitBody(maxSize = MAX_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload_too_large", { detail: `The request body is larger than ${maxSize} bytes.` });
    },
  });
  return function limitBodyMiddleware(c, next) {
    return rawUpload(c) ? next() : limit(c, next);
  };
}

/**
 * Authenticated answers are private to their caller: `Cache-Control: no-store` unless a public route
 * already chose its own caching.
 *
 * @example app.use("*", noStoreByDefault())
 */
export function noStoreByDefault(): MiddlewareHandler {
  return noStore({ unlessSet: true });
}

/**
 * `Cache-Control: no-store` on the answer, whatever ran before (or, with `unlessSet`, unless a route
 * already chose its own caching): never kept by a browser or a shared cache.
 *
 * @example const auth = [noStore(), reporterAuth(...)]
 */
export function noStore({ unlessSet = false }: { unlessSet?: boolean } = {}): MiddlewareHandler {
  return async function noStoreMiddleware(c, next) {
    await next();
    if (!unlessSet || !c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}

/**
 * Every response carries the server's own `X-Request-Id`, the id its logs use. A client's
 * `X-Request-Id` never becomes it (anyone could make log lines collide or forge a reference); a
 * well-formed one is echoed as `X-Client-Request-Id` so the client can correlate.
 *
 * @example app.use("*", requestIdentity())
 */
export function requestIdentity(): MiddlewareHandler {
  return async function requestIdentityMiddleware(c, next) {
    const id = crypto.randomUUID();
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    const theirs = c.req.header("x-request-id");
    if (theirs && CLIENT_REQUEST_ID.test(theirs)) c.header("X-Client-Request-Id", theirs);
    await next();
  };
}

/**
 * CORS for what its route declares needs no key (`public`) or may be called from a web page with the
 * reporter's token (`cors`): any origin may read, and may submit a report. A preflight gets the facts
 * of the request it announces, looked up in the app's routes (see announcedFacts). The keyed routes
 * send no CORS headers at all, on purpose: an API key belongs on a server, so no web page can read
 * their answers.
 *
 * @example app.use("*", publicCors({ lookUp: routesOf(app) }))
 */
export function publicCors({ lookUp }: { lookUp: RouteLookup }): MiddlewareHandler {
  const open = cors({
    origin: "*",
    allowMethods: ["GET", "HEAD", "POST", "OPTIONS"],
    exposeHeaders: PUBLIC_EXPOSED_HEADERS,
    maxAge: 86400,
  });
  return function publicCorsMiddleware(c, next) {
    const facts = announcedFacts(c, lookUp);
    return facts.public || facts.cors ? open(c, next) : next();
  };
}

/**
 * What only an HTML document heeds, on every page the Worker answers (the reference, the pages, their
 * errors): an agent cluster of its own, and no DNS prefetch of the links it shows. JSON answers go
 * without them.
 *
 * @example app.use("*", htmlDocumentHeaders())
 */
export function htmlDocumentHeaders(): MiddlewareHandler {
  return async function htmlDocumentHeadersMiddleware(c, next) {
    await next();
    if (!c.res.headers.get("Content-Type")?.startsWith("text/html")) return;
    c.res.headers.set("Origin-Agent-Cluster", "?1");
    c.res.headers.set("X-DNS-Prefetch-Control", "off");
  };
}
