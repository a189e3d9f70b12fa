import type { Context, MiddlewareHandler } from "hono";
import { createDb, type Db } from "../db";
import { CATALOG, shardsOf } from "../db/shards";
import { Unavailable } from "../lib/domain-errors";
import { normalizeShortcode, normalizeUuid, normalizeVulnShortcode } from "../lib/ids";
import type { CatalogNameKind } from "../db/schema";
import { type CatalogName, findName, findTenant, type Found, shardCatalog, type Catalog } from "../db/catalog";
import type { AppEnv } from "./app-env";

// How a request of a sharded deployment finds its shard before it reads anything: the name it carries (its
// key's or session's SHA-256, a shortcode, a slug, a domain, a report token's SHA-256) is looked up in the
// catalog once a minute per data center at most: the answer is kept in the edge cache (the Cache API) under
// a host no request can name, so a warm lookup costs no D1 read. A name that leaves the catalog (a revoked
// key, an ended session) or an organization that moves deletes its entries.

const LOOKUP_SECONDS = 60;
const lookupKey = ({ kind, name }: CatalogName) => `https://catalog.vdp.invalid/${kind}/${encodeURIComponent(name)}`;

/** What the catalog answered for `key`, from the edge cache, or read by `load` and kept a minute (a miss is not kept). */
async function cachedLookup(key: string, load: () => Promise<Found | null>): Promise<Found | null> {
  const hit = await caches.default.match(key);
  if (hit) return (await hit.json()) as Found;
  const found = await load();
  if (found)
    await caches.default.put(key, new Response(JSON.stringify(found), { headers: { "Cache-Control": `max-age=${LOOKUP_SECONDS}` } }));
  return found;
}

/** A name's organization and shard, from the edge cache or the catalog (null: the catalog knows no such name). */
export function lookUpName(env: Env, name: CatalogName): Promise<Found | null> {
  return cachedLookup(lookupKey(name), () => findName(createDb(shardsOf(env).catalog.withSession("first-unconstrained")), name));
}

/** Drops a name's cached lookup, everywhere this Worker runs it is read again from the catalog within a minute. */
export async function forgetName(name: CatalogName): Promise<void> {
  await caches.default.delete(lookupKey(name));
}

