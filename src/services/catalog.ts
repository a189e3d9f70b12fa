import type { Catalog, CatalogName } from "../db/catalog";
import type { IdempotencyUnit } from "../lib/idempotency-key";

/** Names an organization claims for one write. */
export interface Claim {
  organizationId: string;
  names: readonly CatalogName[];
}

/**
 * A write that makes names (a key's hash, a shortcode, a slug): in a sharded deployment they are claimed in
 * the catalog first, so no other shard can take them, and given back if the write fails. The catalog
 * never names a row its shard lacks for longer than the write: a claim left by a crash leads a lookup to
 * a shard where nothing answers to it. A write may make names of several organizations (sign-in links
 * for each of a person's memberships): one claim each.
 */
export async function withNames<T>(
  ctx: { catalog?: Catalog; idempotency?: IdempotencyUnit },
  claims: Claim | readonly Claim[],
  write: () => Promise<T>,
): Promise<T> {
  const catalog = ctx.catalog;
  if (!catalog) return write();
  // A replay is answered before anything is claimed: its first request holds the names (a new
  // organization's slug, which the replay's new id would find taken), and a claim would only be given back.
  const unit = ctx.idempotency;
  if (unit && !unit.reserved) await unit.reserve();
  const all = Array.isArray(claims) ? (claims as readonly Claim[]) : [claims as Claim];
  const claimed: CatalogName[] = [];
  try {
    for (const { organizationId, names } of all) claimed.push(...(await catalog.claim(organizationId, names)));
    return await write();
  } catch (err) {
    // Only what this write claimed: a name the organization held before stays its own.
    await catalog.release(claimed).catch(() => {});
    throw err;
  }
}

/** The names the services claim for the console and the e-mails' links, by what they name (ids, SHA-256s as stored). */
export const named = {
  member: (id: string): CatalogName => ({ kind: "member", name: id }),
  contact: (id: string): CatalogName => ({ kind: "contact", name: id }),
  session: (tokenHash: string): CatalogName => ({ kind: "session", name: tokenHash }),
  signInLink: (tokenHash: string): CatalogName => ({ kind: "sign_in_link", name: tokenHash }),
  passkey: (id: string): CatalogName => ({ kind: "passkey", name: id }),
};
