import type { ZodType } from "zod";
import { JSONAPI_MEDIA_TYPE } from "../media-type";
import { LIMITS, mib } from "../../lib/limits";
import { ErrorDocumentSchema } from "./documents";
import type { Scope } from "../../lib/caller";

export function jsonApiContent<T extends ZodType>(schema: T) {
  return { "application/vnd.api+json": { schema } } as const;
}

/** The vuln endpoints answer (and take) plain application/json, in the same JSON:API shape. */
export function jsonContent<T extends ZodType>(schema: T) {
  return { "application/json": { schema } } as const;
}

export function errorResponse(description: string, mediaType: string = JSONAPI_MEDIA_TYPE) {
  return { description, content: { [mediaType]: { schema: ErrorDocumentSchema } } };
}

export interface ErrorResponseOptions {
  /** 404's description, e.g. "Vuln not found". */
  notFound?: string;
  /** The media type errors are answered in (the route's own). */
  mediaType?: string;
  /** Who may call it beyond "any key" (see ACCESS): who gets 403. */
  access?: Access;
  /** No key: no 401. */
  public?: boolean;
  /** A read (GET, DELETE) that can also refuse with a 422: when, e.g. "a brief that reports came through". */
  unprocessable?: string;
  /** A read (GET, DELETE) that can also refuse with a 409: when, e.g. "the last owner". */
  conflict?: string;
  /**
   * The scope a key (or a member's role) acting for an organization needs: 403 insufficient_scope
   * without it. Every operation an organization may call says it; the services enforce it (see
   * src/services/access.ts), the document says it (SCOPE_EXTENSION).
   */
  scope?: Scope;
}

/**
 * Who may call an operation, when not every key may: what its 403 says, and the sentence the reference
 * adds to its description. The route declares the kind; the document reads it (ACCESS_EXTENSION).
 */
export const ACCESS = {
  /** Operator-only: organization keys get 403. */
  operator: { forbidden: "an operator-only operation with an organization key" },
  /** Writes only the organization's own key makes (vulns, webhooks). */
  organization: { forbidden: "an operator key; only the organization's own key changes these" },
  /** Writes an operator makes only for organizations nobody has claimed yet. */
  unclaimed: {
    forbidden:
      "an operator key on a claimed organization; operators change the policies, assets, briefs and directory items of unclaimed " +
      "organizations only",
  },
} as const;
export type Access = keyof typeof ACCESS;
/** The 403 response's mark of its access kind, read and removed by finishDocument. */
export const ACCESS_EXTENSION = "x-access";
/** The operation's scope, on its 403 response until finishDocument moves it to the operation. */
export const SCOPE_EXTENSION = "x-scope";

/** The 403 of an operation: who may not call it (access), and the scope a key acting for its organization needs. */
function forbiddenResponse(
  opts: ErrorResponseOptions,
  e: (description: string) => ReturnType<typeof errorResponse>,
): Record<number, ReturnType<typeof errorResponse>> {
  const said = [
    ...(opts.access ? [`Forbidden: ${ACCESS[opts.access].forbidden}`] : []),
    ...(opts.scope ? [`Insufficient scope: the key (or the member's role) lacks the \`${opts.scope}\` scope`] : []),
  ];
  if (said.length === 0) return {};
  return {
    403: {
      ...e(said.join("; or ")),
      ...(opts.access ? { [ACCESS_EXTENSION]: opts.access } : {}),
      ...(opts.scope ? { [SCOPE_EXTENSION]: opts.scope } : {}),
    },
  };
}

/**
 * The errors an operation can answer, declared once: reads (GET, DELETE) can be
 * 400, 401, 404, 429, 500 and 503; writes (POST, PATCH) also 409, 413, 415 and 422.
 */
export function errorResponses(kind: "read" | "write", opts: ErrorResponseOptions = {}) {
  const mediaType = opts.mediaType ?? JSONAPI_MEDIA_TYPE;
  const e = (description: string) => errorResponse(description, mediaType);
  return {
    400: e("Bad request: malformed JSON, a bad query parameter or a bad Idempotency-Key"),
    ...(opts.public ? {} : { 401: e("Unauthorized: missing, malformed, unknown, revoked or expired key") }),
    ...forbiddenResponse(opts, e),
    404: e(opts.notFound ?? "Not found"),
    ...(kind === "write"
      ? {
          409: e("Conflict: data.type or data.id does not match the endpoint, or the Idempotency-Key is in flight"),
          413: e(`Payload too large: body over ${mib(LIMITS.bodyBytes)}`),
          415: e("Unsupported media type"),
          422: e("Validation error"),
        }
      : {}),
    ...(kind === "read" && opts.unprocessable ? { 422: e(`Unprocessable entity: ${opts.unprocessable}`) } : {}),
    ...(kind === "read" && opts.conflict ? { 409: e(`Conflict: ${opts.conflict}`) } : {}),
    429: e("Too many requests (see Retry-After)"),
    500: e("Internal error"),
    503: e("Service unavailable (see Retry-After)"),
  };
}

/** A request body accepted as JSON:API's media type or as plain JSON. */
export function jsonApiBody<T extends ZodType>(schema: T) {
  return { required: true, content: { "application/vnd.api+json": { schema }, "application/json": { schema } } } as const;
}
