import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import type { QueueMessage } from "../../lib/queue";
import { type ResourceObject, single } from "../../http/jsonapi";
import { respond, responseMediaType } from "../../http/media-type";
import { PUBLIC_CALLER, type ServiceContext } from "../../services/context";
import type { StoredResponse } from "../../lib/domain-errors";
import type { Responder } from "../../services/unit-of-work";
import { evictPublic, stalePaths } from "../../http/cache";
import { shardsOf } from "../../db/shards";
import type { Db } from "../../db";
import { shardQueue } from "../../lib/queue";
import { requestCatalog, spansOf } from "../../http/shard-lookup";

/** What a service context is made of: any request of the app (its variables, its bindings). */
type RequestOf = Pick<Context<AppEnv>, "env" | "executionCtx"> & {
  var: Pick<AppEnv["Variables"], "database" | "caller" | "idempotency"> & Partial<Pick<AppEnv["Variables"], "requestId">>;
  req?: { header(name: string): string | undefined };
};

/**
 * The service context of a request; `respond` makes a create's answer, kept with its Idempotency-Key (see
 * creation); `db`, another database than the request's (where its key was found).
 */
export function serviceContext(c: RequestOf, respond?: Responder<never>, db?: Db): ServiceContext {
  return {
    ...(respond && { respond }),
    db: db ?? c.var.database.db,
    caller: c.var.caller ?? PUBLIC_CALLER,
    queue: requestQueue(c),
    catalog: requestCatalog(c.env),
    // Not for a service context on another database (the one a key was found in): that one spans nothing.
    ...(!db && { spans: spansOf(c) }),
    defer: (work) => c.executionCtx.waitUntil(work),
    idempotency: c.var.idempotency,
    evict: (stale) => evictPublic(stalePaths(stale)),
    ...(c.var.requestId && {
      request: { id: c.var.requestId, ip: c.req?.header("cf-connecting-ip") ?? null, userAgent: c.req?.header("user-agent") ?? null },
    }),
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

/**
 * A create's answer, serialized once. `respond` goes to the service, which keeps the answer with the
 * request's Idempotency-Key in the change's own batch (and calls it only then); `created` answers the
 * request with the same document: 201, `Location` at the new resource.
 */
export function creation<R, O extends ResourceObject<unknown, {}>>(c: Context, serialize: (record: R) => O) {
  let document: ReturnType<typeof single<O>> | undefined;
  return {
    respond: (record: R): StoredResponse => storedCreated(c, (document = single(serialize(record)))),
    created: (record: R) => created(c, document ?? single(serialize(record))),
  };
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

/** The queue a request's work sends to: in a sharded deployment each message names the request's shard. */
function requestQueue(c: RequestOf): Queue<QueueMessage> {
  const queue = c.env.EVENTS as Queue<QueueMessage>;
  return shardsOf(c.env).sharded ? shardQueue(queue, () => c.var.database?.shard) : queue;
}
