import type { Context } from "hono";
import { decodeCursor, type Page } from "../db/pagination";
import { LIMITS } from "../lib/limits";
import { ApiError } from "./errors";

export type Linkage = { type: string; id: string };
export type Relationship = { data: Linkage | Linkage[] | null; links?: { related?: string } };

export interface ResourceObject<A = Record<string, unknown>, R extends Record<string, Relationship> = Record<string, Relationship>> {
  type: string;
  id: string;
  attributes: A;
  relationships: R;
  links: { self: string };
}

export const JSONAPI_VERSION = { version: "1.1" } as const;

export function resource<A, R extends Record<string, Relationship> = {}>(
  type: string,
  id: string,
  attributes: A,
  self: string,
  relationships: R = {} as R,
): ResourceObject<A, R> {
  return { type, id, attributes, relationships, links: { self } };
}

/**
 * A resource included in a public read that has no public read of its own (an organization, a policy):
 * no `links.self`, since the keyed route would answer 401 to the document's own audience.
 */
export function embedded<A, R extends Record<string, Relationship> = {}>(
  type: string,
  id: string,
  attributes: A,
  relationships: R = {} as R,
) {
  return { type, id, attributes, relationships };
}

export function toOne(type: string, id: string | null | undefined): { data: Linkage | null } {
  return { data: id ? { type, id } : null };
}

export function toMany(type: string, ids: readonly string[]): { data: Linkage[] } {
  return { data: ids.map((id) => ({ type, id })) };
}

export function single<R extends ResourceObject<unknown, {}>>(
  data: R,
  extra: { included?: ResourceObject<unknown, {}>[]; meta?: Record<string, unknown> } = {},
) {
  return { jsonapi: JSONAPI_VERSION, data, links: { self: data.links.self }, ...extra };
}

// ---- Pagination ----------------------------------------------------------------------------------

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = LIMITS.pageSize;

type PageParams = { "page[number]"?: number; "page[size]"?: number; "page[after]"?: string; "page[before]"?: string };

export function pageOf(query: PageParams): Page {
  const size = query["page[size]"] ?? DEFAULT_PAGE_SIZE;
  const after = query["page[after]"];
  const before = query["page[before]"];
  if (after === undefined && before === undefined) return { number: query["page[number]"] ?? 1, size };
  const badParameter = (parameter: string, detail: string) =>
    new ApiError("bad_request", { detail: `${parameter}: ${detail}`, source: { parameter } });
  if (after !== undefined && before !== undefined) throw badParameter("page[before]", "send page[after] or page[before], not both.");
  if (query["page[number]"] !== undefined) throw badParameter("page[number]", "a page is asked for by number or by cursor, not both.");
  const direction = after !== undefined ? "after" : "before";
  const text = (after ?? before)!;
  if (text === "") {
    if (direction === "before") throw badParameter("page[before]", "must be a cursor from links.prev.");
    return { number: 1, size, cursor: { direction, at: null } };
  }
  const at = decodeCursor(text);
  if (!at) throw badParameter(`page[${direction}]`, `must be a cursor from links.${direction === "after" ? "next" : "prev"}.`);
  return { number: 1, size, cursor: { direction, at } };
}

/** A collection document with `links` (null at the ends) and `meta.page`, keeping every other query parameter. */
export function collection<R extends ResourceObject<unknown, {}>>(
  c: Context,
  data: R[],
  page: Page,
  total: number,
  extra: { included?: ResourceObject<unknown, {}>[] } = {},
) {
  const url = new URL(c.req.url);
  const link = (set: Record<string, string>) => {
    const next = new URL(url);
    for (const name of ["page[number]", "page[after]", "page[before]"]) if (!(name in set)) next.searchParams.delete(name);
    for (const [name, value] of Object.entries(set)) next.searchParams.set(name, value);
    next.searchParams.set("page[size]", String(page.size));
    return `${next.pathname}?${next.searchParams.toString()}`;
  };
  if (page.cursor) {
    const w = page.window;
    if (!w) throw new Error("a cursor page was listed without its window");
    return {
      jsonapi: JSONAPI_VERSION,
      data,
      ...extra,
      links: {
        self: `${url.pathname}${url.search}`,
        first: link({ "page[after]": "" }),
        prev: w.hasPrev && w.first ? link({ "page[before]": w.first }) : null,
        next: w.hasNext && w.last ? link({ "page[after]": w.last }) : null,
      },
      meta: { page: { size: page.size, total } },
    };
  }
  const totalPages = Math.max(1, Math.ceil(total / page.size));
  const numbered = (n: number) => link({ "page[number]": String(n) });
  return {
    jsonapi: JSONAPI_VERSION,
    data,
    ...extra,
    links: {
      self: numbered(page.number),
      first: numbered(1),
      prev: page.number > 1 ? numbered(Math.min(page.number - 1, totalPages)) : null,
      next: page.number < totalPages ? numbered(page.number + 1) : null,
      last: numbered(totalPages),
    },
    meta: { page: { number: page.number, size: page.size, total, total_pages: totalPages } },
  };
}

// ---- Request documents -------------------------------------------------------------------------

/** A body whose `data.type` is not the endpoint's, or whose `data.id` is not the path's, is a 409. */
export function assertDocumentMatches(data: { type: string; id?: string }, type: string, id?: string): void {
  if (data.type !== type) {
    throw new ApiError("conflict", { detail: `data.type must be "${type}", got "${data.type}".`, source: { pointer: "/data/type" } });
  }
  if (id !== undefined && data.id !== undefined && data.id !== id) {
    throw new ApiError("conflict", { detail: "data.id does not match the id in the path.", source: { pointer: "/data/id" } });
  }
}
