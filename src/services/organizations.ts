import type { Db } from "../db";
import { eq } from "drizzle-orm";
import { briefs, organizations, type OrganizationRow } from "../db/schema";
import { nowIso, uuidv7 } from "../lib/ids";
import { tenantFilter, type ServiceContext } from "./context";
import { isUniqueViolation, where } from "../db/queries";
import { listPage, type ListQuery } from "./list-pages";
import { commit, NEW_RECORD, Plan } from "./unit-of-work";
import { sentMembers } from "./audit";
import { directorySlugsOf } from "./public-directories";
import { Invalid, NotFound, attribute } from "../lib/domain-errors";
import { publishNotifications, shardQueue } from "../lib/queue";
import { withNames } from "./catalog";
import { firstOwner } from "./members";
import { mayChange } from "./access";

export interface OrganizationInput {
  name?: string;
  slug?: string;
  website_url?: string | null;
  claimed?: boolean;
}

export function listOrganizations(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { claimed?: boolean }) {
  const filter = where(
    tenantFilter(ctx, organizations.id),
    filters.claimed === undefined ? undefined : eq(organizations.claimed, filters.claimed),
  );
  return listPage([ctx.db], organizations, { filter, sort, page });
}

export async function getOrganization(ctx: ServiceContext, id: string): Promise<OrganizationRow> {
  const row = await ctx.db
    .select()
    .from(organizations)
    .where(where(eq(organizations.id, id), tenantFilter(ctx, organizations.id)))
    .get();
  if (!row) throw new NotFound("organization", "No organization has that id.");
  return row;
}

/** Makes an organization; with `owner_email`, its first owner (a member, invited) in the same batch. */
export async function createOrganization(
  ctx: ServiceContext,
  input: OrganizationInput & { name: string; slug: string; owner_email?: string },
): Promise<OrganizationRow> {
  mayChange(ctx, "settings");
  const now = nowIso();
  const id = uuidv7();
  const row: OrganizationRow = {
    id,
    name: input.name,
    slug: input.slug,
    websiteUrl: input.website_url ?? null,
    claimed: input.claimed ?? true,
    createdAt: now,
    updatedAt: now,
  };
  // A sharded deployment claims the slug across shards, then writes the organization where there is most room.
  return slugGuard(() =>
    withNames(ctx, { organizationId: id, names: [{ kind: "organization_slug", name: input.slug }] }, async () => {
      if (!ctx.catalog) return insertOrganization(ctx, row, input.owner_email);
      try {
        return await insertOrganization(onShard(ctx, await ctx.catalog.place(row)), row, input.owner_email);
      } catch (err) {
        // A batch that failed after it committed (its answer lost) made the organization all the same.
        if (await ctx.catalog.placedAfterAll(row.id)) return row;
        throw err;
      }
    }),
  );
}

async function insertOrganization(ctx: ServiceContext, row: OrganizationRow, ownerEmail: string | undefined): Promise<OrganizationRow> {
  const p = new Plan(row)
    .add(ctx.db.insert(organizations).values(row))
    .evicts(NEW_RECORD)
    .audits({ action: "organization.create", target: { type: "organization", id: row.id }, organizationId: row.id });
  const owner = ownerEmail === undefined ? null : firstOwner(ctx, row, ownerEmail);
  if (owner) for (const statement of owner.statements) p.add(statement);
  if (owner) p.audits(owner.audit);
  // Its first owner's invitation link names the member: a sharded deployment's catalog finds its shard by it.
  await slugGuard(() => withNames(ctx, { organizationId: row.id, names: owner?.names ?? [] }, () => commit(ctx, p, ctx.respond)));
  if (owner) ctx.defer(publishNotifications(ctx.queue, [owner.invitation.id]));
  return row;
}

/**
 * Updates an organization. Its public brief pages and the directories that list it show its name, so
 * the same batch reads which, and their public reads are evicted.
 */
export async function updateOrganization(ctx: ServiceContext, id: string, input: OrganizationInput) {
  mayChange(ctx, "settings");
  const p = new Plan(null);
  // Its files are kept under its slug: the old one's go too.
  const before = p.track<{ slug: string }[]>(
    ctx.db.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.id, id)),
  );
  const rows = p.track<OrganizationRow[]>(
    ctx.db
      .update(organizations)
      .set({
        ...(input.name !== undefined && { name: input.name }),
        ...(input.slug !== undefined && { slug: input.slug }),
        ...(input.website_url !== undefined && { websiteUrl: input.website_url }),
        ...(input.claimed !== undefined && { claimed: input.claimed }),
        updatedAt: nowIso(),
      })
      .where(eq(organizations.id, id))
      .returning(),
  );
  p.audits(
    { action: "organization.update", target: { type: "organization", id }, changed: sentMembers(input), organizationId: id },
    { ifChanged: rows },
  );
  const shortcodes = p.track<{ shortcode: string }[]>(
    ctx.db.select({ shortcode: briefs.shortcode }).from(briefs).where(eq(briefs.organizationId, id)),
  );
  const slugs = p.track<{ slug: string }[]>(directorySlugsOf(ctx.db, id));
  p.evicts((r) => ({
    briefs: shortcodes.of(r).map((b) => b.shortcode),
    directories: slugs.of(r).map((d) => d.slug),
    organizations: [...new Set([...rows.of(r), ...before.of(r)].map((o) => o.slug))],
  }));
  const claimed = input.slug === undefined ? [] : [{ kind: "organization_slug" as const, name: input.slug }];
  const { results } = await slugGuard(() => withNames(ctx, { organizationId: id, names: claimed }, () => commit(ctx, p)));
  const row = rows.of(results)[0];
  if (!row) throw new NotFound("organization", "No organization has that id.");
  const old = before.of(results)[0]?.slug;
  if (ctx.catalog && old && old !== row.slug) await ctx.catalog.release([{ kind: "organization_slug", name: old }]);
  await ctx.catalog?.copy(row);
  return row;
}

async function slugGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "organizations.slug")) throw Invalid.at(attribute("slug"), "slug is already taken by another organization.");
    throw err;
  }
}

/** The context of work on a new organization's shard: its writes and the messages they send go there. */
function onShard(ctx: ServiceContext, { shard, db }: { shard: string; db: Db }): ServiceContext {
  return { ...ctx, db, queue: shardQueue(ctx.queue, () => shard) };
}
