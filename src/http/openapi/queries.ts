// The query parameters lists and reads share: pages, sorts and filters, and the empty query of a cached read.
import { z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../jsonapi";
import { UUID_PATTERN } from "../../lib/ids";
import { MAX_PAGE_NUMBER } from "./documents";

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
    "Cursor pages: the page after this cursor (from links.next); empty for the first page. Not with page[number]. Every page by " +
      "cursor costs what the first does.",
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
