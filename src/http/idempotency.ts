import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { sha256Hex } from "../lib/crypto";
import { clientIp } from "./rate-limit";
import { IdempotencyUnit } from "../services/idempotency";
import { ApiError } from "./errors";

/**
 * `Idempotency-Key` on every POST (API.md section 10). This middleware only prepares the request's
 * unit (scope, key, hash of method, path and body); the services reserve the key in their first
 * batch and seal it with the response in the change's batch. Failed requests free the key again.
 * Keys are scoped to the API key, or to the client IP on routes without one.
 *
 * @example app.use("/v1/*", idempotency())
 */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async function idempotencyMiddleware(c, next) {
    if (c.req.method !== "POST") return next();
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (key.length === 0 || key.length > 255) {
      throw new ApiError("bad_request", { detail: "Idempotency-Key must be 1 to 255 characters.", source: { header: "Idempotency-Key" } });
    }
    const scope = c.var.caller ? c.var.caller.keyId : `ip:${clientIp(c.req)}`;
    const requestHash = await idempotencyRequestHash(c.req.method, c.req.path, await c.req.text());
    const unit = new IdempotencyUnit(c.var.database.db, scope, key, requestHash);
    c.set("idempotency", unit);
    await next();
    if (unit.sealed) return;
    if (c.res.status >= 400) {
      // Also when the reservation's own batch failed on the way back: it may have committed, and the
      // token is this request's, so only this request's in-flight reservation can go.
      await unit.release().catch((err) => console.error(JSON.stringify({ level: "warn", message: "idempotency key not released", error: String(err) })));
    } else if (unit.reserved) {
      const res = c.res.clone();
      await unit.storeAfter({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
    }
  };
}

/** What "the same request" means for a key: the same method, path and body, byte for byte. */
export function idempotencyRequestHash(method: string, path: string, body: string): Promise<string> {
  return sha256Hex(`${method} ${path}\n${body}`);
}
