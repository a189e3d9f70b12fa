import { eq } from "drizzle-orm";
import { directories, type DirectoryRow } from "../db/schema";
import { nowIso, uuidv7 } from "../lib/ids";
import type { ServiceContext } from "./context";
import { isUniqueViolation } from "../db/queries";
import { listPage, type ListQuery } from "./list-pages";
import { commit, NEW_RECORD, Plan } from "./unit-of-work";
import { sentMembers } from "./audit";
import { Invalid, NotFound, attribute } from "../lib/domain-errors";
import { mayChange } from "./access";

export interface DirectoryInput {
  name?: string;
  slug?: string;
  description?: string | null;
  min_maturity_rating?: number;
}

const directoryNotFound = () => new NotFound("directory", "No directory has that id.");

function slugGuard<T>(write: () => Promise<T>): Promise<T> {
  return write().catch((err) => {
    if (isUniqueViolation(err, "directories.slug")) throw Invalid.at(attribute("slug"), "slug is already taken by another directory.");
    throw err;
  });
}

// ---- Directories (operator curates; every key may read) ----------------------------------------

export function listDirectories(ctx: ServiceContext, { page, sort }: ListQuery) {
  return listPage([ctx.db], directories, { filter: undefined, sort, page });
}

export async function getDirectory(ctx: ServiceContext, id: string): Promise<DirectoryRow> {
  const row = await ctx.db.select().from(directories).where(eq(directories.id, id)).get();
  if (!row) throw directoryNotFound();
  return row;
}

export async function createDirectory(ctx: ServiceContext, input: DirectoryInput & { name: string; slug: string }): Promise<DirectoryRow> {
  mayChange(ctx, "settings");
  const now = nowIso();
  const row: DirectoryRow = {
    id: uuidv7(),
    name: input.name,
    slug: input.slug,
    description: input.description ?? null,
    minMaturityRating: input.min_maturity_rating ?? 0,
    createdAt: now,
    updatedAt: now,
  };
  const p = new Plan(row)
    .add(ctx.db.insert(directories).values(row))
    .evicts(NEW_RECORD)
    .audits({ action: "directory.create", target: { type: "directory", id: row.id }, organizationId: null });
  await slugGuard(() => commit(ctx, p, ctx.respond));
  await ctx.catalog?.inEveryShard((db) => db.insert(directories).values(row).onConflictDoNothing());
  return row;
}

/** Its public read is evicted (the old slug's too, if it moved). */
export async function updateDirectory(ctx: ServiceContext, id: string, input: DirectoryInput) {
  mayChange(ctx, "settings");
  const existing = await getDirectory(ctx, id);
  const changes: Partial<DirectoryRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.description !== undefined) changes.description = input.description;
  if (input.min_maturity_rating !== undefined) changes.minMaturityRating = input.min_maturity_rating;
  const row = { ...existing, ...changes };
  const p = new Plan(row)
    .add(ctx.db.update(directories).set(changes).where(eq(directories.id, id)))
    .audits({ action: "directory.update", target: { type: "directory", id }, changed: sentMembers(input), organizationId: null });
  await slugGuard(() => commit(ctx, p.evicts({ directories: [...new Set([existing.slug, row.slug])] })));
  // A sharded deployment keeps a copy in every shard, beside the listings that name it (the cron repairs a missed one).
  await ctx.catalog?.inEveryShard((db) => db.update(directories).set(changes).where(eq(directories.id, id)));
  return row;
}
