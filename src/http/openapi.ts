import { type Hook, z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import type { ZodType } from "zod";
import { ApiError, ERROR_CODES, ERROR_TEXT_LENGTH, type ProblemInput } from "./errors";
import { JSONAPI_MEDIA_TYPE } from "./media-type";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./jsonapi";
import { LIMITS, mib } from "../lib/limits";
import { SHORTCODE_AS_HEARD, SHORTCODE_PATTERN, SLUG_PATTERN, UUID_PATTERN, VULN_SHORTCODE_PATTERN } from "../lib/ids";
import { escapePointerSegment } from "./json-scan";

/** A body or answer that is a file's bytes. */
export const Binary = z.string().openapi({ type: "string", format: "binary", maxLength: LIMITS.fileBytes });

// ---- Shared document schemas --------------------------------------------------------------------

/** A time the API writes: always UTC with milliseconds, 24 characters. */
export const Timestamp = z.string().max(24).openapi({ format: "date-time", example: "2026-11-21T09:30:00.000Z" });

/** What the API writes back of what it took: the bounds its input enforces, said in the answer's schema too. */
export const Out = {
  name: z.string().max(LIMITS.nameLength),
  shortDescription: z.string().max(LIMITS.shortDescriptionLength),
  url: z.string().max(LIMITS.urlLength).openapi({ format: "uri" }),
  slug: z.string().max(LIMITS.slugLength).regex(SLUG_PATTERN),
  hostname: z.string().max(LIMITS.hostnameLength).openapi({ format: "hostname" }),
  briefShortcode: z.string().max(9).regex(SHORTCODE_PATTERN),
  vulnShortcode: z.string().max(14).regex(VULN_SHORTCODE_PATTERN),
};

/** A brief's shortcode in a path, as a person may type it; anything else is the same 404 as an unknown code. */
export const ShortcodePathParam = (example: string) =>
  z.string().openapi({ param: { name: "shortcode", in: "path" }, maxLength: 20, pattern: SHORTCODE_AS_HEARD, example });

/** A link to one record: a path of this API, a few UUIDs long. */
export const RecordLink = z.string().max(255).openapi({ format: "uri-reference" });
/**
 * A link to a page of a list: its path and the query that made it, each character percent-encoded at
 * worst, so at most three times the 16 KB Cloudflare takes as a request's address.
 */
export const PageLink = z
  .string()
  .max(3 * 16_384)
  .openapi({ format: "uri-reference" });
export const Uuid = z.string().openapi({ format: "uuid" });

export const ErrorObjectSchema = z
  .object({
    status: z.string().openapi({ enum: [...new Set(Object.values(ERROR_CODES).map((e) => String(e.status)))], example: "422" }),
    code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES]),
    title: z.string().openapi({ enum: [...new Set(Object.values(ERROR_CODES).map((e) => e.title))], example: "Validation error" }),
    detail: z.string().max(ERROR_TEXT_LENGTH).optional().openapi({ example: "title must not be empty" }),
    source: z
      .object({
        pointer: z.string().max(ERROR_TEXT_LENGTH).optional().openapi({ format: "json-pointer" }),
        parameter: z.string().max(ERROR_TEXT_LENGTH).optional(),
        header: z
          .string()
          .max(ERROR_TEXT_LENGTH)
          .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/)
          .optional(),
      })
      .optional(),
    links: z.object({
      about: z
        .string()
        .max(64)
        .regex(/^\/docs\/errors#[a-z_]+$/)
        .openapi({ description: "The reference's entry for this code", example: "/docs/errors#validation_error" }),
    }),
    meta: z.object({
      request_id: z.string().openapi({ format: "uuid", description: "The answer's X-Request-Id: quote it when asking about a failure" }),
    }),
  })
  .openapi("Error");

