import { OpenAPIHono } from "@hono/zod-openapi";
import { except } from "hono/combine";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./app-env";
import { bearerAuth } from "./http/auth";
import { handleError } from "./http/errors";
import { idempotency } from "./http/idempotency";
import { requestMediaType } from "./http/media-type";
import { database, limitBody, noStoreByDefault, requestIdentity } from "./http/middleware";
import { notFoundHandler } from "./http/not-found";
import { validationHook } from "./http/openapi";
import { apiKeysRouter, organizationApiKeysRouter } from "./routes/v1/api-keys";
import { assetsRouter } from "./routes/v1/assets";
import { briefsRouter } from "./routes/v1/briefs";
import { directoriesRouter } from "./routes/v1/directories";
import { directoryListingsRouter } from "./routes/v1/directory-listings";
import { organizationsRouter } from "./routes/v1/organizations";
import { policiesRouter } from "./routes/v1/policies";
import { vulnsRouter } from "./routes/v1/vulns";
import { webhookEventTypesRouter } from "./routes/v1/webhook-event-types";
import { webhooksRouter } from "./routes/v1/webhooks";
import { publicRouter } from "./routes/public";

const PUBLIC_PATHS = ["/v1/p/*", "/v1/openapi.json"];

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });

  app.use("*", requestIdentity());
  app.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      crossOriginResourcePolicy: false,
      crossOriginOpenerPolicy: false,
    }),
  );
  app.use("*", noStoreByDefault());
  app.use("/v1/*", limitBody());
  app.use("/v1/*", requestMediaType());
  app.use("/v1/*", database());
  app.use("/v1/*", except(PUBLIC_PATHS, bearerAuth()));
  app.use("/v1/*", idempotency());

  app.route("/v1/organizations", organizationsRouter);
  app.route("/v1/organizations", organizationApiKeysRouter);
  app.route("/v1/api_keys", apiKeysRouter);
  app.route("/v1/policies", policiesRouter);
  app.route("/v1/assets", assetsRouter);
  app.route("/v1/briefs", briefsRouter);
  app.route("/v1/vulns", vulnsRouter);
  app.route("/v1/webhooks", webhooksRouter);
  app.route("/v1/webhook_event_types", webhookEventTypesRouter);
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
  let document: ReturnType<typeof openApiDocument> | undefined;
  const texts = new Map<string, string>();
  app.get("/v1/openapi.json", (c) => {
    const origin = new URL(c.req.url).origin;
    let body = texts.get(origin);
    if (body === undefined) {
      document ??= openApiDocument(app);
      body = JSON.stringify({ ...document, servers: [{ url: origin }] });
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
 * The OpenAPI 3.0 document, generated from the same route definitions that validate requests. Two
 * things apply to many operations at once and are added here: the Idempotency-Key header of every
 * POST, and the bearer scheme.
 */
function openApiDocument(app: OpenAPIHono<AppEnv>) {
  const doc = app.getOpenAPIDocument({
    openapi: "3.0.1",
    info: {
      title: "Vulnerability Disclosure Platform API",
      version: "1.0.0",
      description:
        "JSON:API 1.1 documents (`application/vnd.api+json`), except the vuln endpoints and the public submission, which answer `application/json` in the same shape. " +
        "Every error is a JSON:API `errors` document. Request bodies may be sent as `application/vnd.api+json` or `application/json`. " +
        "Every POST takes an `Idempotency-Key`: the same key and body within 24 hours replays the first response with `Idempotent-Replayed: true`.",
    },
    security: [{ bearer: [] }],
  });
  doc.components ??= {};
  doc.components.parameters = {
    ...doc.components.parameters,
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Up to 255 characters. The same key with the same body within 24 hours replays the first response (Idempotent-Replayed: true); " +
        "with another body it is a 422 idempotency_key_reused; while the first request is in flight, a 409. Scoped to the API key (public routes: the client IP).",
      schema: { type: "string", maxLength: 255 },
    },
  };
  for (const item of Object.values(doc.paths ?? {})) {
    if (item?.post) item.post.parameters = [...(item.post.parameters ?? []), { $ref: "#/components/parameters/IdempotencyKey" }];
  }
  return doc;
}

export const app = createApp();
