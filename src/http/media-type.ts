import type { Context, MiddlewareHandler } from "hono";
import type { TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import { ApiError } from "./errors";
import { withFieldsets } from "./fieldsets";
import { MAX_JSON_DEPTH, scanJson } from "./json-scan";

import { JOSE_MEDIA_TYPE, JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE } from "./response-type";
import { rawUpload, responseMediaType } from "./route-facts";

export { JOSE_MEDIA_TYPE, JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE, responseMediaType };

/**
 * Serializes a document with the media type of the route it answers. Typed like `c.json`, so a
 * handler's document is checked against the response schema its route declares.
 */
export function respond<T, S extends ContentfulStatusCode = 200>(
  c: Context,
  document: T,
  status?: S,
): TypedResponse<JSONParsed<T>, S, "json"> {
  c.header("Content-Type", responseMediaType(c));
  return c.body(JSON.stringify(withFieldsets(c, document)), status ?? 200) as unknown as TypedResponse<JSONParsed<T>, S, "json">;
}

const METHODS_WITH_BODY = new Set(["POST", "PATCH", "PUT"]);

/** A raw upload's declared size: its Content-Length, or null without one; a 400 if it is not a number. */
export function declaredLength(c: Context): number | null {
  const header = c.req.header("content-length");
  if (header === undefined) return null;
  if (!/^\d{1,15}$/.test(header))
    throw new ApiError("bad_request", { detail: "Content-Length must be a number of bytes.", source: { header: "Content-Length" } });
  return Number(header);
}

/**
 * Checks the request body's media type before any route sees it:
 * `application/json` (with any parameters, e.g. charset) or `application/vnd.api+json` with no
 * parameters other than `ext` and `profile`. A POST with no body at all (e.g. an action) passes, and so
 * does a route that declares a raw upload (an attachment: the file itself, see RouteFacts).
 *
 * @example app.use("/v1/*", requestMediaType())
 */
export function requestMediaType(): MiddlewareHandler {
  return async function requestMediaTypeMiddleware(c, next) {
    if (!METHODS_WITH_BODY.has(c.req.method) || rawUpload(c)) return next();
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
    await checkJsonBody(c);
    return next();
  };
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Reads the body as bytes and refuses, before any parser or recursive walk sees it: bytes that are not
 * UTF-8 (a lenient decode would turn them into U+FFFD and corrupt the "exactly as received" intake
 * record), malformed JSON, nesting deeper than LIMITS.jsonDepth levels, duplicate member names, and lone surrogates
 * (422 at their pointers). An empty body passes: actions take none, and the validator of a route that
 * needs one answers it.
 */
async function checkJsonBody(c: Context): Promise<void> {
  const bytes = await c.req.arrayBuffer();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError("bad_request", { detail: "The request body is not valid UTF-8." });
  }
  if (text.trim() === "") return;
  const scan = scanJson(text);
  if (!scan.ok) {
    switch (scan.problem) {
      case "malformed":
        throw new ApiError("bad_request", { detail: "The request body is not valid JSON." });
      case "too_deep":
        throw new ApiError("bad_request", { detail: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` });
      case "duplicate_member":
        throw new ApiError("bad_request", {
          detail: "The request body names the same member twice in one object.",
          source: { pointer: scan.pointer },
        });
    }
  }
  if (scan.loneSurrogates.length) {
    throw new ApiError(
      "validation_error",
      scan.loneSurrogates.map((pointer) => ({ detail: "must be well-formed Unicode (it has a lone surrogate).", source: { pointer } })),
    );
  }
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

/**
 * The media type of `offered` that a request's Accept weighs most (RFC 9110: `q` weights, `type/*` and
 * `*\/*` ranges, the most specific range deciding a type's weight); ties, and no Accept at all, go to
 * the first offered. Null when Accept refuses every one of them.
 */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | null {
  if (!accept?.trim()) return offered[0] ?? null;
  const ranges = accept.split(",").flatMap((part) => {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!range) return [];
    const q = params.find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    return [{ range, weight: Number.isFinite(weight) ? weight : 0 }];
  });
  const weightOf = (type: string) => {
    const [major] = type.split("/");
    const match =
      ranges.find((r) => r.range === type) ?? ranges.find((r) => r.range === `${major}/*`) ?? ranges.find((r) => r.range === "*/*");
    return match?.weight ?? 0;
  };
  let best: string | null = null;
  let bestWeight = 0;
  for (const type of offered) {
    const w = weightOf(type);
    if (w > bestWeight) [best, bestWeight] = [type, w];
  }
  return best;
}
