import { OpenAPIHono } from "@hono/zod-openapi";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./http/app-env";
import { bearerAuth } from "./http/auth";
import { routeByName, routeOperators, routeToOrganization } from "./http/shard-lookup";
import { findActiveKey, noteKeyUse } from "./services/api-keys";
import { serviceContext } from "./routes/v1/handler-helpers";
import { handleError } from "./http/errors";
import { idempotency } from "./http/idempotency";
import { requestMediaType } from "./http/media-type";
import { database, htmlDocumentHeaders, limitBody, noStoreByDefault, publicCors, requestIdentity } from "./http/middleware";
import { rateLimitHeader } from "./http/rate-limit";
import { notFoundHandler } from "./http/not-found";
import { declare, routeFacts, routesOf } from "./http/route-facts";
import { validationHook } from "./http/openapi/validation";
import { errorsMarkdown, finishDocument } from "./http/openapi-document";
import { docsRouter } from "./routes/docs";
import type { ReferenceDocument } from "./templates/reference";
import { API_NAME, API_VERSION, homeRouter } from "./routes/home";
import { wellKnownRouter } from "./routes/well-known";
import { apiKeysRouter, organizationApiKeysRouter } from "./routes/v1/api-keys";
import { assetsRouter } from "./routes/v1/assets";
import { briefsRouter } from "./routes/v1/briefs";
import { directoriesRouter } from "./routes/v1/directories";
import { directoryListingsRouter } from "./routes/v1/directory-listings";
import { organizationsRouter } from "./routes/v1/organizations";
import { organizationMoveRouter } from "./routes/v1/organizations/move";
import { policiesRouter } from "./routes/v1/policies";
import { vulnsRouter } from "./routes/v1/vulns";
import { webhookEventTypesRouter } from "./routes/v1/webhook-event-types";
import { metricsRouter } from "./routes/v1/metrics";
import { auditEventsRouter } from "./routes/v1/audit-events";
import { webhooksRouter } from "./routes/v1/webhooks";
import { contactsRouter } from "./routes/v1/contacts";
import { cannedResponsesRouter } from "./routes/v1/canned-responses";
import { membersRouter } from "./routes/v1/members";
import { advisoriesRouter } from "./routes/v1/advisories";
import { notificationsRouter } from "./routes/v1/notifications";
import { publicRouter } from "./routes/public";
import { pagesRouter } from "./routes/pages";
import { sessionDoor } from "./routes/pages/console-door";
import { organizationFilesRouter } from "./routes/organization-files";

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use("*", requestIdentity());
  let document: ReturnType<typeof openApiDocument> | undefined;
  // Both read what the route answering the request declares (RouteFacts): the limit on the API's
  // answers (the pages, made for people, say their limits in words when they refuse), CORS on what
  // needs no key, its refusals too (so CORS comes before them).
  app.use("*", rateLimitHeader());
  app.use("*", publicCors({ lookUp: routesOf(app) }));
  // JSON answers need no content at all; the pages set their own policy (their stylesheet, forms).
  app.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      crossOriginResourcePolicy: false,
      crossOriginOpenerPolicy: false,
      // Not sent: headers for browsers and plug-ins gone from use (IE8's download prompt, Flash's and
      // Acrobat's cross-domain policies, the XSS auditors every browser removed), and two that speak only
      // to HTML documents, which pages get from htmlDocumentHeaders. A cached public read is then a
      // cache match with a few headers, measured against a bare Worker's by the bench.
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
      originAgentCluster: false,
      xDnsPrefetchControl: false,
      // A route that sets its own header keeps it (attachment downloads answer CSP: sandbox).
      overwrite: false,
    }),
  );
  app.use("*", htmlDocumentHeaders());
  app.use("*", noStoreByDefault());
  // Whatever answers under /v1 is the API, an unknown path or method too (its routes declare it themselves).
  app.use("/v1/*", declare({ api: true }));
  app.use("/v1/*", limitBody());
  app.use("/v1/*", requestMediaType());
  app.use("/v1/*", database());
  // Every route needs a key unless it declares itself public (see RouteFacts).
  // Or, without Authorization, the console's session cookie: a signed-in member uses the API from the browser.
  app.use(
    "/v1/*",
    bearerAuth({
      // A sharded deployment first finds the key's shard in the catalog (edge-cached); the shard decides whether the key is live.
      lookUp: async (c, keyHash) => {
        const db = await routeByName(c, { kind: "api_key", name: keyHash });
        if (db) c.set("keyDatabase", db);
        return db ? findActiveKey(db, keyHash) : null;
      },
      // A key used from a new address is audited, after the answer: the address came with the lookup.
      // (In the database the key was found in: an operator's is the catalog's.)
      used: (c) => noteKeyUse(serviceContext(c, undefined, c.var.keyDatabase)),
      session: sessionDoor,
    }),
  );
  // An operator's request about one organization reads that organization's shard (a sharded deployment).
  for (const path of ["/v1/organizations/:id", "/v1/organizations/:id/*"])
    app.use(path, async (c, next) => {
      if (!routeFacts(c).spansShards) await routeToOrganization(c, c.req.param("id")!);
      await next();
    });
  app.use("/v1/*", routeOperators());
  app.use("/v1/*", idempotency());

  app.route("/", homeRouter);
  app.route("/", wellKnownRouter);
  // The reference page is rendered from the document /v1/openapi.json serves.
  app.route(
    "/",
    docsRouter(() => (document ??= openApiDocument(app)) as unknown as ReferenceDocument),
  );
  // The pages for people, outside /v1: their own policy, limits and error pages (src/routes/pages).
  app.route("/", pagesRouter);
  app.route("/", organizationFilesRouter);
  app.route("/v1/organizations", organizationsRouter);
  app.route("/v1/organizations", organizationApiKeysRouter);
  app.route("/v1/organizations", organizationMoveRouter);
  app.route("/v1/api_keys", apiKeysRouter);
  app.route("/v1/policies", policiesRouter);
  app.route("/v1/assets", assetsRouter);
  app.route("/v1/briefs", briefsRouter);
  app.route("/v1/vulns", vulnsRouter);
  app.route("/v1/webhooks", webhooksRouter);
  app.route("/v1/webhook_event_types", webhookEventTypesRouter);
  app.route("/v1/metrics", metricsRouter);
  app.route("/v1/contacts", contactsRouter);
  app.route("/v1/members", membersRouter);
  app.route("/v1/canned_responses", cannedResponsesRouter);
  app.route("/v1/advisories", advisoriesRouter);
  app.route("/v1/notifications", notificationsRouter);
  app.route("/v1/audit_events", auditEventsRouter);
  app.route("/v1/directories", directoriesRouter);
  app.route("/v1/directory_listings", directoryListingsRouter);
  app.route("/v1/p", publicRouter);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key: `vdp_` followed by at least 40 base62 characters.",
  });
  // Built on the first request of an isolate, not at start-up (it costs CPU) and not per request;
  // only `servers` depends on the request, so the text is kept per origin (a few custom domains).
  const texts = new Map<string, string>();
  app.get("/v1/openapi.json", declare({ public: true }), (c) => {
    const origin = new URL(c.req.url).origin;
    let body = texts.get(origin);
    if (body === undefined) {
      document ??= openApiDocument(app);
      const info = {
        ...document.info,
        contact: { name: "The reference", url: `${origin}/docs` },
        license: { name: "MIT", url: "https://spdx.org/licenses/MIT.html" },
      };
      // Which environment it is, for people and for tools that tell a production API from a local one.
      const local = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(new URL(origin).hostname);
      const description = local ? "This deployment: local, as npm run dev serves it" : "This deployment: production";
      body = JSON.stringify({ ...document, info, servers: [{ url: origin, description, "x-internal": false }] });
      if (texts.size < 16) texts.set(origin, body);
    }
    c.header("Content-Type", "application/json");
    return c.body(body);
  });

  app.notFound(notFoundHandler(() => app.routes));
  app.onError(handleError);
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The OpenAPI 3.0 document, generated from the same route definitions that validate requests, then
 * finished by finishDocument (src/http/openapi-document.ts) with what applies to many operations at
 * once: headers, shared parameters, descriptions, tags.
 */
