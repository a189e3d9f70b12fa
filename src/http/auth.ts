import { actsForOrganization } from "../lib/caller";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { API_KEY_PATTERN } from "../lib/crypto";
import type { Caller } from "../lib/caller";
import { BearerGate, bearerSecret } from "./bearer";
import { ApiError } from "./errors";
import { routeFacts } from "./route-facts";
import { rateLimited, UNAUTHENTICATED_PER_MINUTE } from "./rate-limit";
import { RATES } from "../lib/limits";
import { carriesFormToken, FORM_TOKEN_HEADER, openSession, type SessionLookup, sessionSecret } from "./session";

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", { detail, source: { header: "Authorization" } }).withHeaders({
    "WWW-Authenticate": 'Bearer realm="vdp-api"',
  });
}

/**
 * Resolves `Authorization: Bearer vdp_...` to a caller with one D1 query (the key's SHA-256, by the
 * `lookUp` the app passes), then applies the per-key rate limit. Unknown and revoked keys are
 * indistinguishable to the client. Requests without a valid key are limited per client IP by the
 * gate (see BearerGate), a missing or malformed key before anything else.
 *
 * @example app.use("/v1/*", bearerAuth({ lookUp: (c, hash) => findActiveKey(c.var.database.db, hash) }))
 */
export function bearerAuth({
  lookUp,
  used,
  session,
}: {
  lookUp: (c: Context<AppEnv>, keyHash: string) => Promise<Caller | null>;
  /** Told of each request a key is accepted for (e.g. to note a new address), after the rate limit; must not wait on D1. */
  used?: (c: Context<AppEnv>, caller: Caller) => void;
  /** The console's session door: a request without Authorization but with the session's cookie. */
  session?: SessionLookup;
}): MiddlewareHandler<AppEnv> {
  const gate = new BearerGate(`More than ${UNAUTHENTICATED_PER_MINUTE} requests in a minute from this address without a valid API key.`);
  return async function bearerAuthMiddleware(c, next) {
    if (routeFacts(c).public) return next();
    const presented = bearerSecret(c.req.header("authorization"));
    // A key, when sent, decides; the session's cookie only where no Authorization came at all.
    if (session && "problem" in presented && presented.problem === "missing" && sessionSecret(c)) return bySession(c, next, session, gate);
    if ("problem" in presented)
      return gate.refuse(
        c,
        unauthorized(
          presented.problem === "missing" ? "Send Authorization: Bearer <API key>." : "The Authorization header must be Bearer <API key>.",
        ),
      );
    if (!API_KEY_PATTERN.test(presented.secret)) return gate.refuse(c, unauthorized("The API key is malformed."));
    const caller = await gate.open(c, presented.secret, (hash) => lookUp(c, hash));
    if (!caller || caller === "gone") throw unauthorized("The API key is unknown, revoked or expired.");
    c.set("caller", caller);
    const { success } = await c.env.API_RATE_LIMITER.limit({ key: caller.keyId });
    if (!success) throw rateLimited(`More than ${RATES.apiKey} requests in a minute with this key.`, RATES.apiKey);
    used?.(c, caller);
    await next();
  };
}

/**
 * A /v1 request of the console's signed-in browser: the member is the caller, limited per session as a
 * key is per key. An unsafe method must come from this site's own pages and carry the session's form
 * token (X-CSRF-Token): the cookie goes with any request another site makes the browser send, the
 * token does not. A session that ended is a 401, counted like an unknown key.
 */
async function bySession(c: Context<AppEnv>, next: () => Promise<void>, door: SessionLookup, gate: BearerGate): Promise<void> {
  const opened = await openSession(c, door);
  if (!opened) {
    await gate.countFailure(c);
    throw unauthorized("The console session has ended (signed out, revoked or expired): sign in again, or send an API key.");
  }
  if (!SAFE_METHODS.has(c.req.method) && !(await carriesFormToken(c, opened)))
    throw new ApiError("forbidden", {
      detail: `A change made with the console's session must come from this site and carry the session's form token in ${FORM_TOKEN_HEADER}.`,
      source: { header: FORM_TOKEN_HEADER },
    });
  const { success } = await c.env.API_RATE_LIMITER.limit({ key: opened.id });
  if (!success) throw rateLimited(`More than ${RATES.apiKey} requests in a minute with this session.`, RATES.apiKey);
  await next();
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

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
    if (!actsForOrganization(c.var.caller)) {
      throw new ApiError("forbidden", { detail: `Operator keys read ${what} but never change them; use the organization's key.` });
    }
    await next();
  };
}
