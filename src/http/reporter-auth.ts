import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { API_KEY_PATTERN, REPORTER_TOKEN_PATTERN, sha256Hex } from "../lib/crypto";
import { findReport, reporterCaller, type Report } from "../services/report";
import { ApiError } from "./errors";
import { idempotency } from "./idempotency";
import { clientIp, rateLimited, UNAUTHENTICATED_PER_MINUTE, UnauthenticatedLimit } from "./rate-limit";

export const REPORTER_PER_MINUTE = 30;

/** The routes under /v1/p/report: the app's variables and the report the token opened. */
export type ReporterEnv = { Bindings: AppEnv["Bindings"]; Variables: AppEnv["Variables"] & { report: Report } };

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", { detail, source: { header: "Authorization" } }).withHeaders({ "WWW-Authenticate": 'Bearer realm="vdp-report"' });
}

/**
 * Resolves `Authorization: Bearer vdpr_...` (a follow-up token) to its report with one D1 query (the
 * token's SHA-256), then applies the per-token limit of 30 requests a minute. Failures are counted per
 * client IP exactly as for API keys (see UnauthenticatedLimit), so a guessed token costs at most what
 * a guessed key does: one lookup, and none once the address is over its budget. An API key is refused
 * by its form, before any lookup: an organization never acts as a reporter.
 *
 * Idempotency-Keys of these routes are scoped to the report: the app's layer ran before the token was
 * known (scoped to the client IP), so it runs again here with the reporter as the caller.
 *
 * @example reportRouter.use("*", reporterAuth())
 */
export function reporterAuth(): MiddlewareHandler<ReporterEnv> {
  const gate = new UnauthenticatedLimit();
  const keyed = idempotency() as unknown as MiddlewareHandler<ReporterEnv>;
  return async function reporterAuthMiddleware(c, next) {
    const ip = clientIp(c.req);
    const refuse = async (detail: string): Promise<never> => {
      if (await gate.failed(c.env.UNAUTHENTICATED_RATE_LIMITER, ip)) throw tooManyFailures();
      throw unauthorized(detail);
    };
    const header = c.req.header("authorization");
    if (!header) return refuse("Send Authorization: Bearer <follow-up token>, the vdpr_ token of the submission's answer.");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return refuse("The Authorization header must be Bearer <follow-up token>.");
    const token = match[1]!;
    if (API_KEY_PATTERN.test(token)) return refuse("This is an API key; the report routes take the reporter's follow-up token (vdpr_...).");
    if (!REPORTER_TOKEN_PATTERN.test(token)) return refuse("The follow-up token is malformed.");
    const hash = await sha256Hex(token);
    if (!gate.mayLookUp(ip, hash)) throw tooManyFailures();
    const report = await findReport(c.var.database.db, hash);
    if (report === "deleted") throw new ApiError("not_found", { detail: "The organization deleted this report; the follow-up token reaches nothing any more." });
    if (!report) return refuse("The follow-up token is unknown.");
    gate.succeeded(hash);
    const { success } = await c.env.REPORTER_RATE_LIMITER.limit({ key: report.id });
    if (!success) throw rateLimited(`More than ${REPORTER_PER_MINUTE} requests in a minute with this follow-up token.`);
    c.set("report", report);
    c.set("caller", reporterCaller(report));
    return keyed(c, next);
  };
}

function tooManyFailures(): ApiError {
  return rateLimited(`More than ${UNAUTHENTICATED_PER_MINUTE} requests in a minute from this address without a valid token.`);
}
