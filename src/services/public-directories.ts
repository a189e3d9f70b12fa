import { and, asc, eq, inArray, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import {
  briefs,
  directories,
  directoryListingItems,
  directoryListings,
  organizations,
  policies,
  type BriefRow,
  type DirectoryRow,
  type OrganizationRow,
  type PolicyRow,
} from "../db/schema";
import { maturityRating } from "../lib/maturity";
import { compactPositions } from "./directory-listing-items";
import { responsivenessFrom, responsivenessStatements, type Responsiveness } from "./metrics";
import { subquery } from "../db/queries";

export interface PublicDirectoryEntry {
  organization: OrganizationRow;
  rating: number;
  items: ({ type: "Policy"; row: PolicyRow; responsiveness: Responsiveness | null } | { type: "Brief"; row: BriefRow })[];
}

/**
 * One batch (no joins: D1 batch rows are keyed by column name): the directory, its visible listings'
 * organizations, their published policies (for the rating), the listings' items, and the published
 * briefs they show, and the responsiveness of the policies they show. Organizations rate as their best published policy; those under
 * the directory's
 * minimum are left out; the rest come best first.
 */
export async function findPublicDirectory(
  db: Db,
  slug: string,
  now: string,
): Promise<{ directory: DirectoryRow; entries: PublicDirectoryEntry[] } | null> {
  const directoryId = subquery`(SELECT id FROM directories WHERE slug = ${slug})`;
  const listed = subquery`(SELECT organization_id FROM directory_listings WHERE directory_id = ${directoryId} AND visible = 1)`;
  const shownPolicies = subquery`(SELECT listable_id FROM directory_listing_items WHERE listable_type = 'Policy' AND listing_id IN
    (SELECT id FROM directory_listings WHERE directory_id = ${directoryId} AND visible = 1))`;
  const [dirs, listings, orgs, pols, items, brs, counts, medians] = await db.batch([
    db.select().from(directories).where(eq(directories.slug, slug)),
    db
      .select()
      .from(directoryListings)
      .where(and(sql`${directoryListings.directoryId} = ${directoryId}`, eq(directoryListings.visible, true))),
    db.select().from(organizations).where(sql`${organizations.id} IN ${listed}`),
    db
      .select()
      .from(policies)
      .where(and(sql`${policies.organizationId} IN ${listed}`, isNotNull(policies.publishedAt), lte(policies.publishedAt, now))),
    db
      .select()
      .from(directoryListingItems)
      .where(
        subquery`${directoryListingItems.listingId} IN (SELECT id FROM directory_listings WHERE directory_id = ${directoryId} AND
          visible = 1)`,
      )
      .orderBy(asc(directoryListingItems.position)),
    db
      .select()
      .from(briefs)
      .where(
        and(
          subquery`${briefs.id} IN (SELECT listable_id FROM directory_listing_items WHERE listable_type = 'Brief' AND listing_id IN
            (SELECT id FROM directory_listings WHERE directory_id = ${directoryId} AND visible = 1))`,
          isNotNull(briefs.publishedAt),
          lte(briefs.publishedAt, now),
        ),
      ),
    ...responsivenessStatements(db, shownPolicies, new Date(now)),
  ]);
  const responsiveness = responsivenessFrom({ counts, medians });
  const directory = dirs[0];
  if (!directory) return null;
  const policyById = new Map(pols.map((p) => [p.id, p]));
  const briefById = new Map(brs.map((b) => [b.id, b]));
  const orgById = new Map(orgs.map((o) => [o.id, o]));
  const entries: PublicDirectoryEntry[] = [];
  for (const listing of listings) {
    const organization = orgById.get(listing.organizationId);
    if (!organization) continue;
    const rating = Math.max(0, ...pols.filter((p) => p.organizationId === organization.id).map((p) => maturityRating(p, now)));
    if (rating < directory.minMaturityRating) continue;
    const shown = items
      .filter((i) => i.listingId === listing.id)
      .flatMap((i): PublicDirectoryEntry["items"] => {
        // Only what is published (and still the organization's) is shown.
        const policy = i.listableType === "Policy" ? policyById.get(i.listableId) : undefined;
        const brief = i.listableType === "Brief" ? briefById.get(i.listableId) : undefined;
        if (policy && policy.organizationId === organization.id) {
          return [{ type: "Policy", row: policy, responsiveness: responsiveness.get(policy.id) ?? null }];
        }
        if (brief && brief.organizationId === organization.id) return [{ type: "Brief", row: brief }];
        return [];
      });
    entries.push({ organization, rating, items: shown });
  }
  entries.sort(byRank);
  return { directory, entries };
}

/**
 * A public directory read in every database that may hold its listings (a sharded deployment's shards, each
 * with its copy of the directory), in parallel: entries joined and ranked as one.
 */
export async function findPublicDirectoryIn(dbs: readonly Db[], slug: string, now: string) {
  if (dbs.length === 1) return findPublicDirectory(dbs[0]!, slug, now);
  const found = (await Promise.all(dbs.map((db) => findPublicDirectory(db, slug, now)))).filter((f) => f !== null);
  if (!found.length) return null;
  const entries = found.flatMap((f) => f.entries);
  entries.sort(byRank);
  return { directory: found[0]!.directory, entries };
}

const byRank = (a: PublicDirectoryEntry, b: PublicDirectoryEntry) =>
  b.rating - a.rating || a.organization.name.localeCompare(b.organization.name);

/** The slugs of the directories that list an organization: their public pages show its data. */
export function directorySlugsOf(db: Db, organizationId: string) {
  return db
    .select({ slug: directories.slug })
    .from(directories)
    .where(
      inArray(
        directories.id,
        db
          .select({ id: directoryListings.directoryId })
          .from(directoryListings)
          .where(eq(directoryListings.organizationId, organizationId)),
      ),
    );
}

/** Removes a deleted policy or brief from every listing of its organization, and closes the gaps. */
export function unlistStatements(
  db: Db,
  { type, id, organizationId }: { type: "Policy" | "Brief"; id: string; organizationId: string },
  onlyIf?: SQL,
) {
  return [
    db
      .delete(directoryListingItems)
      .where(and(eq(directoryListingItems.listableType, type), eq(directoryListingItems.listableId, id), onlyIf)),
    compactPositions(
      db,
      subquery`${directoryListingItems.listingId} IN (SELECT id FROM directory_listings WHERE organization_id = ${organizationId})`,
    ),
  ] as const;
}

/** The directories a person may browse, by name (every directory is public), at most `limit`. */
export function listPublicDirectories(db: Db, limit = 50) {
  return db
    .select({ name: directories.name, slug: directories.slug, description: directories.description })
    .from(directories)
    .orderBy(directories.name)
    .limit(limit);
}
