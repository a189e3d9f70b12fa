import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { API_KEY_PATTERN, sha256Hex } from "../lib/crypto";
import { findActiveKey } from "../services/api-keys";
import { ApiError } from "./errors";
import { clientIp, rateLimited, UNAUTHENTICATED_PER_MINUTE, UnauthenticatedLimit } from "./rate-limit";

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", { detail, source: { header: "Authorization" } }).withHeaders({
    "WWW-Authenticate": 'Bearer realm="vdp-api"',
  });
}

/**
 * Resolves `Authorization: Bearer vdp_...` to a caller with one D1 query (the key's SHA-256), then
 * applies the per-key rate limit. Unknown and revoked keys are indistinguishable to the client.
 * Requests without a valid key are limited per client IP (see UnauthenticatedLimit), a missing or
 * malformed key before anything else and an over-budget address before any D1 read.
 *
 * @example app.use("/v1/*", bearerAuth())
 */
export function bearerAuth(): MiddlewareHandler<AppEnv> {
  const gate = new UnauthenticatedLimit();
  return async function bearerAuthMiddleware(c, next) {
    const ip = clientIp(c.req);
    const refuse = async (detail: string): Promise<never> => {
      if (await gate.failed(c.env.UNAUTHENTICATED_RATE_LIMITER, ip)) throw tooManyFailures();
      throw unauthorized(detail);
    };
    const header = c.req.header("authorization");
    if (!header) return refuse("Send Authorization: Bearer <API key>.");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return refuse("The Authorization header must be Bearer <API key>.");
    const key = match[1]!;
    if (!API_KEY_PATTERN.test(key)) return refuse("The API key is malformed.");
    const hash = await sha256Hex(key);
    if (!gate.mayLookUp(ip, hash)) throw tooManyFailures();
    const caller = await findActiveKey(c.var.database.db, hash);
    if (!caller) return refuse("The API key is unknown or revoked.");
    gate.succeeded(hash);
    c.set("caller", caller);
    const { success } = await c.env.API_RATE_LIMITER.limit({ key: caller.keyId });
    if (!success) throw rateLimited("More than 600 requests in a minute with this key.");
    await next();
  };
}

function tooManyFailures(): ApiError {
  return rateLimited(`More than ${UNAUTHENTICATED_PER_MINUTE} requests in a minute from this address without a valid API key.`);
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

/**
 * Writes that an operator key never makes, whatever the organization: a vuln is the organization's
 * report inbox and a webhook carries that inbox's text to the organization's own URL, so only the
 * organization's key may change them. Reads stay open to operators.
 *
 * @example createRoute({ method: "post", path: "/", middleware: [requireOrganizationKey("vulns")], ... })
 */
export function requireOrganizationKey(what: string): MiddlewareHandler<AppEnv> {
  return async function requireOrganizationKeyMiddleware(c, next) {
    if (c.var.caller.kind !== "organization") {
      throw new ApiError("forbidden", { detail: `Operator keys read ${what} but never change them; use the organization's key.` });
    }
    await next();
  };
}
