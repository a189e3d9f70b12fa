import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import type { QueueMessage } from "../../events/outbox";
import { respond, responseMediaType } from "../../http/media-type";
import { PUBLIC_CALLER, type ServiceContext } from "../../services/context";
import type { StoredResponse } from "../../http/idempotency-key";
import { evictPublic, publicBriefPath, publicDirectoryPath } from "../../http/cache";

export function serviceContext(c: Context<AppEnv>): ServiceContext {
  return {
    db: c.var.database.db,
    caller: c.var.caller ?? PUBLIC_CALLER,
    queue: c.env.EVENTS as Queue<QueueMessage>,
    defer: (work) => c.executionCtx.waitUntil(work),
    idempotency: c.var.idempotency,
    evict: (stale) => evictPublic([...(stale.briefs ?? []).map(publicBriefPath), ...(stale.directories ?? []).map(publicDirectoryPath)]),
  };
}

/** A response as kept with an Idempotency-Key, to be replayed byte for byte. */
export function storedResponse(c: Context, document: unknown, status: number, location?: string): StoredResponse {
  return {
    status,
    headers: { "Content-Type": responseMediaType(c), ...(location ? { Location: location } : {}) },
    body: JSON.stringify(document),
  };
}

/** The stored response of a create: 201 with Location. */
export function storedCreated(c: Context, document: { data: { links: { self: string } } }): StoredResponse {
  return storedResponse(c, document, 201, document.data.links.self);
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
