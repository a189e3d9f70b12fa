import { OpenAPIHono } from "@hono/zod-openapi";
import { except } from "hono/combine";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./app-env";
import { bearerAuth } from "./http/auth";
import { handleError } from "./http/errors";
import { idempotency } from "./http/idempotency";
import { requestMediaType } from "./http/media-type";
import { database, limitBody, noStoreByDefault } from "./http/middleware";
import { notFoundHandler } from "./http/not-found";
import { validationHook } from "./http/openapi";
import { uuidv7 } from "./lib/ids";
import { apiKeysRouter, organizationApiKeysRouter } from "./routes/v1/api-keys";
import { assetsRouter } from "./routes/v1/assets";
import { briefsRouter } from "./routes/v1/briefs";
import { organizationsRouter } from "./routes/v1/organizations";
import { policiesRouter } from "./routes/v1/policies";
import { vulnsRouter } from "./routes/v1/vulns";
import { publicRouter } from "./routes/public";

const PUBLIC_PATHS = ["/v1/p/*", "/v1/openapi.json"];

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });

  app.use("*", requestId({ generator: () => uuidv7() }));
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
  app.route("/v1/p", publicRouter);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key: `vdp_` followed by at least 40 base62 characters.",
  });
  app.doc("/v1/openapi.json", (c) => ({
    openapi: "3.0.1",
    info: {
      title: "Vulnerability Disclosure Platform API",
      version: "1.0.0",
      description:
        "JSON:API 1.1 documents (`application/vnd.api+json`), except the vuln endpoints, which answer `application/json` in the same shape. " +
        "Every error is a JSON:API `errors` document. Request bodies may be sent as `application/vnd.api+json` or `application/json`.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
    security: [{ bearer: [] }],
  }));

  app.notFound(notFoundHandler(() => app.routes));
  app.onError(handleError);
  return app;
}

export type App = ReturnType<typeof createApp>;

export const app = createApp();
