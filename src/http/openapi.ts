import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodType } from "zod";
import { ApiError, ERROR_CODES, type ProblemInput } from "./errors";
import { JSONAPI_MEDIA_TYPE, JSON_MEDIA_TYPE } from "./media-type";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./jsonapi";

// ---- Shared document schemas --------------------------------------------------------------------

export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-11-21T09:30:00.000Z" });
export const Uuid = z.string().openapi({ format: "uuid" });

export const ErrorObjectSchema = z
  .object({
    status: z.string().openapi({ example: "422" }),
    code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES]),
    title: z.string().openapi({ example: "Validation error" }),
    detail: z.string().optional().openapi({ example: "title must not be empty" }),
    source: z
      .object({ pointer: z.string().optional(), parameter: z.string().optional(), header: z.string().optional() })
      .optional(),
  })
  .openapi("Error");

export const ErrorDocumentSchema = z.object({ errors: z.array(ErrorObjectSchema) }).openapi("ErrorDocument");

export function linkage(type: string) {
  return z.object({ type: z.literal(type), id: Uuid });
}

export function toOneSchema(type: string) {
  return z.object({ data: linkage(type).nullable() });
}

export function toManySchema(type: string) {
  return z.object({ data: z.array(linkage(type)) });
}

const SelfLinks = z.object({ self: z.string() });
const JsonApiObject = z.object({ version: z.literal("1.1") });

/** The resource object of a response: `attributes` and `relationships` as the resource declares them. */
export function resourceSchema<A extends ZodType, R extends ZodType>(name: string, type: string, attributes: A, relationships: R) {
  return z
    .object({ type: z.literal(type), id: Uuid, attributes, relationships, links: SelfLinks })
    .openapi(name);
}

export function singleDocument<T extends ZodType>(data: T, included?: ZodType) {
  return z.object({
    jsonapi: JsonApiObject,
    data,
    links: SelfLinks,
    ...(included ? { included: z.array(included) } : {}),
  });
}

const PageLinks = z.object({
  self: z.string(),
  first: z.string(),
  prev: z.string().nullable(),
  next: z.string().nullable(),
  last: z.string(),
});
const PageMeta = z.object({
  page: z.object({ number: z.number().int(), size: z.number().int(), total: z.number().int(), total_pages: z.number().int() }),
});

export function collectionDocument<T extends ZodType>(item: T) {
  return z.object({ jsonapi: JsonApiObject, data: z.array(item), links: PageLinks, meta: PageMeta });
}

/** A request document: `data.type` is checked by the handler (a mismatch is 409, not 422). */
export function requestDocument<A extends ZodType, R extends ZodType>(attributes: A, relationships: R) {
  return z.strictObject({ data: z.strictObject({ type: z.string(), attributes, relationships }) });
}

/** An update document: as create, plus the optional `data.id` (a mismatch with the path is 409). */
export function updateDocument<A extends ZodType, R extends ZodType>(attributes: A, relationships: R) {
  return z.strictObject({ data: z.strictObject({ type: z.string(), id: z.string().optional(), attributes, relationships }) });
}

// ---- Query parameters (API.md section 4) --------------------------------------------------------

export const SORTS = ["created_at", "-created_at", "updated_at", "-updated_at"] as const;

export const pageQuery = {
  "page[number]": z.coerce.number().int().min(1).optional().openapi({ param: { name: "page[number]", in: "query" }, example: 1 }),
  "page[size]": z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional().openapi({ param: { name: "page[size]", in: "query" }, example: DEFAULT_PAGE_SIZE }),
};

export const sortQuery = {
  sort: z.enum(SORTS).optional().openapi({ param: { name: "sort", in: "query" }, example: "-created_at" }),
};

export const booleanQuery = (name: string) =>
  z.enum(["true", "false"]).transform((v) => v === "true").optional().openapi({ param: { name, in: "query" }, type: "boolean" });

/** The usual list query: pagination, sort, and the filters given. Unknown parameters are a 400. */
export function listQuery<F extends Record<string, ZodType> = {}>(filters: F = {} as F) {
  return z.strictObject({ ...pageQuery, ...sortQuery, ...filters });
}

export const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }) });

// ---- Responses ----------------------------------------------------------------------------------

export function jsonApiContent<T extends ZodType>(schema: T) {
  return { "application/vnd.api+json": { schema } } as const;
}

/** The vuln endpoints answer (and take) plain application/json, as the spec draws them. */
export function jsonContent<T extends ZodType>(schema: T) {
  return { "application/json": { schema } } as const;
}

function errorResponse(description: string, mediaType: string) {
  return { description, content: { [mediaType]: { schema: ErrorDocumentSchema } } };
}

/** Every error an authenticated route can answer, declared once (STYLE habit 4). */
export function errorResponses(mediaType: string = JSONAPI_MEDIA_TYPE, notFound = "Not found") {
  return {
    400: errorResponse("Bad request: malformed JSON or a bad query parameter", mediaType),
    401: errorResponse("Unauthorized: missing, malformed, unknown or revoked key", mediaType),
    403: errorResponse("Forbidden: an operator-only operation with an organization key", mediaType),
    404: errorResponse(notFound, mediaType),
    409: errorResponse("Conflict: data.type or data.id does not match the endpoint", mediaType),
    413: errorResponse("Payload too large: body over 1 MiB", mediaType),
    415: errorResponse("Unsupported media type", mediaType),
    422: errorResponse("Validation error", mediaType),
    429: errorResponse("Too many requests", mediaType),
    500: errorResponse("Internal error", mediaType),
    503: errorResponse("Service unavailable", mediaType),
  } as const;
}

export const plainJsonErrorResponses = (notFound: string) => errorResponses(JSON_MEDIA_TYPE, notFound);

// ---- The validation hook ------------------------------------------------------------------------

type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[] };

// Attributes the server owns. Naming them in a request is a 422 that says so (API.md section 1).
const READ_ONLY = new Set([
  "id", "shortcode", "inbox_state", "created_at", "updated_at", "maturity_rating", "customized", "secret",
  "read_at", "disabled_reason", "key", "key_prefix", "revoked_at",
]);

export function pointerOf(path: PropertyKey[]): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

function problemsOf(issues: Issue[], target: string): ProblemInput[] {
  const problems: ProblemInput[] = [];
  for (const issue of issues) {
    if (target === "query") {
      const names = issue.code === "unrecognized_keys" ? (issue.keys ?? []) : [String(issue.path[0] ?? "")];
      for (const name of names) {
        problems.push({
          detail: issue.code === "unrecognized_keys" ? `${name} is not a known query parameter.` : `${name}: ${issue.message}`,
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
          detail: inAttributes && READ_ONLY.has(key) ? `${key} is read-only.` : `${key} is not a known member here.`,
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

/** The defaultHook of every OpenAPIHono app: query problems are 400s, body problems 422s. */
export function validationHook(result: { success: boolean; target: string; error?: { issues: Issue[] } }, _c: Context) {
  if (result.success) return;
  const problems = problemsOf(result.error?.issues ?? [], result.target);
  if (result.target === "query") throw new ApiError("bad_request", problems);
  if (result.target === "param") throw new ApiError("not_found", problems.map(() => ({})));
  throw new ApiError("validation_error", problems);
}