function openApiDocument(app: OpenAPIHono<AppEnv>) {
  const doc = app.getOpenAPIDocument({
    openapi: "3.0.1",
    info: {
      title: API_NAME,
      version: API_VERSION,
      description: [
        "The API of a vulnerability disclosure platform: organizations publish disclosure policies and briefs, researchers report " +
          "through them, and reports reach the organization's inbox and webhooks.",
        "",
        "**Documents.** JSON:API 1.1 (`application/vnd.api+json`), except the vuln endpoints and the public submission, which answer " +
          "`application/json` in the same shape. Request bodies may be sent as either type.",
        "",
        "**Keys.** `Authorization: Bearer vdp_...`. An organization key acts for one organization; an operator key curates " +
          "organizations and directories. The routes under `/v1/p/`, `/` and `/v1` need no key. A member signed in to the console " +
          "(`/console`) may also call the API from that browser, by its session cookie and within its role, when no key is sent; a " +
          "change made so must come from the console's own pages and carry the session's form token in `X-CSRF-Token`.",
        "",
        "**Repeats.** Every POST takes an `Idempotency-Key`: the same key and body within 24 hours replays the first response with " +
          "`Idempotent-Replayed: true`.",
        "",
        "**Reading your writes.** Authenticated answers carry `X-D1-Bookmark`; send it back to read at least that answer's writes " +
          "from any replica.",
        "",
        "## Errors",
        "",
        "Every error is a JSON:API `errors` document. Each error object has `status`, `code`, `title`, usually `detail` and " +
          "`source`, `links.about` (its entry on the errors page) and `meta.request_id` (the answer's `X-Request-Id`).",
        "",
        errorsMarkdown(),
      ].join("\n"),
    },
    security: [{ bearer: [] }],
  });
  finishDocument(doc);
  return doc;
}

export const app = createApp();
