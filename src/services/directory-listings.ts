import { actsForOrganization } from "../lib/caller";
import { and, count, eq, getTableColumns, sql } from "drizzle-orm";
import { directories, directoryListings, organizations, type DirectoryListingRow } from "../db/schema";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import { readersOf, assertOperatorMayChange, ownerClaimed, tenantFilter, type ServiceContext } from "./context";
import { isUniqueViolation, where, whenRefused, subquery } from "../db/queries";
import { listPage, type ListQuery } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { Conflict, Invalid, NotFound, relationship } from "../lib/domain-errors";
import { mayChange } from "./access";

// A directory listing: one organization in one directory. The operator makes and deletes it (also for an
// unclaimed organization); the organization's own key shows or hides it, and its first change marks it
// customized. Its items are in directory-listing-items.ts.

export const listingNotFound = () => new NotFound("directory_listing", "No directory listing has that id.");
const directoryFull = () =>
  Invalid.at(
    relationship("directory"),
    `The directory already lists ${LIMITS.listingsPerDirectory} organizations, as many as one may; delete a listing first.`,
  );

export type ListingRecord = DirectoryListingRow & { directorySlug: string };

const slugColumn = {
  directorySlug: subquery<string>`(select ${directories.slug} from ${directories} where ${directories.id} =
    ${directoryListings.directoryId})`,
};

export async function listListings(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { visible?: boolean }) {
  const filter = where(
    tenantFilter(ctx, directoryListings.organizationId),
    filters.visible === undefined ? undefined : eq(directoryListings.visible, filters.visible),
  );
  return listPage(readersOf(ctx), directoryListings, { filter, sort, page, extraColumns: slugColumn });
}

export function selectListing(ctx: ServiceContext, id: string) {
  return ctx.db
    .select({ ...getTableColumns(directoryListings), ...slugColumn })
    .from(directoryListings)
    .where(where(eq(directoryListings.id, id), tenantFilter(ctx, directoryListings.organizationId)));
}

/** The listing whose items a request changes: an operator's only while its organization is unclaimed. */
export async function itemsListing(ctx: ServiceContext, rows: (ListingRecord & { ownerClaimed: number | null })[]): Promise<ListingRecord> {
  if (!rows[0]) throw listingNotFound();
  const { ownerClaimed: claimed, ...listing } = rows[0];
  assertOperatorMayChange(ctx, claimed, "directory items");
  return listing;
}

export function selectItemsListing(ctx: ServiceContext, id: string) {
  return ctx.db
    .select({ ...getTableColumns(directoryListings), ...slugColumn, ownerClaimed: ownerClaimed(directoryListings.organizationId) })
    .from(directoryListings)
    .where(where(eq(directoryListings.id, id), tenantFilter(ctx, directoryListings.organizationId)));
}

export async function getListing(ctx: ServiceContext, id: string): Promise<ListingRecord> {
  const row = await selectListing(ctx, id).get();
  if (!row) throw listingNotFound();
  return row;
}

