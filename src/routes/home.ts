import { createRoute, z } from "@hono/zod-openapi";
import { ERRORS_PAGE } from "../http/errors";
import { respond } from "../http/media-type";
import { errorResponse, jsonApiContent } from "../http/openapi";
import { declare } from "../http/route-facts";
import { createRouter } from "../http/router";
import { publicRateLimit } from "../http/rate-limit";

export const API_NAME = "Vulnerability Disclosure Platform API";
export const API_VERSION = "1.0.0";

const PublicRoute = z.object({ method: z.string(), path: z.string(), description: z.string() });
const IndexDocument = z
  .object({
    jsonapi: z.object({ version: z.literal("1.1") }),
    meta: z.object({ name: z.string(), version: z.string(), public_routes: z.array(PublicRoute) }),
    links: z.object({ self: z.string(), describedby: z.string(), docs: z.string(), errors: z.string() }),
  })
  .openapi("Index");

const PUBLIC_ROUTES = [
  { method: "GET", path: "/v1/p/briefs/{shortcode}", description: "A published brief, with its organization and policy" },
  { method: "POST", path: "/v1/p/briefs/{shortcode}/vulns", description: "Submit a report through a published brief" },
  { method: "GET", path: "/v1/p/directories/{slug}", description: "A public directory of organizations" },
];

function index(self: string) {
  return {
    jsonapi: { version: "1.1" as const },
    meta: { name: API_NAME, version: API_VERSION, public_routes: PUBLIC_ROUTES },
    links: { self, describedby: "/v1/openapi.json", docs: "/docs", errors: ERRORS_PAGE },
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
    middleware: [declare({ public: true }), publicRateLimit("PUBLIC_READ_RATE_LIMITER", 300)],
    responses: {
      200: {
        description: "The API's name and version, and links to the reference, the OpenAPI document and the public routes",
        content: jsonApiContent(IndexDocument),
      },
      429: errorResponse("Too many requests from this address (see Retry-After)"),
      500: errorResponse("Internal error"),
    },
  });

/** GET / and GET /v1: where a newcomer starts, with no key. */
export const homeRouter = createRouter()
  .openapi(indexRoute("/", "getIndex"), (c) => respond(c, index("/")))
  .openapi(indexRoute("/v1", "getV1Index"), (c) => respond(c, index("/v1")));
