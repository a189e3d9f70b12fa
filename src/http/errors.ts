import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  DomainError,
  IdempotentReplay,
  InsufficientScope,
  IntakePaused,
  type Member,
  NotFound,
  type Problem,
  RateLimited,
  type Refusal,
  Unavailable,
} from "../lib/domain-errors";
import { responseMediaType } from "./route-facts";
import { LIMITS, mib } from "../lib/limits";
import { loggable } from "../lib/log";

/**
 * The closed list of error codes; the status and title follow from the code. `about` is what the
 * reference's errors page says of each (every error links to it), so it speaks to the client.
 */
export const ERROR_CODES = {
  bad_request: {
    status: 400,
    title: "Bad request",
    about:
      "The request is malformed: invalid JSON, an unknown or invalid query parameter, or a bad header. `source` names the parameter " +
      "or header. Fix the request; retrying it unchanged fails again.",
  },
  unauthorized: {
    status: 401,
    title: "Unauthorized",
    about:
      "The `Authorization: Bearer` key is missing, malformed, unknown, revoked or expired (or the console session the browser sent " +
      "instead has ended). Send a valid key. Repeated requests without a valid key are limited per client IP.",
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    about:
      "The key is valid but may not do this: an operator-only operation with an organization key, or an operator key writing where " +
      "only the organization (or an unclaimed organization) may; or a change made with the console's session that did not come from " +
      "its own pages with the session's form token (`X-CSRF-Token`).",
  },
  insufficient_scope: {
    status: 403,
    title: "Insufficient scope",
    about:
      "The key (or the signed-in member's role) is valid for this organization but lacks the scope the operation needs: `read` to " +
      "read, `vulns`, `advisories`, `settings` or `members` to change those. The `WWW-Authenticate` header names it " +
      '(`Bearer error="insufficient_scope", scope="vulns"`); use a key that has it.',
  },
  not_found: {
    status: 404,
    title: "Not found",
    about: "No such route, or no such record for this key. Another organization's id answers exactly like an id that does not exist.",
  },
  vuln_not_found: { status: 404, title: "Vuln not found", about: "No vuln with this id belongs to the key's organization." },
  brief_not_found: {
    status: 404,
    title: "Brief not found",
    about: "No brief with this id belongs to the key's organization, or (on the public read) no published brief has this shortcode.",
  },
  method_not_allowed: {
    status: 405,
    title: "Method not allowed",
    about: "The route exists, but not with this method. The `Allow` header lists the methods it takes.",
  },
  conflict: {
    status: 409,
    title: "Conflict",
    about:
      "`data.type` or `data.id` does not match the endpoint, the request lost a race with another change, or a request with the same " +
      "`Idempotency-Key` is still in flight. Read the current state and retry.",
  },
  payload_too_large: { status: 413, title: "Payload too large", about: `The request body is over ${mib(LIMITS.bodyBytes)}.` },
  unsupported_media_type: {
    status: 415,
    title: "Unsupported media type",
    about: "Send request bodies as `application/vnd.api+json` (parameters `ext` and `profile` only) or `application/json`.",
  },
  validation_error: {
    status: 422,
    title: "Validation error",
    about:
      "A member of the request document is invalid, missing, read-only or unknown. Each problem is its own error object, with " +
      "`source.pointer` at the member.",
  },
  unprocessable_entity: {
    status: 422,
    title: "Unprocessable entity",
    about:
      "The document is valid but breaks a rule of the records it touches: a directory item that is not the organization's, not " +
      "published or already listed; a brief that reports came through being deleted (unpublish it instead); verifying the custom " +
      "domain of a policy that names none.",
  },
  idempotency_key_reused: {
    status: 422,
    title: "Idempotency key reused",
    about: "This `Idempotency-Key` was used in the last 24 hours with a different request. Use a new key for a new request.",
  },
  reporter_signature_invalid: {
    status: 400,
    title: "Reporter signature invalid",
    about:
      "`X-Reporter-Key` and `X-Reporter-Signature` were sent but do not verify: the JWS is malformed, its key does not match the " +
      "thumbprint, it names another brief (`aud`), its `iat` is more than 10 minutes off, or the signature is not over this exact " +
      "body. Nothing was stored. Sign the body you send, or send neither header.",
  },
  rate_limited: {
    status: 429,
    title: "Too many requests",
    about:
      "Too many requests in the current minute for this key (or client IP), or, on a brief that asks for proof of work, too many " +
      "submissions without a valid solution from this address in the hour. Wait the `Retry-After` seconds, then retry.",
  },
  internal_error: {
    status: 500,
    title: "Internal error",
    about:
      "Something failed on our side. Nothing internal is shown; quote `meta.request_id` (also the `X-Request-Id` header) when " +
      "reporting it.",
  },
  intake_paused: {
    status: 503,
    title: "Intake paused",
    about:
      "The brief's organization has paused its intake. `detail` says until when, with the organization's message; `Retry-After` " +
      "says how many seconds remain. Nothing was stored: send the report again then.",
  },
  service_unavailable: {
    status: 503,
    title: "Service unavailable",
    about:
      "Storage or the queue is briefly unavailable. Retry after the `Retry-After` seconds; with an `Idempotency-Key`, a retried " +
      "write never happens twice.",
  },
} as const;