export const ErrorDocumentSchema = z
  .object({
    errors: z.array(ErrorObjectSchema).max(LIMITS.errorsListed),
    meta: z
      .object({
        errors_omitted: z
          .number()
          .int()
          .min(1)
          .max(LIMITS.bodyBytes)
          .openapi({ description: "How many more problems the request had beyond the 25 listed." }),
      })
      .optional(),
  })
  .openapi("ErrorDocument");

export function linkage(type: string) {
  return z.object({ type: z.literal(type), id: Uuid });
}

export function toOneSchema(type: string) {
  return z.object({ data: linkage(type).nullable() });
}

export function toManySchema(type: string, max: number = LIMITS.relatedPerRelationship) {
  return z.object({ data: z.array(linkage(type)).max(max) });
}

const SelfLinks = z.object({ self: RecordLink });
export const JsonApiObject = z.object({ version: z.literal("1.1") });

/** The resource object of a response: `attributes` and `relationships` as the resource declares them. */
/**
 * The members each resource type shows, gathered from its response schemas: a request that names one
 * of them where it may not be written is told the member is read-only, not unknown.
 */
const SHOWN_MEMBERS = new Map<string, Set<string>>();

/**
 * A resource object's schema, registered under `name`, with its `meta` if it has one. Built in one
 * piece: extending a registered schema and registering the result under the same name would define
 * the component as itself.
 */
export function resourceSchema<A extends ZodType, R extends ZodType>(name: string, type: string, attributes: A, relationships: R) {
  return resourceObject(type, attributes, relationships).openapi(name);
}

export function resourceSchemaWithMeta<A extends ZodType, R extends ZodType, M extends ZodType>(
  name: string,
  type: string,
  attributes: A,
  relationships: R,
  meta: M,
) {
  return resourceObject(type, attributes, relationships).extend({ meta }).openapi(name);
}

/** The schema of an `embedded` resource: a resource object without links. */
export function embeddedResourceSchema<A extends ZodType, R extends ZodType>(name: string, type: string, attributes: A, relationships: R) {
  return resourceObject(type, attributes, relationships).omit({ links: true }).openapi(name);
}

function resourceObject<A extends ZodType, R extends ZodType>(type: string, attributes: A, relationships: R) {
  const shape = (attributes as unknown as { shape?: Record<string, unknown> }).shape;
  if (shape) for (const key of Object.keys(shape)) SHOWN_MEMBERS.set(type, (SHOWN_MEMBERS.get(type) ?? new Set()).add(key));
  return z.object({ type: z.literal(type), id: Uuid, attributes, relationships, links: SelfLinks });
}

export function singleDocument<T extends ZodType>(data: T, included?: ZodType) {
  return z.object({
    jsonapi: JsonApiObject,
    data,
    links: SelfLinks,
    ...(included ? { included: z.array(included) } : {}),
  });
}

// Pages by number have every link and number/total_pages; pages by cursor have no `last` and no numbers.
/** The largest page number: nine digits. */
export const MAX_PAGE_NUMBER = 999_999_999;

const PageLinks = z.object({
  self: PageLink,
  first: PageLink,
  prev: PageLink.nullable(),
  next: PageLink.nullable(),
  last: PageLink.optional().openapi({ description: "Pages by number only." }),
});
const PageMeta = z.object({
  page: z.object({
    number: z.number().int().min(1).max(MAX_PAGE_NUMBER).optional().openapi({ description: "Pages by number only." }),
    size: z.number().int().min(1).max(MAX_PAGE_SIZE),
    total: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    total_pages: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: "Pages by number only." }),
  }),
});

export function collectionDocument<T extends ZodType>(item: T) {
  return z.object({ jsonapi: JsonApiObject, data: z.array(item).max(MAX_PAGE_SIZE), links: PageLinks, meta: PageMeta });
}

/**
 * A request's `data.type`: the document names the one type it takes; the handler answers any other
 * with a 409 (JSON:API's conflict), not a validation error, so the schema does not refuse it first.
 */
export const dataType = (type: string) => z.string().openapi({ enum: [type] });

