import { and, desc, eq, isNotNull, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db";
import { type AdvisoryDocument, advisoryRevisions, briefs, organizations, policies, type PolicyRow } from "../db/schema";
import type { Stale } from "../lib/stale";
import { subquery } from "../db/queries";

// The files an organization publishes for machines, made from its published policy: security.txt at
// /o/{slug}/security.txt, and the same file at /.well-known/security.txt on a published policy's custom
// domain once its organization has proven control of it (custom-domains.ts). An organization with
// several published policies speaks through the one published last.

/** What security.txt is made from. */
export interface SecurityTxtSource {
  organization: { slug: string };
  policy: PolicyRow;
  /** The first of the policy's published briefs by name: where a report goes. */
  briefShortcode: string | null;
}

/**
 * The published policy an organization's files speak for, found by the organization's slug or by a
 * verified custom domain, with its organization and first brief: one round trip.
 */
export async function findSecurityTxtSource(
  db: Db,
  by: { slug: string } | { host: string },
  now: string,
): Promise<SecurityTxtSource | null> {
  const published = and(isNotNull(policies.publishedAt), lte(policies.publishedAt, now));
  const which =
    "slug" in by
      ? subquery`${policies.organizationId} = (SELECT id FROM organizations WHERE slug = ${by.slug})`
      : // One policy at most names a host (the unique index on its lower case, which this reads).
        and(sql`lower(${policies.customDomain}) = ${by.host.toLowerCase()}`, isNotNull(policies.customDomainVerifiedAt));
  const chosen = db
    .select({ id: policies.id })
    .from(policies)
    .where(and(which, published))
    .orderBy(desc(policies.publishedAt), desc(policies.id))
    .limit(1);
  const [policyRows, organizationRows, briefRows] = await db.batch([
    db.select().from(policies).where(sql`${policies.id} = (${chosen})`),
    db
      .select({ slug: organizations.slug })
      .from(organizations)
      .where(subquery`${organizations.id} = (SELECT organization_id FROM policies WHERE id = (${chosen}))`),
    db
      .select({ shortcode: briefs.shortcode })
      .from(briefs)
      .where(and(sql`${briefs.policyId} = (${chosen})`, isNotNull(briefs.publishedAt), lte(briefs.publishedAt, now)))
      .orderBy(briefs.name, briefs.shortcode)
      .limit(1),
  ]);
  const [policy, organization] = [policyRows[0], organizationRows[0]];
  if (!policy || !organization) return null;
  return { policy, organization, briefShortcode: briefRows[0]?.shortcode ?? null };
}

/** An organization's published and withdrawn advisories, each as its latest revision says it. */
export async function findOrganizationAdvisories(
  db: Db,
  slug: string,
): Promise<{ publisher: { name: string; slug: string; websiteUrl: string | null }; docs: AdvisoryDocument[] } | null> {
  const [orgs, revisions] = await db.batch([
    db
      .select({ name: organizations.name, slug: organizations.slug, websiteUrl: organizations.websiteUrl })
      .from(organizations)
      .where(eq(organizations.slug, slug)),
    db
      .select({ document: advisoryRevisions.document })
      .from(advisoryRevisions)
      .where(
        subquery`${advisoryRevisions.advisoryId} IN (SELECT id FROM advisories WHERE state <> 'draft' AND organization_id = (SELECT id FROM organizations WHERE slug = ${slug}))
          AND ${advisoryRevisions.number} = (SELECT max(r.number) FROM advisory_revisions r WHERE r.advisory_id = ${advisoryRevisions.advisoryId})`,
      )
      .limit(FEED_SIZE),
  ]);
  const publisher = orgs[0];
  return publisher ? { publisher, docs: revisions.map((r) => r.document) } : null;
}

/** Advisories the feeds list: all of an organization's, up to this many. */
export const FEED_SIZE = 1000;

/** A read, for a write's batch, of what the policies `condition` names make stale when they change. */
export function policyPublicKeys(db: Db, condition: SQL | undefined) {
  return db
    .select({
      shortcode: policies.shortcode,
      slug: subquery<string>`(SELECT slug FROM organizations WHERE organizations.id = ${policies.organizationId})`,
      customDomain: policies.customDomain,
    })
    .from(policies)
    .where(condition);
}

export type PolicyPublicKeys = { shortcode: string; slug: string; customDomain: string | null };

/**
 * What a change of these policies made stale: their pages, their organizations' files, and the files on
 * their custom domains (`hosts` adds domains the change took away).
 */
export function staleOfPolicies(rows: readonly PolicyPublicKeys[], hosts: readonly (string | null | undefined)[] = []): Stale {
  const unique = (values: readonly (string | null | undefined)[]) => [...new Set(values.filter((v): v is string => !!v))];
  return {
    policies: unique(rows.map((r) => r.shortcode)),
    organizations: unique(rows.map((r) => r.slug)),
    hosts: unique([...rows.map((r) => r.customDomain), ...hosts]),
  };
}
