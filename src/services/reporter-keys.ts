import { and, desc, eq, isNotNull, ne, type SQL } from "drizzle-orm";
import { reporterKeyRecords, vulns, type TriageState } from "../db/schema";
import { batchOf } from "../db/queries";
import { type ServiceContext, tenantFilter } from "./context";
import type { KeyRecord } from "./vulns/types";

// A reporter key's record with the caller's organization: how many reports the key sent it and how
// they ended (kept by triggers on vulns, migration 0041), and its latest reports. Each organization
// sees only its own record of a key, so a reporter cannot be followed from one organization to another
// by the platform's answers. The queries are built here and run in their caller's batch (the report's
// console page reads them with everything else it shows).

/** The earlier reports of a key a triager sees at most: the newest, on the key's index. */
export const EARLIER_REPORTS = 20;

export interface EarlierReport {
  id: string;
  shortcode: string;
  title: string;
  triageState: TriageState;
  createdAt: string;
}

/** A thumbprint as a value, or as SQL (a subquery reading it from the report in view). */
type Thumbprint = string | SQL<string | null>;

/** The statement reading the key's record with the caller's organization (at most one row, by primary key). */
export function keyRecordQuery(ctx: ServiceContext, thumbprint: Thumbprint) {
  return ctx.db
    .select({
      reports: reporterKeyRecords.reports,
      valid: reporterKeyRecords.valid,
      spam: reporterKeyRecords.spam,
      not_applicable: reporterKeyRecords.notApplicable,
      duplicate: reporterKeyRecords.duplicate,
      firstAt: reporterKeyRecords.firstAt,
      lastAt: reporterKeyRecords.lastAt,
    })
    .from(reporterKeyRecords)
    .where(and(tenantFilter(ctx, reporterKeyRecords.organizationId), eq(reporterKeyRecords.thumbprint, thumbprint)));
}

/**
 * The statement reading the key's newest reports to the caller's organization, newest first, leaving
 * out `except` (the report in view): a seek on vulns_organization_reporter_key_idx, EARLIER_REPORTS rows at most.
 */
export function earlierReportsQuery(ctx: ServiceContext, thumbprint: Thumbprint, except?: string | SQL<string>) {
  return ctx.db
    .select({ id: vulns.id, shortcode: vulns.shortcode, title: vulns.title, triageState: vulns.triageState, createdAt: vulns.createdAt })
    .from(vulns)
    .where(
      and(
        tenantFilter(ctx, vulns.organizationId),
        // Said outright so the planner takes the partial index whatever the thumbprint's form.
        isNotNull(vulns.reporterKey),
        eq(vulns.reporterKey, thumbprint),
        except === undefined ? undefined : ne(vulns.id, except),
      ),
    )
    .orderBy(desc(vulns.createdAt), desc(vulns.id))
    .limit(EARLIER_REPORTS);
}

export type KeyRecordRow = KeyRecord & { firstAt: string; lastAt: string };

/** The key's record with the caller's organization; null when it sent the organization nothing. */
export async function keyRecordOf(ctx: ServiceContext, thumbprint: string): Promise<KeyRecordRow | null> {
  const [rows] = (await batchOf(ctx.db, [keyRecordQuery(ctx, thumbprint)])) as [KeyRecordRow[]];
  return rows[0] ?? null;
}

/** The key's newest reports to the caller's organization (at most EARLIER_REPORTS). */
export async function earlierReports(ctx: ServiceContext, thumbprint: string, except?: string): Promise<EarlierReport[]> {
  const [rows] = (await batchOf(ctx.db, [earlierReportsQuery(ctx, thumbprint, except)])) as [EarlierReport[]];
  return rows;
}