/** A request document of `type`. */
export function requestDocument<A extends ZodType, R extends ZodType>(type: string, attributes: A, relationships: R) {
  return z.strictObject({ data: z.strictObject({ type: dataType(type), attributes, relationships }) });
}

/** An update document: as create, plus the optional `data.id` (a mismatch with the path is 409). */
export function updateDocument<A extends ZodType, R extends ZodType>(type: string, attributes: A, relationships: R) {
  return z.strictObject({ data: z.strictObject({ type: dataType(type), id: Uuid.optional(), attributes, relationships }) });
}

// ---- Query parameters ---------------------------------------------------------------------------

export const SORTS = ["created_at", "-created_at", "updated_at", "-updated_at"] as const;

// Digits only: "1e2", "0x10", "2.0" or " 2" are not page numbers, whatever Number() makes of them.
// Nine digits at most, so the largest page number is MAX_PAGE_NUMBER (the document says so).
const PositiveInteger = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, "must be a whole number from 1 to 999999999")
  .transform(Number);

const CursorParam = (name: string, description: string) =>
  z
    .string()
    .max(1024, "must be at most 1024 characters")
    // base64url, as the links write them; anything else could never be one.
    .regex(/^[A-Za-z0-9_-]*$/, `must be a cursor from links.${name === "page[after]" ? "next" : "prev"}.`)
    .optional()
    .openapi({ param: { name, in: "query", description } });

