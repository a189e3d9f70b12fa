import { and, asc, count, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { briefs, directoryListingItems, directoryListings, policies, type DirectoryListingItemRow, type ListableType } from "../db/schema";
import type { Page } from "../db/pagination";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import { isPublished } from "../lib/maturity";
import type { ServiceContext } from "./context";
import { batchOf, isUniqueViolation, whenRefused, subquery } from "../db/queries";
import { pageStatements, type Ordering } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { Conflict, NotFound, Unprocessable, attribute, resource } from "../lib/domain-errors";

import { customizedBy, itemsListing, listingNotFound, selectItemsListing, selectListing } from "./directory-listings";
import { mayChange } from "./access";

// The items of a directory listing: the published policies and briefs an organization shows in a
// directory, in the order it chooses (positions 1..n, closed up on delete, rewritten whole on reorder).

export type ItemRecord = DirectoryListingItemRow & { listableName: string | null };

const listableName = subquery<string | null>`(CASE ${directoryListingItems.listableType}
  WHEN 'Policy' THEN (SELECT name FROM policies WHERE policies.id = ${directoryListingItems.listableId})
  ELSE (SELECT name FROM briefs WHERE briefs.id = ${directoryListingItems.listableId}) END)`;

function selectItems(ctx: ServiceContext, listingId: string) {
  return ctx.db
    .select({ ...getTableColumns(directoryListingItems), listableName })
    .from(directoryListingItems)
    .where(eq(directoryListingItems.listingId, listingId))
    .orderBy(asc(directoryListingItems.position));
}

/**
 * Positions 1..n in their current order for the listings `which` selects, in one statement (after a
 * delete closes a gap). Each item counts the items of its own listing at or before it.
 */
export function compactPositions(db: Db, which: SQL) {
  return db
    .update(directoryListingItems)
    .set({
      position: subquery`(SELECT count(*) FROM directory_listing_items i2 WHERE i2.listing_id = ${directoryListingItems.listingId} AND
        (i2.position < ${directoryListingItems.position} OR (i2.position = ${directoryListingItems.position} AND i2.id <=
        ${directoryListingItems.id})))`,
    })
    .where(which);
}

const ITEM_ORDER: Ordering = {
  name: "position",
  column: directoryListingItems.position,
  field: "position",
  id: directoryListingItems.id,
  descending: false,
};

export async function listItems(ctx: ServiceContext, listingId: string, page: Page) {
  const ofListing = eq(directoryListingItems.listingId, listingId);
  const list = pageStatements<ItemRecord>({
    ordering: ITEM_ORDER,
    page,
    rows: ({ seek, order, limit, offset }) =>
      ctx.db
        .select({ ...getTableColumns(directoryListingItems), listableName })
        .from(directoryListingItems)
        .where(and(ofListing, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => ctx.db.select({ id: directoryListingItems.id }).from(directoryListingItems).where(and(ofListing, at)).limit(1),
    total: ctx.db.select({ total: count() }).from(directoryListingItems).where(ofListing),
  });
  const [listing, ...results] = await batchOf(ctx.db, [selectListing(ctx, listingId), ...list.statements]);
  if (!(listing as unknown[])[0]) throw listingNotFound();
  return list.read(results);
}

/**
 * Adds a Policy or Brief at the end. It must be the listing's organization's, published, and not
 * listed already (422 Unprocessable entity). The position is computed inside the insert, so two
 * concurrent adds still get distinct places.
 */
export async function addItem(ctx: ServiceContext, listingId: string, { type, id: listableId }: { type: ListableType; id: string }) {
  mayChange(ctx, "settings");
  const { listing, listable, last } = await readForItem(ctx, listingId, { type, id: listableId });
  const now = nowIso();
  const id = uuidv7();
  // The listable is named by a subquery that is NULL unless it is, when the batch runs, still the
  // organization's and published: a delete or unpublish since the read makes the insert fail (and
  // the whole batch with it), so no item can outlive its listable.
  const listed = subquery<string>`(SELECT id FROM ${sql.raw(type === "Policy" ? "policies" : "briefs")} WHERE id = ${listableId}
    AND organization_id = ${listing.organizationId} AND published_at IS NOT NULL AND published_at <= ${now})`;
  // Positions are 1..n, so the new one is n + 1 (the insert computes it again, atomically).
  const p = new Plan<ItemRecord>({
    id,
    listingId,
    listableType: type,
    listableId,
    position: (last[0]?.n ?? 0) + 1,
    createdAt: now,
    updatedAt: now,
    listableName: listable.name,
  });
  p.add(
    ctx.db.insert(directoryListingItems).select(
      ctx.db
        .select({
          id: sql<string>`${id}`.as("id"),
          // NULL, and so refused, when the listing filled up since the read (see createListing).
          listingId: sql<string>`CASE WHEN count(*) < ${LIMITS.itemsPerListing} THEN ${listingId} END`.as("listing_id"),
          listableType: sql<string>`${type}`.as("listable_type"),
          listableId: sql<string>`${listed}`.as("listable_id"),
          position: sql<number>`coalesce(max(${directoryListingItems.position}), 0) + 1`.as("position"),
          createdAt: sql<string>`${now}`.as("created_at"),
          updatedAt: sql<string>`${now}`.as("updated_at"),
        })
        .from(directoryListingItems)
        .where(eq(directoryListingItems.listingId, listingId)),
    ),
  );
  p.add(
    ctx.db
      .update(directoryListings)
      .set({ updatedAt: now, ...customizedBy(ctx) })
      .where(eq(directoryListings.id, listingId)),
  );
  p.evicts({ directories: [listing.directorySlug] });
  p.audits({
    action: "directory_listing_item.create",
    target: { type: "directory_listing_item", id },
    organizationId: listing.organizationId,
  });
  await whenRefused(
    () => commit(ctx, p, ctx.respond),
    async () => {
      await readForItem(ctx, listingId, { type, id: listableId });
      throw new Conflict("The listing changed while this request ran; read it again and retry.");
    },
  ).catch((err) => {
    if (isUniqueViolation(err, "directory_listing_items."))
      throw new Unprocessable({ detail: `${type} is already in this listing.`, source: ITEM_POINTER });
    throw err;
  });
  return p.record;
}

const ITEM_POINTER = { member: attribute("listable_id") };

/** What adding an item checks, in one round trip: the listing, the listable, a duplicate, the count. */
async function readForItem(ctx: ServiceContext, listingId: string, { type, id: listableId }: { type: ListableType; id: string }) {
  const table = type === "Policy" ? policies : briefs;
  const [listings, listables, dupes, last] = await readBatch(ctx, [
    selectItemsListing(ctx, listingId),
    ctx.db
      .select({ organizationId: table.organizationId, publishedAt: table.publishedAt, name: table.name })
      .from(table)
      .where(eq(table.id, listableId)),
    ctx.db
      .select({ id: directoryListingItems.id })
      .from(directoryListingItems)
      .where(
        and(
          eq(directoryListingItems.listingId, listingId),
          eq(directoryListingItems.listableType, type),
          eq(directoryListingItems.listableId, listableId),
        ),
      ),
    ctx.db.select({ n: count() }).from(directoryListingItems).where(eq(directoryListingItems.listingId, listingId)),
  ]);
  const listing = await itemsListing(ctx, listings);
  const listable = listables[0];
  const unprocessable = (detail: string) => new Unprocessable({ detail, source: ITEM_POINTER });
  if (!listable || listable.organizationId !== listing.organizationId) throw unprocessable(`${type} does not exist in this organization.`);
  if (!isPublished(listable.publishedAt, nowIso())) throw unprocessable(`${type} is not published.`);
  if (dupes.length) throw unprocessable(`${type} is already in this listing.`);
  if ((last[0]?.n ?? 0) >= LIMITS.itemsPerListing)
    throw unprocessable(`This listing already shows ${LIMITS.itemsPerListing} items, as many as one may; delete one first.`);
  return { listing, listable, last };
}

/** Deletes an item (a missing one is a 404 that writes nothing); the positions after it close up. */
export async function deleteItem(ctx: ServiceContext, listingId: string, itemId: string): Promise<void> {
  mayChange(ctx, "settings");
  const [listings, items] = await readBatch(ctx, [
    selectItemsListing(ctx, listingId),
    ctx.db
      .select({ id: directoryListingItems.id })
      .from(directoryListingItems)
      .where(and(eq(directoryListingItems.id, itemId), eq(directoryListingItems.listingId, listingId))),
  ]);
  const listing = await itemsListing(ctx, listings);
  if (!items[0]) throw new NotFound("directory_listing_item", "No item of this listing has that id.");
  const p = new Plan(null);
  const deleted = p.track(
    ctx.db.delete(directoryListingItems).where(and(eq(directoryListingItems.id, itemId), eq(directoryListingItems.listingId, listingId))),
  );
  p.audits(
    {
      action: "directory_listing_item.delete",
      target: { type: "directory_listing_item", id: itemId },
      organizationId: listing.organizationId,
    },
    { ifChanged: deleted },
  );
  p.add(compactPositions(ctx.db, eq(directoryListingItems.listingId, listingId))).add(
    ctx.db
      .update(directoryListings)
      .set({ updatedAt: nowIso(), ...customizedBy(ctx) })
      .where(eq(directoryListings.id, listingId)),
  );
  await commit(ctx, p.evicts({ directories: [listing.directorySlug] }));
}

/**
 * Puts the items in the given order: every item of the listing exactly once (else 422). One UPDATE
 * writes positions 1..n, guarded by the item count it validated against, so a concurrent add or
 * delete makes this a 409 rather than a mixed order; two reorders racing each leave 1..n.
 */
export async function reorderItems(ctx: ServiceContext, listingId: string, ids: string[]) {
  mayChange(ctx, "settings");
  const [listings, items] = await readBatch(ctx, [selectItemsListing(ctx, listingId), selectItems(ctx, listingId)]);
  const listing = await itemsListing(ctx, listings);
  const known = new Set(items.map((i) => i.id));
  const seen = new Set<string>();
  const problems = ids.flatMap((id, i) => {
    const problem = !known.has(id) ? "is not an item of this listing." : seen.has(id) ? "is named twice." : null;
    seen.add(id);
    return problem ? [{ detail: `data/${i}/id ${problem}`, source: { member: resource({ id: true, item: i }) } }] : [];
  });
  if (problems.length) throw new Unprocessable(problems);
  if (seen.size !== known.size) {
    throw new Unprocessable({
      detail: `Name every item of the listing exactly once (${known.size} items, ${seen.size} named).`,
      source: { member: resource() },
    });
  }
  const now = nowIso();
  const order = JSON.stringify(ids);
  // The guard: the listing still holds exactly the items validated (the same count, none outside
  // the order). Otherwise nothing is written, the listing included, and the answer is a 409.
  const same = subquery`(SELECT count(*) FROM directory_listing_items i2 WHERE i2.listing_id = ${listingId}) = ${ids.length}
    AND NOT EXISTS (SELECT 1 FROM directory_listing_items i3 WHERE i3.listing_id = ${listingId} AND i3.id NOT IN (SELECT value FROM json_each(${order})))`;
  const p = new Plan(null);
  const positions = p.track<D1Result>(
    ctx.db
      .update(directoryListingItems)
      .set({ position: subquery`(SELECT key + 1 FROM json_each(${order}) WHERE value = ${directoryListingItems.id})`, updatedAt: now })
      .where(and(eq(directoryListingItems.listingId, listingId), same)),
  );
  p.audits(
    {
      action: "directory_listing_item.reorder",
      target: { type: "directory_listing", id: listingId },
      changed: ["position"],
      organizationId: listing.organizationId,
    },
    { ifChanged: positions },
  );
  p.add(
    ctx.db
      .update(directoryListings)
      .set({ updatedAt: now, ...customizedBy(ctx) })
      .where(and(eq(directoryListings.id, listingId), same)),
  );
  const { results } = await commit(ctx, p.evicts({ directories: [listing.directorySlug] }));
  if (positions.of(results).meta.changes === 0 && ids.length > 0)
    throw new Conflict("The listing's items changed while this request ran; read them again and retry.");
  const byId = new Map(items.map((i) => [i.id, i]));
  return ids.map((id, i) => ({ ...byId.get(id)!, position: i + 1, updatedAt: now })) as ItemRecord[];
}
