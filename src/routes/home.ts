import { createRoute, z } from "@hono/zod-openapi";
import { ERRORS_PAGE } from "../http/errors";
import { JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE, preferredMediaType, respond } from "../http/media-type";
import { errorResponse, jsonApiContent } from "../http/openapi/responses";
import { declare } from "../http/route-facts";
import { createRouter } from "../http/router";
import { publicRateLimit } from "../http/rate-limit";
import { database } from "../http/middleware";
import { listPublicDirectories } from "../services/public-directories";
import { homePage } from "../templates/home";
import { routeBy } from "../http/shard-lookup";
import { PAGE_CSP } from "../templates/layout";

export const API_NAME = "Vulnerability Disclosure Platform API";
export const API_VERSION = "1.0.0";

const PUBLIC_ROUTES = [
  { method: "GET", path: "/v1/p/briefs/{shortcode}", description: "A published brief, with its organization and policy" },
  { method: "POST", path: "/v1/p/briefs/{shortcode}/vulns", description: "Submit a report through a published brief" },
  { method: "GET", path: "/v1/p/directories/{slug}", description: "A public directory of organizations" },
] as const;

const PublicRoute = z.object({
  method: z.enum(["GET", "POST"]),
  path: z.enum(PUBLIC_ROUTES.map((r) => r.path)),
  description: z.string().max(200),
});
const IndexDocument = z
  .object({
    jsonapi: z.object({ version: z.literal("1.1") }),
    // The reference and the error pages are in meta: JSON:API's top-level links take only its own members.
    meta: z.object({
      name: z.literal(API_NAME),
      version: z.literal(API_VERSION),
      docs: z.literal("/docs").openapi({ description: "The reference, for people" }),
      errors: z.literal(ERRORS_PAGE).openapi({ description: "Every error code, explained" }),
      public_routes: z.array(PublicRoute).max(PUBLIC_ROUTES.length),
    }),
    links: z.object({
      self: z.enum(["/", "/v1"]),
      describedby: z.literal("/v1/openapi.json").openapi({ description: "This OpenAPI document" }),
    }),
  })
  .openapi("Index");

function index(self: "/" | "/v1"): z.infer<typeof IndexDocument> {
  return {
    jsonapi: { version: "1.1" as const },
    meta: { name: API_NAME, version: API_VERSION, docs: "/docs", errors: ERRORS_PAGE, public_routes: [...PUBLIC_ROUTES] },
    links: { self, describedby: "/v1/openapi.json" },
  };
}

const indexRoute = (path: "/" | "/v1", operationId: string) =>
  createRoute({
    method: "get",
    path,
    operationId,
    tags: ["Index"],
    summary: path === "/" ? "The index: name, version and where to go next" : "The index of version 1 (the same as /)",
    security: [],
    // The directories it names are in every shard (a sharded deployment reads the first).
    middleware: [declare({ public: true }), publicRateLimit("PUBLIC_READ_RATE_LIMITER"), database(), routeBy(() => null)],
    responses: {
      200: {
        description: "The API's name and version, and links to the reference, the OpenAPI document and the public routes",
        content: {
          ...jsonApiContent(IndexDocument),
          ...(path === "/"
            ? {
                "text/html": {
                  // 50 directories at most, each name, slug and description escaped: well under 512 KiB.
                  schema: z
                    .string()
                    .max(512 * 1024)
                    .openapi({ description: "The start page, to a browser (Accept prefers text/html)" }),
                },
              }
            : {}),
        },
      },
      400: errorResponse("A query parameter it does not take"),
      429: errorResponse("Too many requests from this address (see Retry-After)"),
      500: errorResponse("Internal error"),
    },
  });

/**
 * Whether a request's Accept prefers a page to JSON: text/html (or XHTML) with a higher weight than
 * either JSON type. Browsers say so; curl's and clients' `*\/*` and JSON types get the JSON index.
 */
export function prefersHtml(accept: string | undefined): boolean {
  const preferred = preferredMediaType(accept, [JSONAPI_MEDIA_TYPE, JSON_MEDIA_TYPE, "text/html", "application/xhtml+xml"]);
  return preferred === "text/html" || preferred === "application/xhtml+xml";
}

/** GET / and GET /v1: where a newcomer starts, with no key. A browser at / gets the start page. */
export const homeRouter = createRouter()
  .openapi(indexRoute("/", "getIndex"), async (c) => {
    c.header("Vary", "Accept");
    if (!prefersHtml(c.req.header("accept"))) return respond(c, index("/"));
    const directories = await listPublicDirectories(c.var.database.db);
    return c.body(homePage(directories), 200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": PAGE_CSP });
  })
  .openapi(indexRoute("/v1", "getV1Index"), (c) => respond(c, index("/v1")));
