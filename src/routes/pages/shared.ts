import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../../http/app-env";
import { ApiError, asApiError } from "../../http/errors";
import { allowAddress, clientIp, rateLimited } from "../../http/rate-limit";
import { notFoundPage, PAGE_CSP, problemPage, tooManyPage } from "../../templates/layout";
import { LIMITS, mib, RATES } from "../../lib/limits";
import { noStore } from "../../http/middleware";
import { fromOwnSite } from "../../http/request-headers";

export const HTML = "text/html; charset=utf-8";

export function page(c: Context, body: string, status: ContentfulStatusCode = 200): Response {
  return c.body(body, status, { "Content-Type": HTML });
}

/**
 * Every page answer carries the pages' policy (the app's JSON policy would block the stylesheet). An
 * answer that set its own keeps it: a file download is `sandbox`, whichever door it came through.
 */
export const pageHeaders: MiddlewareHandler = async function pageHeadersMiddleware(c, next) {
  await next();
  if (!c.res.headers.has("Content-Security-Policy")) c.res.headers.set("Content-Security-Policy", PAGE_CSP);
};

/**
 * The pages' forms are sent from their own pages only (see fromOwnSite). Another site could otherwise
 * make its visitors' browsers submit reports (spending their address's budget) or post into a
 * reporter's conversation.
 */
export const sameSiteForms: MiddlewareHandler = async function sameSiteFormsMiddleware(c, next) {
  if (c.req.method !== "POST" || fromOwnSite(c.req)) return next();
  return page(c, problemPage("Not sent", "This form can be sent only from its own page on this site. Nothing was stored."), 403);
};

/** The reporter's pages: the address is the key, so nothing keeps or passes it on. */
export const privatePage: MiddlewareHandler = async function privatePageMiddleware(c, next) {
  await noStore()(c, next);
  c.res.headers.set("Referrer-Policy", "no-referrer");
  c.res.headers.set("X-Robots-Tag", "noindex, nofollow");
};

/**
 * A signed-in member's page: never stored by a cache, its address never passed on. Not marked
 * noindex: a crawler has no session, so it only ever sees the sign-in page these redirect to.
 */
export const memberPage: MiddlewareHandler = async function memberPageMiddleware(c, next) {
  await noStore()(c, next);
  c.res.headers.set("Referrer-Policy", "no-referrer");
};

/** A page request's per-address limit (the same limiters and budgets as the JSON routes). */
export async function limitAddress(c: Context<AppEnv>, binding: "PUBLIC_READ_RATE_LIMITER" | "PUBLIC_SUBMIT_RATE_LIMITER"): Promise<void> {
  if (!(await allowAddress(c.env, binding, clientIp(c.req))))
    throw rateLimited(
      "Too many requests from this address.",
      binding === "PUBLIC_READ_RATE_LIMITER" ? RATES.publicReads : RATES.publicSubmits,
    );
}

/** A body limit for a form, checked on Content-Length and again while the body is read. */
export function limitFormBody(maxSize: number): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload_too_large", { detail: `The form is larger than ${maxSize} bytes.` });
    },
  });
}

/** Errors of the page routes answer as pages, never as the API's JSON documents. */
export function pageError(err: Error, c: Context): Response {
  c.res.headers.set("Content-Security-Policy", PAGE_CSP);
  const respond = (body: string, status: ContentfulStatusCode) => {
    const res = page(c, body, status);
    res.headers.set("Content-Security-Policy", PAGE_CSP);
    return res;
  };
  const known = asApiError(err);
  if (known) {
    if (known.status === 429) {
      const res = respond(tooManyPage(60), 429);
      res.headers.set("Retry-After", "60");
      return res;
    }
    if (known.status === 404) return respond(notFoundPage(), 404);
    if (known.status === 413)
      return respond(
        problemPage(
          "Too large",
          `The form is larger than this page accepts: files may be at most ${mib(LIMITS.fileBytes)} each, ${LIMITS.formFiles} with ` +
            `the report. Nothing was stored.`,
        ),
        413,
      );
    if (known.status < 500) return respond(problemPage("Not sent", known.message), known.status);
  }
  console.error(JSON.stringify({ level: "error", message: "page failed", path: c.req.path, error: String(err) }));
  return respond(
    problemPage(
      "Something went wrong",
      "Nothing was lost on our side that you need to redo, unless the page says otherwise: try again in a moment.",
    ),
    500,
  );
}
