import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { API_KEY_PATTERN, REPORTER_TOKEN_PATTERN } from "../lib/crypto";
import type { Caller } from "../lib/caller";
import { BearerGate, bearerSecret, type Found } from "./bearer";
import { ApiError } from "./errors";
import { idempotency } from "./idempotency";
import { rateLimited, UNAUTHENTICATED_PER_MINUTE } from "./rate-limit";
import { RATES } from "../lib/limits";

export const REPORTER_PER_MINUTE = RATES.reporter;

/** What a follow-up token opens, as far as this layer is concerned: a report with an id. */
interface Opened {
  id: string;
}

/** The routes under /v1/p/report: the app's variables and the report the token opened. */
export type ReporterEnv<R extends Opened = Opened> = { Bindings: AppEnv["Bindings"]; Variables: AppEnv["Variables"] & { report: R } };

/** How a door opens a report by its token's hash, and the caller a reporter's request runs as. */
export interface ReportLookup<R extends Opened> {
  lookUp: (c: Context, tokenHash: string) => Promise<Found<R>>;
  caller: (report: R) => Caller;
}

/**
 * The gate for follow-up tokens, one for both doors (the reporter's API and its pages): an address
 * guessing tokens through either is counted once.
 */
const tokens = new BearerGate(`More than ${UNAUTHENTICATED_PER_MINUTE} requests in a minute from this address without a valid token.`);

/**
 * Opens a follow-up token from a page's address (/r/{token}): the report, "gone" if it was deleted,
 * or null for anything else (malformed or unknown, counted against the address). Then the per-report
 * limit of 30 requests a minute.
 */
export async function openReportToken<R extends Opened>(
  c: Context,
  token: string,
  { lookUp }: Pick<ReportLookup<R>, "lookUp">,
): Promise<Found<R>> {
  if (!REPORTER_TOKEN_PATTERN.test(token)) {
    await tokens.countFailure(c);
    return null;
  }
  const report = await tokens.open(c, token, (hash) => lookUp(c, hash));
  if (report && report !== "gone") await limitReport(c, report);
  return report;
}

/** Counts a request for a report that was deleted, from a door that answers it like an unknown one. */
export const countUnknownToken = (c: Context) => tokens.countFailure(c);

async function limitReport(c: Context, report: Opened): Promise<void> {
  if (!(await c.env.REPORTER_RATE_LIMITER.limit({ key: report.id })).success)
    throw rateLimited(`More than ${REPORTER_PER_MINUTE} requests in a minute with this follow-up token.`, REPORTER_PER_MINUTE);
}

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", { detail, source: { header: "Authorization" } }).withHeaders({
    "WWW-Authenticate": 'Bearer realm="vdp-report"',
  });
}

/**
 * Resolves `Authorization: Bearer vdpr_...` (a follow-up token) to its report with one D1 query (the
 * token's SHA-256), through the same gate as the pages, then applies the per-token limit of 30
 * requests a minute. An API key is refused by its form, before any lookup: an organization never
 * acts as a reporter.
 *
 * Idempotency-Keys of these routes are scoped to the report: the app's layer ran before the token was
 * known (scoped to the client IP), so it runs again here with the reporter as the caller.
 *
 * @example reportRouter.use("*", reporterAuth({ lookUp: (c, hash) => findReport(c.var.database.db, hash), caller: reporterCaller }))
 */
export function reporterAuth<R extends Opened>({ lookUp, caller }: ReportLookup<R>): MiddlewareHandler<ReporterEnv<R>> {
  const keyed = idempotency<ReporterEnv<R>>();
  return async function reporterAuthMiddleware(c, next) {
    const presented = bearerSecret(c.req.header("authorization"));
    if ("problem" in presented) {
      return tokens.refuse(
        c,
        unauthorized(
          presented.problem === "missing"
            ? "Send Authorization: Bearer <follow-up token>, the vdpr_ token of the submission's answer."
            : "The Authorization header must be Bearer <follow-up token>.",
        ),
      );
    }
    const token = presented.secret;
    if (API_KEY_PATTERN.test(token))
      return tokens.refuse(c, unauthorized("This is an API key; the report routes take the reporter's follow-up token (vdpr_...)."));
    if (!REPORTER_TOKEN_PATTERN.test(token)) return tokens.refuse(c, unauthorized("The follow-up token is malformed."));
    const report = await tokens.open(c, token, (hash) => lookUp(c, hash));
    if (report === "gone")
      throw new ApiError("not_found", { detail: "The organization deleted this report; the follow-up token reaches nothing any more." });
    if (!report) throw unauthorized("The follow-up token is unknown.");
    await limitReport(c, report);
    c.set("report", report);
    c.set("caller", caller(report));
    return keyed(c, next);
  };
}
