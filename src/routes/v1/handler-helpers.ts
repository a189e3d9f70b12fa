import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { respond } from "../../http/media-type";
import type { ServiceContext } from "../../services/context";

export function serviceContext(c: Context<AppEnv>): ServiceContext {
  return { db: c.var.db, caller: c.var.caller };
}

/** 201 with `Location` equal to the new resource's `links.self`. */
export function created<T extends { data: { links: { self: string } } }>(c: Context, document: T) {
  c.header("Location", document.data.links.self);
  return respond(c, document, 201);
}

/** 204 with an empty body. */
export function noContent(c: Context): Response {
  return c.body(null, 204);
}
