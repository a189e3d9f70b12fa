import { actsForOrganization } from "../lib/caller";
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import type { Caller } from "../lib/caller";
import type { QueueMessage } from "../lib/queue";
import type { IdempotencyUnit } from "../lib/idempotency-key";
import { Forbidden, Invalid, type StoredResponse, relationship } from "../lib/domain-errors";
import { subquery } from "../db/queries";
import type { Stale } from "../lib/stale";
import type { Scope } from "../lib/caller";
import { assertMayRead } from "./access";
import type { Catalog } from "../db/catalog";

export { PLATFORM_CALLER, PUBLIC_CALLER, type Caller } from "../lib/caller";

/** What every service function takes first: the database and the caller it must scope to. */
export interface ServiceContext {
  db: Db;
  caller: Caller;
  /** Where committed events go (the queue whose consumer is this Worker). */
  queue: Queue<QueueMessage>;
  /** Where organizations are found, in a sharded deployment only (one database keeps no catalog). */
  catalog?: Catalog;
  /**
   * Every tenant database, for an operator's read across organizations in a sharded deployment when
   * nothing routed the request to one shard (`db` is then the catalog). A list reads each and merges them
   * in its order (see readersOf).
   */
  spans?: readonly Db[];
  /** Runs work after the response (ctx.waitUntil). */
  defer: (work: Promise<unknown>) => void;
  /** This request's Idempotency-Key, if it sent one. */
  idempotency?: IdempotencyUnit;
  /**
   * How the answer to a create is made, to keep with the request's Idempotency-Key in the change's own
   * batch (commit calls it only when the request carries a key). Set by the route that creates.
   */
  respond?(record: unknown): StoredResponse;
  /** The request a change came from, for its audit row; absent for the platform's own work (the queue, the cron). */
  request?: { id: string; ip: string | null; userAgent: string | null };
  /** Drops the public reads a committed change made stale; absent where nothing public is cached (the queue, the cron). */
  evict?: (stale: Stale) => Promise<void>;
  /** The change a write service said it makes (see mayChange in access.ts), whose scope also lets it read. */
  changing?: Scope;
}

/**
 * The databases a list of organizations' rows reads: the request's own, or for an operator's read across
 * organizations of a sharded deployment, every tenant database, and the catalog too for the rows an
 * operator's own request keeps there (`catalogToo`: operators' keys, the audit rows of their changes to
 * what is no organization's). Lists of the platform's own rows (organizations, directories) read `ctx.db`
 * alone: the catalog has each once (a copy of an organization's row, the directory every shard copies).
 */
export function readersOf(ctx: ServiceContext, { catalogToo = false } = {}): readonly Db[] {
  if (!ctx.spans) return [ctx.db];
  return catalogToo ? [ctx.db, ...ctx.spans] : ctx.spans;
}

/**
 * The tenancy filter. Every query on an organization-owned table goes through here, so an
 * organization key can never see another organization's rows; operators read across organizations.
 * It is also where reading needs the `read` scope (see access.ts): no query of organization data
 * escapes it.
 */
export function tenantFilter(ctx: ServiceContext, column: SQLiteColumn): SQL | undefined {
  if (ctx.caller.kind === "operator") return undefined;
  if (actsForOrganization(ctx.caller)) {
    assertMayRead(ctx);
    return eq(column, ctx.caller.organizationId!);
  }
  return sql`0`; // public, and a reporter outside its report
}

/**
 * The filter for rows that belong to one vuln (the vuln itself, its comments and files): the caller's
 * tenancy, and for a reporter its own report's rows only.
 */
export function vulnScope(ctx: ServiceContext, organizationColumn: SQLiteColumn, vulnColumn: SQLiteColumn): SQL | undefined {
  if (ctx.caller.kind !== "reporter") return tenantFilter(ctx, organizationColumn);
  return and(eq(organizationColumn, ctx.caller.organizationId!), eq(vulnColumn, ctx.caller.reportId!));
}

/** Which data an operator key may change for an unclaimed organization only (the 403's words). */
export type OperatorNarrowed = "policies" | "assets" | "briefs" | "directory items";

/**
 * Whether the organization that owns a row is claimed, as a column of the read a write already
 * makes (so the rule costs no round trip of its own). `table` names the row's table, whose
 * `organization_id` the subquery must bind to (a bare column name would bind inside it).
 */
export function ownerClaimed(organizationId: SQLiteColumn) {
  return subquery<number | null>`(SELECT claimed FROM organizations WHERE organizations.id = ${organizationId})`;
}

/**
 * Operators curate organizations nobody has claimed (listed from public analysis); once an
 * organization is claimed, its data is changed by its own key only. Organization keys pass: their
 * reads are scoped to their organization already.
 */
export function assertOperatorMayChange(ctx: ServiceContext, claimed: number | boolean | null | undefined, what: OperatorNarrowed): void {
  if (!actsForOrganization(ctx.caller) && claimed !== 0 && claimed !== false) {
    throw new Forbidden(`Operator keys may change the ${what} of unclaimed organizations only.`);
  }
}

/**
 * The organization_id a new row is written with. For an operator it is a subquery that is NULL
 * unless the organization still exists unclaimed when the batch runs, so an organization claimed
 * (or never there) after the request's checks makes the insert fail, and with it the whole batch.
 */
export function ownerValue(ctx: ServiceContext, organizationId: string): string | SQL {
  if (actsForOrganization(ctx.caller)) return organizationId;
  return subquery`(SELECT id FROM organizations WHERE id = ${organizationId} AND claimed = 0)`;
}

/**
 * The organization a new record belongs to. Organization keys write for their own organization (naming
 * another is a 422, exactly like naming one that does not exist); operator keys must name one.
 */
export function owningOrganization(ctx: ServiceContext, requested: string | undefined, exists: boolean | undefined): string {
  const member = relationship("organization");
  if (actsForOrganization(ctx.caller)) {
    if (requested !== undefined && requested !== ctx.caller.organizationId) {
      throw Invalid.at(member, "organization does not exist.");
    }
    return ctx.caller.organizationId!;
  }
  if (requested === undefined) {
    throw new Invalid({
      detail: "An operator key must name the organization (relationships.organization).",
      source: { member: relationship("organization", { whole: true }) },
    });
  }
  if (!exists) throw Invalid.at(member, "organization does not exist.");
  return requested;
}

/** owningOrganization for data an operator writes only while unclaimed: `found` is the named organization's row (null: none). */
export function owningUnclaimed(
  ctx: ServiceContext,
  what: OperatorNarrowed,
  { requested, found }: { requested: string | undefined; found: { claimed: boolean } | null | undefined },
): string {
  const owner = owningOrganization(ctx, requested, found === undefined ? undefined : found !== null);
  if (found) assertOperatorMayChange(ctx, found.claimed, what);
  return owner;
}
