import { and, count, eq, getTableColumns, gte, inArray, isNotNull, isNull, lte, sql, type SQL } from "drizzle-orm";
import { BadInput } from "../lib/domain-errors";
import {
  type Gate,
  vulnCounts,
  vulns,
  type ActivitySide,
  type ProcessingState,
  type Severity,
  type TriageState,
  type VulnRow,
} from "../db/schema";
import type { Page } from "../db/pagination";
import { readersOf, tenantFilter, type ServiceContext } from "./context";
import type { Db } from "../db";
import { where } from "../db/queries";
import { ordering, readPage, type Ordering, type Sort } from "./list-pages";
import { recordColumns, toRecord, type VulnReadRow } from "./vulns/read";
import type { VulnRecord } from "./vulns/types";

export type VulnSort =
  | Sort
  | "cvss_score"
  | "-cvss_score"
  | "severity"
  | "-severity"
  | "last_activity_at"
  | "-last_activity_at"
  | "next_due_at"
  | "-next_due_at";

export interface VulnFilters {
  processingState?: string;
  /** Any of these triage states. */
  triageStates?: TriageState[];
  /** The duplicates of this original. */
  duplicateOf?: string;
  inboxState?: string;
  /** A severity, or null for the unrated. */
  severity?: Severity | null;
  /** A vuln's shortcode, normalized. */
  shortcode?: string;
  /** false: not opened by the organization yet. */
  read?: boolean;
  /** true: a running deadline is past due (as the report's overdue flag says). */
  overdue?: boolean;
  lastActivityBy?: ActivitySide;
  lastActivityFrom?: string;
  lastActivityTo?: string;
  /** An FTS5 query made by ftsQuery from what the caller typed. */
  search?: string;
  briefId?: string;
  /** The vulns assigned to this member, or (null) to nobody. */
  assigneeId?: string | null;
  createdFrom?: string;
  createdTo?: string;
  /** A running deadline due at or before this time (epoch milliseconds): overdue, or due soon. */
  dueBy?: number;
  /** How the report passed its brief's gate. */
  gate?: Gate;
  /** true: the vulns with a possible_duplicate_of suggestion. */
  possibleDuplicate?: boolean;
  /** The vulns signed with this reporter key (its thumbprint). */
  reporterKey?: string;
}

// By score with the unscored last in both directions: each direction orders by its own computed key
// (see the vulns table), so a cursor is a plain keyset seek on an index, like the timestamps'.
const BY_RANK: Record<Exclude<VulnSort, Sort>, Ordering> = {
  "-cvss_score": { name: "-cvss_score", column: vulns.cvssRankDesc, field: "cvssRankDesc", id: vulns.id, descending: true },
  cvss_score: { name: "cvss_score", column: vulns.cvssRankAsc, field: "cvssRankAsc", id: vulns.id, descending: false },
  "-severity": { name: "-severity", column: vulns.severityRankDesc, field: "severityRankDesc", id: vulns.id, descending: true },
  severity: { name: "severity", column: vulns.severityRankAsc, field: "severityRankAsc", id: vulns.id, descending: false },
  "-last_activity_at": { name: "-last_activity_at", column: vulns.lastActivityAt, field: "lastActivityAt", id: vulns.id, descending: true },
  last_activity_at: { name: "last_activity_at", column: vulns.lastActivityAt, field: "lastActivityAt", id: vulns.id, descending: false },
  next_due_at: { name: "next_due_at", column: vulns.nextDueAsc, field: "nextDueAsc", id: vulns.id, descending: false },
  "-next_due_at": { name: "-next_due_at", column: vulns.nextDueDesc, field: "nextDueDesc", id: vulns.id, descending: true },
};

