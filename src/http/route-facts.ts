import type { Context, Hono, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { RouterRoute } from "hono/types";
import { type JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE } from "./response-type";

/**
 * What a route (or a whole sub-app) declares about itself, next to its `createRoute`, for the app's
 * middleware to read: the app-wide middleware runs before any route, so it cannot ask the route, but
 * Hono has matched every handler of the request by then, declarations included.
 */
export interface RouteFacts {
  /**
   * Needs no key: the bearer gate lets it through (it limits per client address instead), and any web
   * page may call it, its refusals included (CORS).
   */
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
  /**
   * An answer of the API, which names its caller's limit (X-RateLimit-Limit): every operation of the
   * OpenAPI document (createRouter declares it at the operation's path, for every method), and whatever
   * else answers under /v1. The pages, the
   * reference and an organization's files are for people and their tools, and say no limit.
   */
  api?: boolean;
  /**
   * Works across the tenant databases itself (an organization's move): an operator's request whose path
   * names an organization is not routed to that organization's database, nor refused while it moves.
   */
  spansShards?: boolean;
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
  facts = factsOfRoutes(matchedRoutes(c));
  known.set(c, facts);
  return facts;
}

function factsOfRoutes(matched: RouterRoute[]): RouteFacts {
  let facts: RouteFacts = {};
  let route: string | undefined;
  for (const { handler, method, path } of matched) {
    if (method !== "ALL") {
      route ??= `${method} ${path}`;
      if (route !== `${method} ${path}`) break;
    }
    const declared = (handler as Partial<Declaration>)[FACTS];
    if (declared) facts = { ...facts, ...declared };
    // A handler that takes no `next` answers: nothing registered after it runs.
    else if (method !== "ALL" && handler.length < 2) break;
  }
  return facts;
}

/** The handlers an app matches for a method and a path, in the order it runs them. */
export type RouteLookup = (method: string, path: string) => RouterRoute[];

/** The lookup of `app`'s own routes (its sub-apps' included: mounting copies them into its router). */
// biome-ignore lint/suspicious/noExplicitAny: any app's environment; only its router is read.
export function routesOf(app: Hono<any>): RouteLookup {
  return (method, path) => app.router.match(method, path)[0].map(([[, route]]) => route);
}

/**
 * The facts a request is answered under, a CORS preflight's too: an OPTIONS request with
 * Access-Control-Request-Method matches no route of its own (no route declares OPTIONS), so it gets
 * the facts of the request it announces, at the same path, found by `lookUp`. A GET route that needs
 * no key is thus open to a preflight without a list of its paths anywhere.
 */
export function announcedFacts(c: Context, lookUp: RouteLookup): RouteFacts {
  const announced = c.req.method === "OPTIONS" ? c.req.header("access-control-request-method")?.toUpperCase() : undefined;
  if (!announced) return routeFacts(c);
  // Hono answers HEAD with the GET routes.
  return factsOfRoutes(lookUp(announced === "HEAD" ? "GET" : announced, c.req.path));
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