export const pageQuery = {
  "page[after]": CursorParam(
    "page[after]",
    "Cursor pages: the page after this cursor (from links.next); empty for the first page. Not with page[number]. Every page by cursor costs what the first does.",
  ),
  "page[before]": CursorParam("page[before]", "Cursor pages: the page before this cursor (from links.prev)."),
  "page[number]": PositiveInteger.optional().openapi({
    param: { name: "page[number]", in: "query" },
    type: "integer",
    minimum: 1,
    maximum: MAX_PAGE_NUMBER,
    example: 1,
  }),
  "page[size]": PositiveInteger.pipe(z.number().max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`))
    .optional()
    .openapi({
      param: { name: "page[size]", in: "query" },
      type: "integer",
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      example: DEFAULT_PAGE_SIZE,
    }),
};

export const sortQuery = {
  sort: z
    .enum(SORTS)
    .optional()
    .openapi({ param: { name: "sort", in: "query" }, example: "-created_at" }),
};

/** An id filter: empty or not a UUID is a 400 (an empty value must not silently mean "no filter"). */
export const uuidQuery = (name: string) =>
  z
    .string()
    .regex(new RegExp(UUID_PATTERN), "must be a UUID")
    .transform((v) => v.toLowerCase())
    .optional()
    .openapi({ param: { name, in: "query" }, type: "string", format: "uuid" });

export const booleanQuery = (name: string) =>
  z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .openapi({ param: { name, in: "query" }, type: "boolean" });

/** The usual list query: pagination, sort, and the filters given. Unknown parameters are a 400. */
export function listQuery<F extends Record<string, ZodType> = {}>(filters: F = {} as F) {
  return z.strictObject({ ...pageQuery, ...sortQuery, ...filters });
}

/** A read that takes no query parameters: any one (JSON:API's include and fields[...] among them) is a 400. */
export const NoQuery = z.strictObject({});

export const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }) });

// ---- Responses ----------------------------------------------------------------------------------

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
      "an operator key on a claimed organization; operators change the policies, assets, briefs and directory items of unclaimed organizations only",
  },
} as const;
export type Access = keyof typeof ACCESS;
/** The 403 response's mark of its access kind, read and removed by finishDocument. */
export const ACCESS_EXTENSION = "x-access";

/**
 * The errors an operation can answer, declared once: reads (GET, DELETE) can be
 * 400, 401, 404, 429, 500 and 503; writes (POST, PATCH) also 409, 413, 415 and 422.
 */
export function errorResponses(kind: "read" | "write", opts: ErrorResponseOptions = {}) {
  const mediaType = opts.mediaType ?? JSONAPI_MEDIA_TYPE;
  const e = (description: string) => errorResponse(description, mediaType);
  return {
    400: e("Bad request: malformed JSON, a bad query parameter or a bad Idempotency-Key"),
    ...(opts.public ? {} : { 401: e("Unauthorized: missing, malformed, unknown or revoked key") }),
    ...(opts.access ? { 403: { ...e(`Forbidden: ${ACCESS[opts.access].forbidden}`), [ACCESS_EXTENSION]: opts.access } } : {}),
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
    429: e("Too many requests (see Retry-After)"),
    500: e("Internal error"),
    503: e("Service unavailable (see Retry-After)"),
  };
}

/** A request body accepted as JSON:API's media type or as plain JSON. */
export function jsonApiBody<T extends ZodType>(schema: T) {
  return { required: true, content: { "application/vnd.api+json": { schema }, "application/json": { schema } } } as const;
}

// ---- The validation hook ------------------------------------------------------------------------

type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[] };

async function documentType(c: Context): Promise<unknown> {
  const body = (await c.req.json().catch(() => null)) as { data?: { type?: unknown } } | null;
  return body?.data?.type;
}

/** Whether the server owns a member of `type`'s attributes: one its resource shows, or `id` and `type` themselves. */
function isReadOnly(type: unknown, key: string): boolean {
  return key === "id" || key === "type" || (typeof type === "string" && (SHOWN_MEMBERS.get(type)?.has(key) ?? false));
}

export function pointerOf(path: PropertyKey[]): string {
  return path.map((p) => `/${escapePointerSegment(String(p))}`).join("");
}

/** JSON:API's own parameters are named for what is not supported; anything else is unknown. */
function unknownParameter(name: string): string {
  if (name === "include")
    return "include is not supported here: what this answer relates to is linked by id (and, on public reads, already in included).";
  if (/^fields\[/.test(name))
    return `${name}: this answer holds no resource of that type (fields[TYPE] names a type of its resources), or this read takes no parameters.`;
  return `${name} is not a known query parameter.`;
}

function problemsOf(issues: Issue[], target: string, type: unknown): ProblemInput[] {
  const problems: ProblemInput[] = [];
  for (const issue of issues) {
    if (target === "query") {
      const names = issue.code === "unrecognized_keys" ? (issue.keys ?? []) : [String(issue.path[0] ?? "")];
      for (const name of names) {
        problems.push({
          detail: issue.code === "unrecognized_keys" ? unknownParameter(name) : `${name}: ${issue.message}`,
          source: { parameter: name },
        });
      }
      continue;
    }
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys ?? []) {
        const pointer = pointerOf([...issue.path, key]);
        const inAttributes = issue.path.at(-1) === "attributes";
        problems.push({
          detail: inAttributes && isReadOnly(type, key) ? `${key} is read-only.` : `${key} is not a known member here.`,
          source: { pointer },
        });
      }
      continue;
    }
    const pointer = pointerOf(issue.path);
    const label = issue.path.length ? issue.path.map(String).join(".") : "the document";
    problems.push({ detail: `${label}: ${issue.message}`, source: { pointer } });
  }
  return problems;
}

/**
 * The defaultHook of every OpenAPIHono app: query problems are 400s, body problems 422s. A body's
 * `data.type` (already parsed, so read from Hono's cache) says whose read-only members it names.
 */
export async function validationHook(result: Parameters<Hook<unknown, Env, string, void>>[0], c: Context): Promise<void> {
  if (result.success) return;
  const type = result.target === "json" ? await documentType(c) : undefined;
  const problems = problemsOf(result.error.issues, result.target, type);
  if (result.target === "query") throw new ApiError("bad_request", problems);
  if (result.target === "param")
    throw new ApiError(
      "not_found",
      problems.map(() => ({})),
    );
  throw new ApiError("validation_error", problems);
}
