import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { API_KEY_PATTERN } from "../lib/crypto";
import { findActiveKey } from "../services/api-keys";
import { ApiError } from "./errors";

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", { detail, source: { header: "Authorization" } }).withHeaders({
    "WWW-Authenticate": 'Bearer realm="vdp-api"',
  });
}

/**
 * Resolves `Authorization: Bearer vdp_...` to a caller with one D1 query (the key's SHA-256), then
 * applies the per-key rate limit. Unknown and revoked keys are indistinguishable to the client.
 *
 * @example app.use("/v1/*", bearerAuth())
 */
export function bearerAuth(): MiddlewareHandler<AppEnv> {
  return async function bearerAuthMiddleware(c, next) {
    const header = c.req.header("authorization");
    if (!header) throw unauthorized("Send Authorization: Bearer <API key>.");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized("The Authorization header must be Bearer <API key>.");
    const key = match[1]!;
    if (!API_KEY_PATTERN.test(key)) throw unauthorized("The API key is malformed.");
    const caller = await findActiveKey(c.var.db, key);
    if (!caller) throw unauthorized("The API key is unknown or revoked.");
    c.set("caller", caller);
    const { success } = await c.env.API_RATE_LIMITER.limit({ key: caller.keyId });
    if (!success) throw new ApiError("rate_limited", { detail: "More than 600 requests in a minute with this key." }).withHeaders({ "Retry-After": "60" });
    await next();
  };
}

/** Operator-only operations answer 403 to organization keys. */
export function requireOperator(): MiddlewareHandler<AppEnv> {
  return async function requireOperatorMiddleware(c, next) {
    if (c.var.caller.kind !== "operator") {
      throw new ApiError("forbidden", { detail: "This operation needs an operator key." });
    }
    await next();
  };
}
