import { actsForOrganization } from "../lib/caller";
import { and, asc, count, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import type { Db } from "../db";
import type { Page } from "../db/pagination";
import { where } from "../db/queries";
import { auditEvents, type AuditEventRow } from "../db/schema";
import { BadInput, NotFound } from "../lib/domain-errors";
import { readersOf, tenantFilter, type ServiceContext } from "./context";
import { readPage, type Ordering } from "./list-pages";

// Reading the audit log (its rows are written by the unit of work, in each change's own batch).

export type AuditSort = "at" | "-at";

export interface AuditQuery {
  page: Page;
  sort?: AuditSort;
  /** Operators: one organization's log (without it, every organization's and the platform's own). */
  organizationId?: string;
  actorId?: string;
  action?: string;
  targetId?: string;
  from?: string;
  to?: string;
}

/**
 * In time order by id: a row's id is a UUIDv7 made with its `at`, so the id orders the rows as `at`
 * does, and each filter's index (organization, then actor, action or target, then id) serves the sort.
 */
const ordering = (sort: AuditSort): Ordering => ({
  name: sort,
  column: auditEvents.id,
  field: "id",
  id: auditEvents.id,
  descending: sort === "-at",
});

/** A page of the log and its total in one round trip: the caller's organization's (an operator's: any, or all). */
export async function listAuditEvents(ctx: ServiceContext, query: AuditQuery): Promise<{ rows: AuditEventRow[]; total: number }> {
  const { organizationId } = query;
  if (organizationId !== undefined && actsForOrganization(ctx.caller) && organizationId !== ctx.caller.organizationId)
    throw new BadInput("q[organization_id_eq]: an organization reads its own audit log only; leave it out.", {
      parameter: "q[organization_id_eq]",
    });
  if (query.from && query.to && query.from > query.to)
    throw new BadInput(`q[at_gteq]: after q[at_lteq] (${query.to}); no event could match.`, { parameter: "q[at_gteq]" });
  const filter = where(
    tenantFilter(ctx, auditEvents.organizationId),
    organizationId !== undefined ? eq(auditEvents.organizationId, organizationId) : undefined,
    query.actorId !== undefined ? eq(auditEvents.actorId, query.actorId) : undefined,
    query.action !== undefined ? eq(auditEvents.action, query.action) : undefined,
    query.targetId !== undefined ? eq(auditEvents.targetId, query.targetId) : undefined,
    query.from !== undefined ? gte(auditEvents.at, query.from) : undefined,
    query.to !== undefined ? lte(auditEvents.at, query.to) : undefined,
  );
  return readPage<AuditEventRow>(readersOf(ctx, { catalogToo: true }), (db) => ({
    ordering: ordering(query.sort ?? "-at"),
    page: query.page,
    rows: ({ seek, order, limit, offset }) =>
      db
        .select()
        .from(auditEvents)
        .where(and(filter, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => db.select({ id: auditEvents.id }).from(auditEvents).where(and(filter, at)).limit(1),
    total: db.select({ total: count() }).from(auditEvents).where(filter),
  }));
}

/** One event of the log the caller may read. */
export async function getAuditEvent(ctx: ServiceContext, id: string): Promise<AuditEventRow> {
  const row = await ctx.db
    .select()
    .from(auditEvents)
    .where(where(eq(auditEvents.id, id), tenantFilter(ctx, auditEvents.organizationId)))
    .get();
  if (!row) throw new NotFound("audit_event", "No event of the audit log has that id.");
  return row;
}

/** How long the audit log keeps a row, in days (the trigger of migration 0037 refuses younger deletes). */
export const AUDIT_KEPT_DAYS = 400;
/** Rows one cron run deletes at most: a backlog goes over a few runs, each a short statement. */
export const AUDIT_PURGE_PAGE = 1000;

/**
 * The cron: deletes audit rows older than AUDIT_KEPT_DAYS, oldest first, a page a run. Not a plan and
 * no audit row of its own: it is the log's retention. The database's own clock bounds it too, as the
 * trigger does, so a clock ahead of the database's never asks for a delete the trigger would refuse.
 */
export async function purgeOldAuditEvents(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - AUDIT_KEPT_DAYS * 86_400_000).toISOString();
  const old = and(
    lt(auditEvents.at, cutoff),
    sql`${auditEvents.at} <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`-${AUDIT_KEPT_DAYS} days`})`,
  );
  const page = db.select({ id: auditEvents.id }).from(auditEvents).where(old).orderBy(asc(auditEvents.at)).limit(AUDIT_PURGE_PAGE);
  const deleted = await db.delete(auditEvents).where(inArray(auditEvents.id, page)).returning({ id: auditEvents.id });
  return deleted.length;
}