export async function listVulns(
  ctx: ServiceContext,
  { page, sort, ...f }: { page: Page; sort?: VulnSort } & VulnFilters,
): Promise<{ rows: VulnRecord[]; total: number }> {
  const filter = where(
    tenantFilter(ctx, vulns.organizationId),
    f.processingState ? eq(vulns.processingState, f.processingState as ProcessingState) : undefined,
    f.triageStates ? inArray(vulns.triageState, f.triageStates) : undefined,
    f.duplicateOf ? eq(vulns.duplicateOfId, f.duplicateOf) : undefined,
    f.inboxState ? eq(vulns.inboxState, f.inboxState as VulnRow["inboxState"]) : undefined,
    f.severity === null ? isNull(vulns.severity) : f.severity ? eq(vulns.severity, f.severity) : undefined,
    f.shortcode ? eq(vulns.shortcode, f.shortcode) : undefined,
    f.read === undefined ? undefined : eq(vulns.unread, f.read ? 0 : 1),
    f.overdue === undefined ? undefined : eq(vulns.overdue, f.overdue ? 1 : 0),
    f.lastActivityBy ? eq(vulns.lastActivityBy, f.lastActivityBy) : undefined,
    f.lastActivityFrom ? gte(vulns.lastActivityAt, f.lastActivityFrom) : undefined,
    f.lastActivityTo ? lte(vulns.lastActivityAt, f.lastActivityTo) : undefined,
    f.briefId ? eq(vulns.briefId, f.briefId) : undefined,
    f.assigneeId === null ? isNull(vulns.assigneeId) : f.assigneeId ? eq(vulns.assigneeId, f.assigneeId) : undefined,
    f.createdFrom ? gte(vulns.createdAt, f.createdFrom) : undefined,
    f.createdTo ? lte(vulns.createdAt, f.createdTo) : undefined,
    f.dueBy === undefined ? undefined : lte(vulns.nextDueAsc, f.dueBy),
    f.gate ? eq(vulns.gate, f.gate) : undefined,
    f.possibleDuplicate === undefined ? undefined : eq(vulns.possibleDuplicate, f.possibleDuplicate ? 1 : 0),
    f.reporterKey ? and(isNotNull(vulns.reporterKey), eq(vulns.reporterKey, f.reporterKey)) : undefined,
  );
  const columns = { ...getTableColumns(vulns), ...recordColumns };
  if (f.search) return searchVulns(ctx, { page, sort, filter, query: f.search });
  // As listPage does: the page's ids first, so the domains subquery runs for the page's rows only.
  const { rows, total } = await readPage<VulnReadRow>(readersOf(ctx), (db) => ({
    ordering: orderingOf(sort),
    page,
    rows: ({ seek, order, limit, offset }) => {
      const ids = db
        .select({ id: vulns.id })
        .from(vulns)
        .where(and(filter, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset);
      return db
        .select(columns)
        .from(vulns)
        .where(inArray(vulns.id, ids))
        .orderBy(...order);
    },
    probe: (at: SQL) => db.select({ id: vulns.id }).from(vulns).where(and(filter, at)).limit(1),
    total: countedTotal(db, ctx, f) ?? db.select({ total: count() }).from(vulns).where(filter),
  }));
  return { rows: rows.map(toRecord), total };
}

const orderingOf = (sort: VulnSort | undefined) =>
  sort && sort in BY_RANK ? BY_RANK[sort as keyof typeof BY_RANK] : ordering(vulns, sort as Sort | undefined);

/**
 * The vulns whose title or description, or one of whose comments, match an FTS5 query, with their
 * best (lowest) bm25 score: a title match weighs ten times a description's. The two indexes' scores
 * are not on one scale (bm25 is negative, larger in magnitude the better), so a match in comments
 * only is placed after every match in a report's own text (1000 + its score). The caller's
 * organization is a term of the MATCH itself, so only its rows are read from the index.
 */
function searchHits(db: Db, ctx: ServiceContext, query: string) {
  const organizationId = ctx.caller.kind === "operator" ? null : ctx.caller.organizationId;
  if (organizationId !== null && !/^[0-9a-f-]+$/.test(organizationId ?? "")) throw new Error("a search needs the caller's organization");
  const ofOrganization = organizationId ? `{organization_id}: "${organizationId}" AND ` : "";
  const scoped = (columns: string) => `${ofOrganization}{${columns}}: (${query})`;
  const matches = sql`SELECT vulns.id AS vuln_id, bm25(vulns_search, 0.0, 10.0, 1.0) AS score
      FROM vulns_search JOIN vulns ON vulns.rowid = vulns_search.rowid WHERE vulns_search MATCH ${scoped("title description")}
    UNION ALL
    SELECT comments.vuln_id, 1000.0 + bm25(comments_search, 0.0, 1.0)
      FROM comments_search JOIN comments ON comments.rowid = comments_search.rowid WHERE comments_search MATCH ${scoped("body")}`;
  return db
    .select({ vulnId: sql<string>`vuln_id`.as("vuln_id"), score: sql<number>`min(score)`.as("score") })
    .from(sql`(${matches}) AS matches`)
    .groupBy(sql`vuln_id`)
    .as("hits");
}

/**
 * A page of search results, with the other filters, in rank order (best first) unless a sort is
 * given. Rank order pages by number only: a score is not a stable place to resume from, since every
 * new report changes every score. The total counts every match.
 */
async function searchVulns(
  ctx: ServiceContext,
  { page, sort, filter, query }: { page: Page; sort?: VulnSort; filter: SQL | undefined; query: string },
) {
  const ranked = sort === undefined;
  if (ranked && page.cursor) {
    throw new BadInput(`page[${page.cursor.direction}]: search results in rank order page by number; give a sort to page by cursor.`, {
      parameter: `page[${page.cursor.direction}]`,
    });
  }
  const { rows, total } = await readPage<VulnReadRow>(readersOf(ctx), (db) => {
    const hits = searchHits(db, ctx, query);
    const byRank: Ordering = { name: "rank", column: hits.score, field: "score", id: vulns.id, descending: false };
    // The score comes with each row: pages of several databases are merged by it (each ranks by its own index).
    const columns = { ...getTableColumns(vulns), ...recordColumns, score: hits.score };
    // The matches drive the join (CROSS JOIN keeps SQLite from turning it around and scanning the
    // organization's vulns to probe the matches), each finding its vuln by primary key.
    const joined = <T extends Record<string, unknown>>(fields: T) =>
      db
        .select(fields as never)
        .from(hits)
        .crossJoin(vulns);
    const matching = (...conditions: (SQL | undefined)[]) => and(eq(vulns.id, hits.vulnId), filter, ...conditions);
    return {
      ordering: ranked ? byRank : orderingOf(sort),
      page,
      rows: ({ seek, order, limit, offset }) =>
        joined(columns)
          .where(matching(seek))
          .orderBy(...order)
          .limit(limit)
          .offset(offset),
      probe: (at: SQL) => joined({ id: vulns.id }).where(matching(at)).limit(1),
      total: joined({ total: count() }).where(matching()),
    };
  });
  return { rows: rows.map(toRecord), total };
}

/**
 * The list's total from vuln_counts when the filters are at most one state or severity (one row), or
 * a set of triage states alone (a row per state, summed); other filters (a brief, a time range, two at
 * once) count the matching rows on their index.
 */
function countedTotal(db: Db, ctx: ServiceContext, f: VulnFilters) {
  const buckets = [
    f.processingState && `processing_state:${f.processingState}`,
    f.inboxState && `inbox_state:${f.inboxState}`,
    f.severity && `severity:${f.severity}`,
    f.read !== undefined && `unread:${f.read ? 0 : 1}`,
    f.lastActivityBy && `last_activity_by:${f.lastActivityBy}`,
    f.overdue !== undefined && `overdue:${f.overdue ? 1 : 0}`,
  ].filter((b): b is string => Boolean(b));
  // The unrated have no bucket of their own: counted on the severity index.
  if (
    f.shortcode ||
    f.duplicateOf ||
    f.lastActivityFrom ||
    f.lastActivityTo ||
    f.briefId ||
    f.assigneeId !== undefined ||
    f.createdFrom ||
    f.createdTo ||
    f.dueBy !== undefined ||
    f.gate ||
    f.possibleDuplicate !== undefined ||
    f.reporterKey ||
    f.severity === null ||
    buckets.length > 1
  )
    return undefined;
  if (ctx.caller.kind === "public") return undefined;
  if (f.triageStates && buckets.length > 0) return undefined;
  const organizationId = ctx.caller.kind === "operator" ? "*" : ctx.caller.organizationId!;
  const named = f.triageStates ? f.triageStates.map((s) => `triage_state:${s}`) : [buckets[0] ?? "all"];
  return db
    .select({ total: sql<number>`coalesce(sum(${vulnCounts.count}), 0)` })
    .from(vulnCounts)
    .where(and(eq(vulnCounts.organizationId, organizationId), inArray(vulnCounts.bucket, named)));
}
