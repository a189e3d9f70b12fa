import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { type JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE } from "./response-type";

/**
 * What a route (or a whole sub-app) declares about itself, next to its `createRoute`, for the app's
 * middleware to read: the app-wide middleware runs before any route, so it cannot ask the route, but
 * Hono has matched every handler of the request by then, declarations included.
 */
export interface RouteFacts {
  /** Needs no key: the bearer gate lets it through (it limits per client address instead). */
  public?: boolean;
  /** The media type of its answers and its errors; JSON:API's own unless it says otherwise. */
  mediaType?: typeof JSON_MEDIA_TYPE | typeof JSONAPI_MEDIA_TYPE;
  /**
   * Its body is a file, not a JSON document: no media-type check, no 1 MiB limit, no JSON scan; it
   * streams up to `maxBytes`, and an Idempotency-Key covers the file's bytes.
   */
  rawUpload?: { maxBytes: number };
  /** The requests a minute the limit that counts its callers allows (an API key's when not declared). */
  rateLimit?: number;
  /** A read answered from the edge cache: ETag, If-None-Match and X-Cache. */
  cached?: boolean;
  /** Callable from any web page (CORS) though it needs a credential: the reporter's token. */
  cors?: boolean;
}

/**
 * The facts an operation of the OpenAPI document carries (as this extension, which the document's
 * finisher reads and removes), so that what the document says of a route follows what the route
 * declares, not its path.
 */
export const DOCUMENTED_FACTS = "x-route-facts";
export type DocumentedFacts = Pick<RouteFacts, "cached" | "cors">;

/** What the handlers of a route's `middleware` declare, together. */
export function factsOf(middleware: unknown): RouteFacts {
  const handlers = Array.isArray(middleware) ? middleware : middleware ? [middleware] : [];
  return Object.assign({}, ...handlers.map((h) => (h as Partial<Declaration>)[FACTS] ?? {}));
}

const FACTS = Symbol("route facts");
type Declaration = MiddlewareHandler & { [FACTS]: RouteFacts };

/**
 * Declares a route's facts: put it in the route's `middleware` (or `use("*", ...)` it on a sub-app for
 * all of its routes, including its 404s). As a handler it only passes the request on.
 *
 * @example createRoute({ method: "post", path: "/", middleware: [declare({ public: true })], ... })
 */
export function declare(facts: RouteFacts): MiddlewareHandler {
  return declaring(async function declaredFacts(_c: Context, next: () => Promise<void>) {
    await next();
  }, facts);
}

/** A middleware that does its own work and also declares facts, as `declare` does (a limiter, its limit). */
export function declaring<H extends MiddlewareHandler>(handler: H, facts: RouteFacts): H {
  return Object.assign(handler, { [FACTS]: facts });
}

/**
 * The facts of the route that answers this request: the declarations of the sub-apps it is mounted in,
 * then its own (a later one wins). Only the first route is read, up to its handler (the first that takes
 * no `next`): one registered after it is never reached. A request no route matches keeps its sub-apps'
 * facts.
 */
export function routeFacts(c: Context): RouteFacts {
  let facts = known.get(c);
  if (facts) return facts;
  facts = {};
  let route: string | undefined;
  for (const { handler, method, path } of matchedRoutes(c)) {
    if (method !== "ALL") {
      route ??= `${method} ${path}`;
      if (route !== `${method} ${path}`) break;
    }
    const declared = (handler as Partial<Declaration>)[FACTS];
    if (declared) facts = { ...facts, ...declared };
    // A handler that takes no `next` answers: nothing registered after it runs.
    else if (method !== "ALL" && handler.length < 2) break;
  }
  known.set(c, facts);
  return facts;
}

// Read by several middlewares of one request; the matched routes never change within it.
const known = new WeakMap<Context, RouteFacts>();

/** The media type this request's answers and errors carry. */
export function responseMediaType(c: Context): string {
  return routeFacts(c).mediaType ?? JSONAPI_MEDIA_TYPE;
}

/** The raw upload this request is (its limit), or undefined for a JSON body. */
export function rawUpload(c: Context): RouteFacts["rawUpload"] {
  return c.req.method === "POST" ? routeFacts(c).rawUpload : undefined;
}
