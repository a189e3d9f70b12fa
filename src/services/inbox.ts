import { and, asc, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import { briefs, members, vulnCounts, vulns } from "../db/schema";
import { batchOf } from "../db/queries";
import { type ServiceContext, tenantFilter } from "./context";
import type { VulnFilters, VulnSort } from "./vuln-list";

// The console's inbox views: each is a set of the list's filters with the order a triager wants it
// in first, and a count on its tab. A view is nothing but filters of GET /v1/vulns, so the inbox and
// the API list the same reports.

export const INBOX_VIEWS = ["new", "needs_triage", "awaiting_reporter", "due", "mine", "open", "closed"] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];

/** "Due soon": a running deadline within this long, or past. */
export const DUE_SOON_MS = 24 * 3_600_000;

/**
 * The counts a tab shows exactly, or up to this many and then "more": the views with no counter row
 * (due soon, assigned to a member) are counted on their index, at most this far, so the inbox reads
 * a bounded number of rows at any size.
 */
export const COUNT_CAP = 50;

/** A view's filters and its first order. */
export function viewOf(view: InboxView, at: { memberId: string; now: number }): { filters: VulnFilters; sort: VulnSort } {
  switch (view) {
    case "new":
      return { filters: { read: false }, sort: "-created_at" };
    case "needs_triage":
      return { filters: { triageStates: ["new"] }, sort: "-created_at" };
    case "awaiting_reporter":
      return { filters: { triageStates: ["needs_more_info"] }, sort: "-created_at" };
    case "due":
      return { filters: { dueBy: at.now + DUE_SOON_MS }, sort: "next_due_at" };
    case "mine":
      return { filters: { assigneeId: at.memberId, processingState: "open" }, sort: "-created_at" };
    case "open":
      return { filters: { processingState: "open" }, sort: "next_due_at" };
    case "closed":
      return { filters: { processingState: "closed" }, sort: "-updated_at" };
  }
}

export interface ViewCount {
  count: number;
  /** True when there are more than `count` (the count stopped at COUNT_CAP). */
  more: boolean;
}

const BUCKETS: Partial<Record<InboxView, string>> = {
  new: "unread:1",
  needs_triage: "triage_state:new",
  awaiting_reporter: "triage_state:needs_more_info",
  open: "processing_state:open",
  closed: "processing_state:closed",
};

/** The briefs and members an inbox offers to filter by and assign to: an organization has at most 100 members. */
export const PICK_LIMIT = 100;

export interface InboxSurroundings {
  counts: Record<InboxView, ViewCount>;
  briefs: { id: string; name: string | null }[];
  members: { id: string; name: string | null; email: string }[];
}

/**
 * What the inbox shows around its list, in one batch: every view's count (five from the
 * organization's counter rows, kept exact by triggers; the other two counted on their index up to
 * COUNT_CAP + 1 rows), and the briefs and joined members its filters and assignments offer.
 */
export async function inboxSurroundings(ctx: ServiceContext, at: { memberId: string; now: number }): Promise<InboxSurroundings> {
  const organization = tenantFilter(ctx, vulns.organizationId);
  const capped = (...conditions: ReturnType<typeof and>[]) => {
    const rows = ctx.db
      .select({ one: sql`1` })
      .from(vulns)
      .where(and(organization, ...conditions))
      .limit(COUNT_CAP + 1)
      .as("capped");
    return ctx.db.select({ n: sql<number>`count(*)` }).from(rows);
  };
  const [buckets, due, mine, briefRows, memberRows] = (await batchOf(ctx.db, [
    ctx.db
      .select({ bucket: vulnCounts.bucket, count: vulnCounts.count })
      .from(vulnCounts)
      .where(and(eq(vulnCounts.organizationId, ctx.caller.organizationId!), inArray(vulnCounts.bucket, Object.values(BUCKETS)))),
    capped(lte(vulns.nextDueAsc, at.now + DUE_SOON_MS)),
    capped(eq(vulns.assigneeId, at.memberId), eq(vulns.processingState, "open")),
    ctx.db
      .select({ id: briefs.id, name: briefs.name })
      .from(briefs)
      .where(tenantFilter(ctx, briefs.organizationId))
      .orderBy(asc(briefs.createdAt), asc(briefs.id))
      .limit(PICK_LIMIT),
    ctx.db
      .select({ id: members.id, name: members.name, email: members.email })
      .from(members)
      .where(and(tenantFilter(ctx, members.organizationId), isNotNull(members.joinedAt)))
      .orderBy(asc(members.createdAt), asc(members.id))
      .limit(PICK_LIMIT),
  ])) as [{ bucket: string; count: number }[], { n: number }[], { n: number }[], InboxSurroundings["briefs"], InboxSurroundings["members"]];
  const counted = new Map(buckets.map((b) => [b.bucket, b.count]));
  const cappedCount = (n: number): ViewCount => ({ count: Math.min(n, COUNT_CAP), more: n > COUNT_CAP });
  const exact = (view: InboxView): ViewCount => ({ count: counted.get(BUCKETS[view]!) ?? 0, more: false });
  const counts = {
    new: exact("new"),
    needs_triage: exact("needs_triage"),
    awaiting_reporter: exact("awaiting_reporter"),
    due: cappedCount(due[0]?.n ?? 0),
    mine: cappedCount(mine[0]?.n ?? 0),
    open: exact("open"),
    closed: exact("closed"),
  };
  return { counts, briefs: briefRows, members: memberRows };
}
