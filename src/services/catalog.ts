import type { Catalog, CatalogName } from "../db/catalog";

/**
 * A write that makes names (a key's hash, a shortcode, a slug): in a sharded deployment they are claimed in
 * the catalog first, so no other shard can take them, and given back if the write fails. The catalog
 * never names a row its shard lacks for longer than the write: a claim left by a crash leads a lookup to
 * a shard where nothing answers to it.
 */
export async function withNames<T>(
  ctx: { catalog?: Catalog },
  { organizationId, names }: { organizationId: string; names: readonly CatalogName[] },
  write: () => Promise<T>,
): Promise<T> {
  if (!ctx.catalog) return write();
  const claimed = await ctx.catalog.claim(organizationId, names);
  try {
    return await write();
  } catch (err) {
    // Only what this write claimed: a name the organization held before stays its own.
    await ctx.catalog.release(claimed).catch(() => {});
    throw err;
  }
}
