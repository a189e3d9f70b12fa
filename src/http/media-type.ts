import type { Context, MiddlewareHandler } from "hono";
import type { TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import { ApiError } from "./errors";

export const JSONAPI_MEDIA_TYPE = "application/vnd.api+json";
export const JSON_MEDIA_TYPE = "application/json";

// The spec draws the vuln endpoints (and so the public submission, which makes a vuln) with
// application/json; everything else is JSON:API's own media type. Errors follow their route.
const PLAIN_JSON_PATHS = [/^\/v1\/vulns(\/|$)/, /^\/v1\/p\/briefs\/[^/]+\/vulns\/?$/];

export function responseMediaType(path: string): string {
  return PLAIN_JSON_PATHS.some((re) => re.test(path)) ? JSON_MEDIA_TYPE : JSONAPI_MEDIA_TYPE;
}

/**
 * Serializes a document with the media type of the route it answers. Typed like `c.json`, so a
 * handler's document is checked against the response schema its route declares.
 */
export function respond<T, S extends ContentfulStatusCode = 200>(c: Context, document: T, status?: S): TypedResponse<JSONParsed<T>, S, "json"> {
  c.header("Content-Type", responseMediaType(c.req.path));
  return c.body(JSON.stringify(document), status ?? 200) as unknown as TypedResponse<JSONParsed<T>, S, "json">;
}

const METHODS_WITH_BODY = new Set(["POST", "PATCH", "PUT"]);

/**
 * Checks the request body's media type before any route sees it (API.md section 1):
 * `application/json` (with any parameters, e.g. charset) or `application/vnd.api+json` with no
 * parameters other than `ext` and `profile`. A POST with no body at all (e.g. an action) passes.
 *
 * @example app.use("/v1/*", requestMediaType())
 */
export function requestMediaType(): MiddlewareHandler {
  return async function requestMediaTypeMiddleware(c, next) {
    if (!METHODS_WITH_BODY.has(c.req.method)) return next();
    const header = c.req.header("content-type");
    if (!header) {
      if (c.req.raw.body === null || c.req.header("content-length") === "0") return next();
      throw unsupported("A request body needs a Content-Type header.");
    }
    if (!isAcceptedMediaType(header)) {
      const [essence = "", ...params] = header.split(";").map((p) => p.trim());
      throw unsupported(
        essence.toLowerCase() === JSONAPI_MEDIA_TYPE
          ? `application/vnd.api+json takes no parameters but ext and profile (got ${params.filter(Boolean).join("; ")}).`
          : `${essence} is not accepted; send application/vnd.api+json or application/json.`,
      );
    }
    await rejectLoneSurrogates(c);
    return next();
  };
}

/**
 * JSON may escape half of a UTF-16 surrogate pair ("\ud800"); such a string has no UTF-8 form, so
 * storing it would corrupt D1 text and every webhook body made from it. Refused here, at its pointer.
 */
async function rejectLoneSurrogates(c: Context): Promise<void> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return; // malformed JSON: the route's validator answers it (400)
  }
  const problems: { detail: string; source: { pointer: string } }[] = [];
  const walk = (value: unknown, pointer: string) => {
    if (problems.length >= 10) return;
    if (typeof value === "string") {
      if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) problems.push({ detail: "must be well-formed Unicode (it has a lone surrogate).", source: { pointer } });
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`));
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        const key = k.replaceAll("~", "~0").replaceAll("/", "~1");
        if (!(k as string & { isWellFormed(): boolean }).isWellFormed()) problems.push({ detail: "member names must be well-formed Unicode.", source: { pointer: `${pointer}/${key}` } });
        walk(v, `${pointer}/${key}`);
      }
    }
  };
  walk(body, "");
  if (problems.length) throw new ApiError("validation_error", problems);
}

export function isAcceptedMediaType(header: string): boolean {
  const [essence = "", ...params] = header.split(";").map((s) => s.trim());
  const type = essence.toLowerCase();
  if (type === JSON_MEDIA_TYPE) return true;
  if (type !== JSONAPI_MEDIA_TYPE) return false;
  return params.filter(Boolean).every((p) => /^(ext|profile)=/i.test(p));
}

function unsupported(detail: string): ApiError {
  return new ApiError("unsupported_media_type", { detail, source: { header: "Content-Type" } });
}