/** Where the reference explains an error code: every error object links here (`links.about`). */
export const ERRORS_PAGE = "/docs/errors";
export const aboutError = (code: ErrorCode) => `${ERRORS_PAGE}#${code}`;

export type ErrorCode = keyof typeof ERROR_CODES;

export const MAX_ERRORS = LIMITS.errorsListed;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]["status"];

/** Where in the request an error is, as JSON:API says it: a JSON pointer into the document, a query parameter or a header. */
export type Source = { pointer: string } | { parameter: string } | { header: string };

/** A member a service named, as a JSON pointer into the request's JSON:API document. */
export function memberPointer(member: Member): string {
  const base = member.item === undefined ? "/data" : `/data/${member.item}`;
  if ("attribute" in member) return `${base}/attributes/${member.attribute.split(".").join("/")}`;
  if ("relationship" in member) {
    const named = `${base}/relationships/${member.relationship}`;
    if (member.whole) return named;
    return member.entry === undefined ? `${named}/data/id` : `${named}/data/${member.entry}/id`;
  }
  return member.id ? `${base}/id` : base;
}

/** A service's problem in the API's words. */
function apiProblem({ detail, source }: Problem): ProblemInput {
  if (!source) return { detail };
  if (!("member" in source)) return { detail, source };
  const pointer = memberPointer(source.member);
  return { detail: detail.replaceAll("{member}", pointer), source: { pointer } };
}

export interface ErrorObject {
  status: string;
  code: ErrorCode;
  title: string;
  detail?: string;
  source?: Source;
  links: { about: string };
  meta: { request_id: string };
}

export interface ProblemInput {
  detail?: string;
  source?: Source;
}

/** The one error type of the API. Several problems of the same code can travel together. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly problems: ProblemInput[];
  headers: Record<string, string> = {};

  constructor(
    readonly code: ErrorCode,
    problems: ProblemInput | ProblemInput[] = {},
  ) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list[0]?.detail ?? ERROR_CODES[code].title);
    this.status = ERROR_CODES[code].status;
    this.problems = list.length ? list : [{}];
  }

  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  /**
   * At most 25 error objects: a body with 60,000 bad members must not answer with megabytes. Each
   * carries the request id (what the logs use) and the link to its code's explanation. JSON:API wants
   * the errors unique: a problem found twice (two checks of one member saying the same) is listed once.
   */
  toDocument(requestId: string): { errors: ErrorObject[]; meta?: { errors_omitted: number } } {
    const { status, title } = ERROR_CODES[this.code];
    const about = aboutError(this.code);
    const problems = uniqueProblems(this.problems);
    const omitted = problems.length - MAX_ERRORS;
    return {
      errors: problems.slice(0, MAX_ERRORS).map((p) => ({
        status: String(status),
        code: this.code,
        title,
        ...(p.detail ? { detail: clip(p.detail) } : {}),
        ...(p.source ? { source: Object.fromEntries(Object.entries(p.source).map(([k, v]) => [k, clip(v)])) as Source } : {}),
        links: { about },
        meta: { request_id: requestId },
      })),
      ...(omitted > 0 ? { meta: { errors_omitted: omitted } } : {}),
    };
  }
}

