import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { createDb } from "../db";
import { ApiError } from "./errors";

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The db client is built per request from the binding (STYLE habit 7): no module state depends on env.
 *
 * @example app.use("*", database())
 */
export function database(): MiddlewareHandler<AppEnv> {
  return async function databaseMiddleware(c, next) {
    c.set("db", createDb(c.env.DB));
    await next();
  };
}

/**
 * Rejects bodies over 1 MiB with the API's 413 document, before anything parses them.
 *
 * @example app.use("/v1/*", limitBody())
 */
export function limitBody(maxSize = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload_too_large", { detail: `The request body is larger than ${maxSize} bytes.` });
    },
  });
}

/**
 * Authenticated answers are private to their caller: `Cache-Control: no-store` unless a public route
 * already chose its own caching.
 *
 * @example app.use("*", noStoreByDefault())
 */
export function noStoreByDefault(): MiddlewareHandler {
  return async function noStoreByDefaultMiddleware(c, next) {
    await next();
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}

const CLIENT_REQUEST_ID = /^[\w\-=.:]{1,255}$/;

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
