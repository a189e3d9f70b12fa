import { and, eq, getTableColumns, isNotNull, lte } from "drizzle-orm";
import type { Db } from "../db";
import { briefs, organizations, policies, type BriefRow, type OrganizationRow, type PolicyRow } from "../db/schema";
import { isPublished } from "../lib/maturity";

export interface PublishedBrief {
  brief: BriefRow;
  organization: OrganizationRow;
  /** The brief's policy, only while it is published itself. */
  policy: PolicyRow | null;
}

/** One query: the brief if it is published now, with its organization and its policy. No key, no tenant. */
export async function findPublishedBrief(db: Db, shortcode: string, now: string): Promise<PublishedBrief | null> {
  const row = await db
    .select({ brief: getTableColumns(briefs), organization: getTableColumns(organizations), policy: getTableColumns(policies) })
    .from(briefs)
    .innerJoin(organizations, eq(organizations.id, briefs.organizationId))
    .leftJoin(policies, eq(policies.id, briefs.policyId))
    .where(and(eq(briefs.shortcode, shortcode), isNotNull(briefs.publishedAt), lte(briefs.publishedAt, now)))
    .get();
  if (!row) return null;
  const policy = row.policy && isPublished(row.policy.publishedAt, now) ? row.policy : null;
  return { brief: row.brief, organization: row.organization, policy };
}