/** The catalog a request's services use, in a sharded deployment; none for one database. */
export function requestCatalog(env: Env): Catalog | undefined {
  const shards = shardsOf(env);
  return shards.sharded ? shardCatalog(shards, forgetName) : undefined;
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Refuses a moving organization's writes (503 with `Retry-After`); its reads go on from the shard it leaves until the switch. */
function refuseWritesWhileMoving(c: Context<AppEnv>, found: Found): void {
  if (found.movingTo && !READS.has(c.req.method))
    throw new Unavailable("This organization is moving to another database for a few minutes; retry after Retry-After seconds.", 30);
}

/**
 * Routes the request to the shard a name leads to, and answers the database to read the name's own row
 * in (null: no such name). An operator's key leads to the catalog, which its request reads unless its
 * path names an organization (routeToOrganization). A one-database deployment is routed already.
 */
export async function routeByName(c: Context<AppEnv>, name: CatalogName): Promise<Db | null> {
  const shards = shardsOf(c.env);
  if (!shards.sharded) return c.var.database.db;
  const found = await lookUpName(c.env, name);
  if (!found) return null;
  if (found.shard === CATALOG) {
    c.var.database.fallBackTo(CATALOG, shards.catalog);
    return createDb(shards.catalog.withSession("first-primary"));
  }
  refuseWritesWhileMoving(c, found);
  c.var.database.route(found.shard, shards.binding(found.shard));
  return c.var.database.db;
}

const tenantKey = (organizationId: string) => `https://catalog.vdp.invalid/tenant/${encodeURIComponent(organizationId)}`;

/**
 * An operator's request whose path names an organization reads that organization's shard. An
 * organization's own caller is routed already (to its own shard: another's id there is a 404).
 */
export async function routeToOrganization(c: Context<AppEnv>, organizationId: string): Promise<void> {
  const shards = shardsOf(c.env);
  if (!shards.sharded || c.var.caller?.kind !== "operator") return;
  const found = await cachedLookup(tenantKey(organizationId), () =>
    findTenant(createDb(shards.catalog.withSession("first-unconstrained")), organizationId),
  );
  if (!found) return;
  refuseWritesWhileMoving(c, found);
  c.var.database.route(found.shard, shards.binding(found.shard));
}

/** Drops an organization's cached shard (a move's switch). */
export async function forgetTenant(organizationId: string): Promise<void> {
  await caches.default.delete(tenantKey(organizationId));
}

/**
 * A public route's shard, found by what its path carries (a shortcode, a slug, a token's hash). A name the
 * catalog does not know reads the first shard, where it is not found either: the route answers its own 404.
 *
 * @example publicRouter.use("/briefs/:shortcode/*", routeBy((c) => ({ kind: "brief", name: c.req.param("shortcode")! })))
 */
export function routeBy(nameOf: (c: Context<AppEnv>) => CatalogName | null | Promise<CatalogName | null>): MiddlewareHandler<AppEnv> {
  return async function routeByMiddleware(c, next) {
    const shards = shardsOf(c.env);
    if (shards.sharded) {
      const name = await nameOf(c);
      const found = name ? await routeByName(c, name) : null;
      if (!found) c.var.database.route(shards.names[0]!, shards.binding(shards.names[0]!));
    }
    await next();
  };
}

/** A brief's or a policy's catalog name as a path carries its shortcode (any case, read as heard), or null when it cannot be one. */
export function shortcodeName(kind: "brief" | "policy", text: string | undefined): CatalogName | null {
  const shortcode = normalizeShortcode(text ?? "");
  return shortcode ? { kind, name: shortcode } : null;
}

/** An advisory's catalog name as a path carries its id (any case), or null when it cannot be one. */
export function advisoryName(text: string | undefined): CatalogName | null {
  const id = normalizeUuid(text ?? "");
  return id ? { kind: "advisory", name: id } : null;
}

/** An organization's slug as a path carries it (slugs are lower case). */
export const slugName = (text: string | undefined): CatalogName => ({ kind: "organization_slug", name: (text ?? "").toLowerCase() });

/** A custom domain as a request's Host names it (domains are claimed in lower case). */
export const domainName = (url: string): CatalogName => ({ kind: "domain", name: new URL(url).hostname.toLowerCase() });

/**
 * A lookup by a secret's SHA-256 (a report's follow-up token) that first routes the request to the
 * shard the catalog names for it; a hash the catalog does not know finds nothing, and no shard is read.
 *
 * @example reporterAuth({ lookUp: routedLookUp("report_token", findReport), caller: reporterCaller })
 */
export function routedLookUp<T>(kind: CatalogNameKind, find: (db: Db, hash: string) => Promise<T | null>) {
  return async function routedLookUpOf(c: Context, hash: string): Promise<T | null> {
    const db = await routeByName(c as Context<AppEnv>, { kind, name: hash });
    return db ? find(db, hash) : null;
  };
}

/**
 * What spans organizations or names a row no catalog name leads to (an unsubscribe link's report, checked
 * by its MAC before anything is read): looked for in every shard at once, and the request routed to the
 * one that has it. Null, unrouted, when none has it. A one-database deployment reads its one database.
 */
export async function routeByScatter<T>(c: Context<AppEnv>, find: (db: Db) => Promise<T | null>): Promise<T | null> {
  const shards = shardsOf(c.env);
  if (!shards.sharded) return find(c.var.database.db);
  const found = await Promise.all(
    // At each primary: a bookmark the client sent is one database's, and a scatter is rare enough.
    shards.names.map(async (shard) => ({ shard, value: await find(createDb(shards.binding(shard).withSession("first-primary"))) })),
  );
  const hit = found.find((f) => f.value !== null);
  if (!hit) return null;
  c.var.database.route(hit.shard, shards.binding(hit.shard));
  return hit.value;
}

/**
 * A request that spans organizations (a person asking for sign-in links, a passkey's challenge) reads
 * the catalog unless something routes it to a shard first: it keeps what is no organization's.
 */
export const onCatalog: MiddlewareHandler<AppEnv> = async function onCatalogMiddleware(c, next) {
  const shards = shardsOf(c.env);
  if (shards.sharded) c.var.database.fallBackTo(CATALOG, shards.catalog);
  await next();
};

/** The table each collection's ids are in: an operator's request about one record reads the shard that holds it. */
const RECORDS: Record<string, string> = {
  policies: "policies",
  assets: "assets",
  briefs: "briefs",
  vulns: "vulns",
  webhooks: "webhooks",
  contacts: "contacts",
  members: "members",
  canned_responses: "canned_responses",
  advisories: "advisories",
  notifications: "notifications",
  audit_events: "audit_events",
  api_keys: "api_keys",
  directory_listings: "directory_listings",
};

/** The organization an operator's write names in its body (`relationships.organization`), if any. */
async function organizationInBody(c: Context<AppEnv>): Promise<string | null> {
  if (READS.has(c.req.method) || !c.req.header("content-type")?.includes("json")) return null;
  try {
    // Hono keeps the parsed body: the route's validator reads the same one.
    const body = (await c.req.json()) as { data?: { relationships?: { organization?: { data?: { id?: unknown } } } } };
    const id = body?.data?.relationships?.organization?.data?.id;
    return typeof id === "string" ? id : null;
  } catch {
    return null;
  }
}

/**
 * An operator's request belongs to no organization: in a sharded deployment it reads the shard of the
 * record its path names (looked for in every shard at once: operators' requests are few), or of the
 * organization its body or filter names, and otherwise the catalog (directories, organizations' copies,
 * operators' keys).
 */
export function routeOperators(): MiddlewareHandler<AppEnv> {
  return async function routeOperatorsMiddleware(c, next) {
    const shards = shardsOf(c.env);
    if (!shards.sharded || c.var.caller?.kind !== "operator" || c.var.database.routed) return next();
    const [collection, id] = new URL(c.req.url).pathname.split("/").slice(2, 4);
    const table = collection ? RECORDS[collection] : undefined;
    if (table && id) {
      // A vuln's path may name it by the shortcode a researcher quotes (any case) instead of its id.
      const code = table === "vulns" ? normalizeVulnShortcode(decodeURIComponent(id)) : null;
      const probe = code ? "SELECT 1 FROM vulns WHERE shortcode = ?" : `SELECT 1 FROM ${table} WHERE id = ?`;
      const found = await Promise.all(
        shards.names.map(async (shard) =>
          (await shards
            .binding(shard)
            .prepare(probe)
            .bind(code ?? id)
            .first())
            ? shard
            : null,
        ),
      );
      const shard = found.find((s) => s !== null);
      if (shard) c.var.database.route(shard, shards.binding(shard));
      return next();
    }
    const organizationId = (await organizationInBody(c)) ?? c.req.query("q[organization_id_eq]") ?? null;
    if (organizationId) await routeToOrganization(c, organizationId);
    await next();
  };
}

/** What the reads across shards need of a request: its bindings, its database and caller. */
type RequestOf = { env: Env; var: Pick<AppEnv["Variables"], "database" | "caller"> };

/** Every database a read across organizations asks: the request's own (one database), or each shard's. */
export function everyShard(c: RequestOf): Db[] {
  const shards = shardsOf(c.env);
  if (!shards.sharded) return [c.var.database.db];
  return shards.names.map((name) => createDb(shards.binding(name).withSession("first-unconstrained")));
}

/**
 * The tenant databases an operator's request spans when nothing routed it to one shard (a list without an
 * organization's filter, the platform's metrics); it reads the catalog as its own. None otherwise: an
 * organization's caller, or a request routed to the shard its path or filter names, reads one database.
 */
export function spansOf(c: RequestOf): readonly Db[] | undefined {
  if (c.var.caller?.kind !== "operator" || c.var.database.shard !== CATALOG) return undefined;
  return everyShard(c);
}
