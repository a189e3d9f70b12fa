import { and, desc, eq, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../db";
import { organizations, policies, type Severity, vulns } from "../db/schema";
import { subquery } from "../db/queries";

// A policy's hall of fame: the reporters who chose to be credited, for the reports its organization
// resolved or published an advisory about (a withdrawn one credits nobody); newest first, with the month of the report and its
// severity and nothing else about it.

/** Entries a hall of fame shows (the newest). */
export const HALL_OF_FAME_SIZE = 200;

export interface HallOfFame {
  policy: { shortcode: string; name: string | null };
  organization: { name: string; slug: string };
  entries: { name: string; month: string; severity: Severity | null }[];
}

/** The hall of fame of a published policy that promises one; null otherwise. One round trip. */
export async function findHallOfFame(db: Db, shortcode: string, now: string): Promise<HallOfFame | null> {
  const organizationOf = subquery`(SELECT organization_id FROM policies WHERE shortcode = ${shortcode})`;
  const [found, entries] = await db.batch([
    db
      // Aliased: D1 batch rows are keyed by column name, and both tables call theirs "name".
      .select({
        shortcode: policies.shortcode,
        name: sql<string | null>`${policies.name}`.as("policy_name"),
        organizationName: sql<string>`${organizations.name}`.as("organization_name"),
        slug: organizations.slug,
      })
      .from(policies)
      .innerJoin(organizations, eq(organizations.id, policies.organizationId))
      .where(
        and(
          eq(policies.shortcode, shortcode),
          eq(policies.hallOfFame, true),
          isNotNull(policies.publishedAt),
          lte(policies.publishedAt, now),
        ),
      ),
    db
      .select({ name: sql<string>`${vulns.creditName}`, month: sql<string>`substr(${vulns.createdAt}, 1, 7)`, severity: vulns.severity })
      .from(vulns)
      .where(
        and(
          sql`${vulns.organizationId} = ${organizationOf}`,
          eq(vulns.creditConsent, true),
          isNotNull(vulns.creditName),
          subquery`(${vulns.triageState} = 'resolved' OR EXISTS (SELECT 1 FROM advisory_vulns av JOIN advisories a ON a.id = av.advisory_id
            WHERE av.vuln_id = ${vulns.id} AND a.state = 'published'))`,
        ),
      )
      .orderBy(desc(vulns.createdAt), desc(vulns.id))
      .limit(HALL_OF_FAME_SIZE),
  ]);
  const policy = found[0];
  if (!policy) return null;
  return {
    policy: { shortcode: policy.shortcode, name: policy.name },
    organization: { name: policy.organizationName, slug: policy.slug },
    entries,
  };
}