function uniqueProblems(problems: ProblemInput[]): ProblemInput[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = JSON.stringify([p.detail ?? null, p.source ? Object.entries(p.source).sort() : null]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The most characters an error's detail or source member carries. They may quote the request (a
 * media type, a parameter's name, a pointer into a 1 MiB body): past this they end in an ellipsis.
 */
export const ERROR_TEXT_LENGTH = 1024;
function clip(text: string): string {
  return text.length > ERROR_TEXT_LENGTH ? `${text.slice(0, ERROR_TEXT_LENGTH - 1)}…` : text;
}

/** A 422 for one member of the request document. */
export function invalid(pointer: string, detail: string): ApiError {
  return new ApiError("validation_error", { detail, source: { pointer } });
}

export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  c.header("Content-Type", responseMediaType(c));
  return c.body(JSON.stringify(error.toDocument(c.get("requestId") ?? "unknown")), error.status);
}

/** The code each refusal of a service answers with; a missing vuln or brief has a code of its own. */
const CODE_OF_REFUSAL: Record<Refusal, ErrorCode> = {
  not_found: "not_found",
  invalid: "validation_error",
  unprocessable: "unprocessable_entity",
  conflict: "conflict",
  forbidden: "forbidden",
  insufficient_scope: "insufficient_scope",
  too_large: "payload_too_large",
  unavailable: "service_unavailable",
  bad_input: "bad_request",
  key_reused: "idempotency_key_reused",
  rate_limited: "rate_limited",
  intake_paused: "intake_paused",
  signature_invalid: "reporter_signature_invalid",
};
const NOT_FOUND_CODES: Record<string, ErrorCode> = { vuln: "vuln_not_found", brief: "brief_not_found" };

/** RFC 6750's challenge for a token that lacks a scope, naming the one needed. */
export const insufficientScopeChallenge = (scope: string) => `Bearer error="insufficient_scope", scope="${scope}"`;

/** The API's error for a thrown value it knows (its own, or a service's refusal); undefined for anything else. */
export function asApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (!(err instanceof DomainError)) return undefined;
  const code = err instanceof NotFound ? (NOT_FOUND_CODES[err.entity] ?? "not_found") : CODE_OF_REFUSAL[err.kind];
  const api = new ApiError(code, err.problems.map(apiProblem));
  if (err instanceof InsufficientScope) return api.withHeaders({ "WWW-Authenticate": insufficientScopeChallenge(err.scope) });
  const retryAfter = err instanceof Unavailable || err instanceof RateLimited || err instanceof IntakePaused ? err.retryAfterSeconds : null;
  return retryAfter === null ? api : api.withHeaders({ "Retry-After": String(Math.max(1, Math.ceil(retryAfter))) });
}

/** A kept Idempotency-Key answer again, through the request's context so its own headers (X-Request-Id, CORS) apply. */
function replayResponse(c: Context, replay: IdempotentReplay): Response {
  for (const [name, value] of Object.entries(replay.stored.headers)) c.header(name, value);
  c.header("Idempotent-Replayed", "true");
  return c.body(replay.stored.body, replay.stored.status as ContentfulStatusCode);
}

/** The app's onError: every failure path ends here, so every error has the same shape. */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof IdempotentReplay) return replayResponse(c, err);
  const known = asApiError(err) ?? (err instanceof HTTPException ? fromHttpException(err) : undefined);
  if (known) {
    // A 500 always leaves its cause in the log under the request id, whoever made it (Hono's own
    // HTTPException(500), "body was already consumed", was answered without one).
    if (known.status >= 500 && known.code === "internal_error") logFailure(c, err);
    return errorResponse(c, known);
  }
  if (isStorageUnavailable(err)) {
    const { error, query } = loggable(err); // D1's words, not only Drizzle's "Failed query"
    console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), error, query }));
    return errorResponse(
      c,
      new ApiError("service_unavailable", { detail: "Storage is unavailable; retry shortly." }).withHeaders({ "Retry-After": "5" }),
    );
  }
  // Never answer with internals: the stack and driver text go to the log, tied to the request id.
  logFailure(c, err);
  return errorResponse(c, new ApiError("internal_error", { detail: "Something went wrong. Quote meta.request_id when reporting it." }));
}

function logFailure(c: Context, err: Error): void {
  console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), ...loggable(err) }));
}

function fromHttpException(err: HTTPException): ApiError {
  switch (err.status) {
    case 400:
      // Hono's validator throws this for a body that is not JSON.
      return new ApiError("bad_request", { detail: /json/i.test(err.message) ? "The request body is not valid JSON." : err.message });
    case 413:
      return new ApiError("payload_too_large", { detail: `The request body is larger than ${mib(LIMITS.bodyBytes)}.` });
    case 415:
      return new ApiError("unsupported_media_type", {
        detail: "Send application/vnd.api+json or application/json.",
        source: { header: "Content-Type" },
      });
    case 401:
      return new ApiError("unauthorized");
    default:
      return new ApiError(err.status >= 500 ? "internal_error" : "bad_request", { detail: err.message });
  }
}

/**
 * Failures a client's retry a moment later gets past: D1's transient errors (the ones its documentation
 * calls retryable among them), and the local runtime's rolled-back statement ("Failed to get session
 * commit token: internal error", "database is locked: SQLITE_BUSY") once createDb's own retries
 * (src/db/retry.ts) ran out.
 */
function isStorageUnavailable(err: Error): boolean {
  // D1's own words (loggable's: a failed query from Drizzle carries them as its cause, its message being
  // the SQL and the parameters, which a client's values fill).
  const { error, query } = loggable(err);
  const text = query === undefined ? `${error} ${String((err as { cause?: unknown }).cause ?? "")}` : error;
  return /D1_ERROR: [^\n]*?(Network connection lost|internal error|Cannot resolve D1 DB due to transient issue|storage operation exceeded timeout|storage caused object to be reset|reset because its code was updated|database is locked)|Queue send failed: .*unavailable/i.test(
    text,
  );
}
