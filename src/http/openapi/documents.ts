// The JSON:API documents the OpenAPI description is made of: resources, single and collection
// documents, request bodies, error documents.
import { z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import { ERROR_CODES, ERROR_TEXT_LENGTH } from "../errors";
import { MAX_PAGE_SIZE } from "../jsonapi";
import { LIMITS } from "../../lib/limits";
import { SHORTCODE_AS_HEARD, SHORTCODE_PATTERN, SLUG_PATTERN, VULN_SHORTCODE_PATTERN } from "../../lib/ids";

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
  const shape = "shape" in attributes ? (attributes.shape as Record<string, unknown>) : undefined;
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

/** A body or answer that is a file's bytes. */
export const Binary = z.string().openapi({ type: "string", format: "binary", maxLength: LIMITS.fileBytes });

/** Whether `key` is a member the resources of `type` show (so a client may not write it). */
export function showsMember(type: string, key: string): boolean {
  return SHOWN_MEMBERS.get(type)?.has(key) ?? false;
}
