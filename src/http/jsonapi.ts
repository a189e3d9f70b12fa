import type { Context } from "hono";
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

export function toOne(type: string, id: string | null | undefined): { data: Linkage | null } {
  return { data: id ? { type, id } : null };
}

export function toMany(type: string, ids: readonly string[]): { data: Linkage[] } {
  return { data: ids.map((id) => ({ type, id })) };
}

export function single<R extends ResourceObject<unknown, {}>>(data: R, extra: { included?: ResourceObject<unknown, {}>[]; meta?: Record<string, unknown> } = {}) {
  return { jsonapi: JSONAPI_VERSION, data, links: { self: data.links.self }, ...extra };
}

// ---- Pagination (API.md section 4) -------------------------------------------------------------

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  number: number;
  size: number;
}

export function pageOf(query: { "page[number]"?: number; "page[size]"?: number }): Page {
  return { number: query["page[number]"] ?? 1, size: query["page[size]"] ?? DEFAULT_PAGE_SIZE };
}

export function offsetOf(page: Page): number {
  return (page.number - 1) * page.size;
}

/** A collection document with `links` (null at the ends) and `meta.page`, keeping every other query parameter. */
export function collection<R extends ResourceObject<unknown, {}>>(c: Context, data: R[], page: Page, total: number, extra: { included?: ResourceObject<unknown, {}>[] } = {}) {
  const totalPages = Math.max(1, Math.ceil(total / page.size));
  const link = (n: number) => {
    const url = new URL(c.req.url);
    url.searchParams.set("page[number]", String(n));
    url.searchParams.set("page[size]", String(page.size));
    return `${url.pathname}?${url.searchParams.toString()}`;
  };
  return {
    jsonapi: JSONAPI_VERSION,
    data,
    ...extra,
    links: {
      self: link(page.number),
      first: link(1),
      prev: page.number > 1 ? link(Math.min(page.number - 1, totalPages)) : null,
      next: page.number < totalPages ? link(page.number + 1) : null,
      last: link(totalPages),
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