/** The operator lists an organization (claimed or not) in a directory; visible by default. */
export async function createListing(ctx: ServiceContext, directoryId: string, organizationId: string): Promise<ListingRecord> {
  mayChange(ctx, "settings");
  const [dirs, orgs, existing, listed] = await readBatch(ctx, [
    ctx.db.select({ slug: directories.slug }).from(directories).where(eq(directories.id, directoryId)),
    ctx.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)),
    ctx.db
      .select({ id: directoryListings.id })
      .from(directoryListings)
      .where(and(eq(directoryListings.directoryId, directoryId), eq(directoryListings.organizationId, organizationId))),
    ctx.db.select({ n: count() }).from(directoryListings).where(eq(directoryListings.directoryId, directoryId)),
  ]);
  const problems = [
    ...(dirs.length ? [] : [{ detail: "directory does not exist.", source: { member: relationship("directory") } }]),
    ...(orgs.length ? [] : [{ detail: "organization does not exist.", source: { member: relationship("organization") } }]),
  ];
  if (problems.length) throw new Invalid(problems);
  if (existing.length) throw Invalid.at(relationship("organization"), "The organization is already listed in this directory.");
  if ((listed[0]?.n ?? 0) >= LIMITS.listingsPerDirectory) throw directoryFull();
  const now = nowIso();
  const row: ListingRecord = {
    id: uuidv7(),
    directoryId,
    organizationId,
    visible: true,
    customized: false,
    createdAt: now,
    updatedAt: now,
    directorySlug: dirs[0]!.slug,
  };
  // The count is taken again inside the insert: a directory_id that comes out NULL when the directory
  // filled up since the read makes the database refuse it, so concurrent adds cannot pass the limit.
  const insert = ctx.db.insert(directoryListings).select(
    ctx.db
      .select({
        id: sql<string>`${row.id}`.as("id"),
        directoryId: sql<string>`CASE WHEN count(*) < ${LIMITS.listingsPerDirectory} THEN ${directoryId} END`.as("directory_id"),
        organizationId: sql<string>`${organizationId}`.as("organization_id"),
        visible: sql<number>`1`.as("visible"),
        customized: sql<number>`0`.as("customized"),
        createdAt: sql<string>`${now}`.as("created_at"),
        updatedAt: sql<string>`${now}`.as("updated_at"),
      })
      .from(directoryListings)
      .where(eq(directoryListings.directoryId, directoryId)),
  );
  // A sharded deployment holds the directory's limit in the catalog, which counts its listings in every shard.
  const place = { kind: "directory_listing" as const, name: `${directoryId}/${organizationId}` };
  const claim = ctx.catalog ? await ctx.catalog.claimListing(organizationId, directoryId, LIMITS.listingsPerDirectory) : "held";
  if (claim === "full") throw directoryFull();
  await whenRefused(
    () =>
      commit(
        ctx,
        new Plan(row)
          .add(insert)
          .evicts({ directories: [row.directorySlug] })
          .audits({ action: "directory_listing.create", target: { type: "directory_listing", id: row.id }, organizationId }),
        ctx.respond,
      ),
    async () => {
      const [again] = await readBatch(ctx, [
        ctx.db.select({ n: count() }).from(directoryListings).where(eq(directoryListings.directoryId, directoryId)),
      ]);
      if ((again[0]?.n ?? 0) >= LIMITS.listingsPerDirectory) throw directoryFull();
      throw new Conflict("The directory or the organization changed while this request ran; read them again and retry.");
    },
  ).catch(async (err) => {
    if (claim === "placed") await ctx.catalog?.release([place]);
    if (isUniqueViolation(err, "directory_listings."))
      throw Invalid.at(relationship("organization"), "The organization is already listed in this directory.");
    throw err;
  });
  return row;
}

/** The organization's own changes mark the listing customized. */
export function customizedBy(ctx: ServiceContext): Partial<DirectoryListingRow> {
  return actsForOrganization(ctx.caller) ? { customized: true } : {};
}

export async function updateListing(ctx: ServiceContext, id: string, input: { visible?: boolean }): Promise<ListingRecord> {
  mayChange(ctx, "settings");
  const existing = await getListing(ctx, id);
  if (input.visible === undefined || input.visible === existing.visible) return existing; // no change, nothing customized
  const changes: Partial<DirectoryListingRow> = { updatedAt: nowIso(), visible: input.visible, ...customizedBy(ctx) };
  const update = ctx.db
    .update(directoryListings)
    .set(changes)
    .where(and(eq(directoryListings.id, id), eq(directoryListings.organizationId, existing.organizationId)));
  const p = new Plan(null);
  const updated = p.track(update);
  p.audits(
    {
      action: "directory_listing.update",
      target: { type: "directory_listing", id },
      changed: ["visible"],
      organizationId: existing.organizationId,
    },
    { ifChanged: updated },
  );
  await commit(ctx, p.evicts({ directories: [existing.directorySlug] }));
  return { ...existing, ...changes };
}

export async function deleteListing(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "settings");
  const existing = await getListing(ctx, id);
  const remove = ctx.db.delete(directoryListings).where(eq(directoryListings.id, id));
  const p = new Plan(null);
  const removed = p.track(remove);
  p.audits(
    { action: "directory_listing.delete", target: { type: "directory_listing", id }, organizationId: existing.organizationId },
    { ifChanged: removed },
  );
  await commit(ctx, p.evicts({ directories: [existing.directorySlug] }));
  await ctx.catalog?.release([{ kind: "directory_listing", name: `${existing.directoryId}/${existing.organizationId}` }]);
}
