import { and, count, eq, getTableColumns, gte, inArray, isNull, lte, type SQL } from "drizzle-orm";
import { vulnCounts, vulns, type ActivitySide, type ProcessingState, type Severity, type VulnRow } from "../db/schema";
import type { Page } from "../db/pagination";
import { tenantFilter, type ServiceContext } from "./context";
import { batchOf, where } from "../db/queries";
import { ordering, pageStatements, type Ordering, type Sort } from "./list-pages";
import { domainsColumn, toRecord, type VulnRecord } from "./vulns";

export type VulnSort = Sort | "cvss_score" | "-cvss_score" | "severity" | "-severity" | "last_activity_at" | "-last_activity_at";

export interface VulnFilters {
  processingState?: string;
  inboxState?: string;
  /** A severity, or null for the unrated. */
  severity?: Severity | null;
  /** A vuln's shortcode, normalized. */
  shortcode?: string;
  /** false: not opened by the organization yet. */
  read?: boolean;
  lastActivityBy?: ActivitySide;
  lastActivityFrom?: string;
  lastActivityTo?: string;
  briefId?: string;
  createdFrom?: string;
  createdTo?: string;
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
};

export async function listVulns(
  ctx: ServiceContext,
  page: Page,
  sort: VulnSort | undefined,
  f: VulnFilters,
): Promise<{ rows: VulnRecord[]; total: number }> {
  const filter = where(
    tenantFilter(ctx, vulns.organizationId),
    f.processingState ? eq(vulns.processingState, f.processingState as ProcessingState) : undefined,
    f.inboxState ? eq(vulns.inboxState, f.inboxState as VulnRow["inboxState"]) : undefined,
    f.severity === null ? isNull(vulns.severity) : f.severity ? eq(vulns.severity, f.severity) : undefined,
    f.shortcode ? eq(vulns.shortcode, f.shortcode) : undefined,
    f.read === undefined ? undefined : eq(vulns.unread, f.read ? 0 : 1),
    f.lastActivityBy ? eq(vulns.lastActivityBy, f.lastActivityBy) : undefined,
    f.lastActivityFrom ? gte(vulns.lastActivityAt, f.lastActivityFrom) : undefined,
    f.lastActivityTo ? lte(vulns.lastActivityAt, f.lastActivityTo) : undefined,
    f.briefId ? eq(vulns.briefId, f.briefId) : undefined,
    f.createdFrom ? gte(vulns.createdAt, f.createdFrom) : undefined,
    f.createdTo ? lte(vulns.createdAt, f.createdTo) : undefined,
  );
  const columns = { ...getTableColumns(vulns), ...domainsColumn };
  // As listPage does: the page's ids first, so the domains subquery runs for the page's rows only.
  const spec = pageStatements<VulnRow & { domainsJson: string }>({
    ordering: sort && sort in BY_RANK ? BY_RANK[sort as keyof typeof BY_RANK] : ordering(vulns, sort as Sort | undefined),
    page,
    rows: (seek, order, limit, offset) => {
      const ids = ctx.db
        .select({ id: vulns.id })
        .from(vulns)
        .where(and(filter, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset);
      return ctx.db
        .select(columns)
        .from(vulns)
        .where(inArray(vulns.id, ids))
        .orderBy(...order);
    },
    probe: (at: SQL) => ctx.db.select({ id: vulns.id }).from(vulns).where(and(filter, at)).limit(1),
    total: countedTotal(ctx, f) ?? ctx.db.select({ total: count() }).from(vulns).where(filter),
  });
  const { rows, total } = spec.read(await batchOf(ctx.db, spec.statements));
  return { rows: rows.map(toRecord), total };
}

/**
 * The list's total from vuln_counts (one row) when the filters are at most one state or severity;
 * other filters (a brief, a time range, two at once) count the matching rows on their index.
 */
function countedTotal(ctx: ServiceContext, f: VulnFilters) {
  const buckets = [
    f.processingState && `processing_state:${f.processingState}`,
    f.inboxState && `inbox_state:${f.inboxState}`,
    f.severity && `severity:${f.severity}`,
    f.read !== undefined && `unread:${f.read ? 0 : 1}`,
    f.lastActivityBy && `last_activity_by:${f.lastActivityBy}`,
  ].filter((b): b is string => Boolean(b));
  // The unrated have no bucket of their own: counted on the severity index.
  if (
    f.shortcode ||
    f.lastActivityFrom ||
    f.lastActivityTo ||
    f.briefId ||
    f.createdFrom ||
    f.createdTo ||
    f.severity === null ||
    buckets.length > 1
  )
    return undefined;
  if (ctx.caller.kind === "public") return undefined;
  const organizationId = ctx.caller.kind === "operator" ? "*" : ctx.caller.organizationId!;
  return ctx.db
    .select({ total: vulnCounts.count })
    .from(vulnCounts)
    .where(and(eq(vulnCounts.organizationId, organizationId), eq(vulnCounts.bucket, buckets[0] ?? "all")));
}
