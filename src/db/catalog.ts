import { and, asc, count, eq, inArray, or, sql } from "drizzle-orm";
import { createDb, type Db } from "./index";
import { subquery } from "./queries";
import { catalogNames, directories, organizations, shardRooms, tenants, type CatalogNameKind, type OrganizationRow } from "./schema";
import { roomiestOf } from "./placement";
import { CATALOG, type Shards } from "./shards";
const nowIso = () => new Date().toISOString();

// The catalog of a sharded deployment: which tenant database holds an organization, and the names that
// lead to one (unique across every shard). A one-database deployment has no catalog to keep: its services
// get no `catalog` (see ServiceContext) and its unique indexes do this work.

export interface CatalogName {
  kind: CatalogNameKind;
  name: string;
}

/** Where a name leads: an organization and its shard (`CATALOG` for an operator's key), and whether it is moving. */
export interface Found {
  organizationId: string | null;
  shard: string;
  movingTo: string | null;
}

/** What a service asks of the catalog; the request gives it one in a sharded deployment only. */
export interface Catalog {
  /** The catalog database itself, which keeps what is no organization's: the sign-in budget, passkey sign-in challenges. */
  readonly db: Db;
  /** Every tenant database, for what spans organizations (a person signing in by address). */
  tenants(): { shard: string; db: Db }[];
  /**
   * Records a new organization in the shard with the most room, with the catalog's copy of its row (which
   * operators' lists and directories read), and answers that shard and its database.
   */
  place(organization: OrganizationRow): Promise<{ shard: string; db: Db }>;
  /**
   * After the write that followed `place` failed: whether the organization's shard has it all the same (its
   * batch committed, its answer lost). If not, the placement is taken back, so no operator's list shows it
   * and its id routes nowhere.
   */
  placedAfterAll(organizationId: string): Promise<boolean>;
  /** Writes in every tenant database (the directories operators curate are kept in each, beside the listings that name them). */
  inEveryShard(write: (db: Db) => Promise<unknown>): Promise<void>;
  /** Keeps the catalog's copy of an organization's row as its shard now has it. */
  copy(organization: OrganizationRow): Promise<void>;
  /** The database of an organization's shard, or null for an organization the catalog does not know. */
  tenantOf(organizationId: string): Promise<Db | null>;
  /**
   * Claims names for an organization before the write that uses them. A name another organization
   * holds fails as the tenant's own unique index would, so the services' guards answer alike. Answers
   * the names this call claimed: not those the organization held already, which a failed write must
   * not give back (its other policy's custom domain, its own slug sent again).
   */
  claim(organizationId: string, names: readonly CatalogName[]): Promise<CatalogName[]>;
  /**
   * Claims a directory's place for an organization, unless the directory already has `limit` across every
   * shard ("full"): one conditional insert, so two claims racing for the last place cannot both win. "held":
   * the organization had its place already.
   */
  claimListing(organizationId: string, directoryId: string, limit: number): Promise<"placed" | "held" | "full">;
  /** Gives names back (a write that failed after its claim, a revoked key), and forgets their cached lookups. */
  release(names: readonly CatalogName[]): Promise<void>;
}

/** The tenant column each kind of name is unique in, for the error a taken name fails with. */
const UNIQUE_IN: Record<CatalogNameKind, string> = {
  organization_slug: "organizations.slug",
  api_key: "api_keys.key_hash",
  session: "sessions.token_hash",
  brief: "briefs.shortcode",
  policy: "policies.shortcode",
  // An index on an expression (lower(custom_domain)): SQLite names the index itself.
  domain: "index 'policies_custom_domain_unique_idx'",
  report_token: "vulns.reporter_token_hash",
  advisory: "advisories.id",
  member: "members.id",
  contact: "contacts.id",
  sign_in_link: "sign_in_links.token_hash",
  passkey: "passkeys.id",
  directory_listing: "directory_listings.directory_id, directory_listings.organization_id",
};

/** The name's organization and shard: one read of the catalog (the request's edge cache answers most). */
export async function findName(catalog: Db, { kind, name }: CatalogName): Promise<Found | null> {
  const row = await catalog
    .select({ organizationId: catalogNames.organizationId, shard: tenants.shard, movingTo: tenants.movingTo })
    .from(catalogNames)
    .leftJoin(tenants, eq(tenants.organizationId, catalogNames.organizationId))
    .where(and(eq(catalogNames.kind, kind), eq(catalogNames.name, name)))
    .get();
  if (!row) return null;
  // An operator's key belongs to no organization: it opens the catalog itself.
  if (row.organizationId === "") return { organizationId: null, shard: CATALOG, movingTo: null };
  return row.shard ? { organizationId: row.organizationId, shard: row.shard, movingTo: row.movingTo } : null;
}

/** An organization's shard, from the catalog. */
export async function findTenant(catalog: Db, organizationId: string): Promise<Found | null> {
  const row = await catalog
    .select({ shard: tenants.shard, movingTo: tenants.movingTo })
    .from(tenants)
    .where(eq(tenants.organizationId, organizationId))
    .get();
  return row ? { organizationId, ...row } : null;
}

/**
 * The shard a new organization goes to: the one with the most room, by the sizes D1 last reported
 * (`shard_rooms`); one never measured counts as empty, and among equals the one with fewest
 * organizations, then the first.
 */
export async function roomiest(catalog: Db, names: readonly string[]): Promise<string> {
  const [sizes, counts] = await catalog.batch([
    catalog.select({ shard: shardRooms.shard, size: shardRooms.sizeBytes }).from(shardRooms),
    catalog.select({ shard: tenants.shard, n: count() }).from(tenants).groupBy(tenants.shard),
  ]);
  return roomiestOf(names, new Map(sizes.map((r) => [r.shard, r.size])), new Map(counts.map((r) => [r.shard, r.n])));
}

/** Keeps a shard's size as D1 reported it, for placement and for the operators' watch. */
export async function recordRoom(
  catalog: Db,
  { shard, sizeBytes, at = nowIso() }: { shard: string; sizeBytes: number; at?: string },
): Promise<void> {
  await catalog
    .insert(shardRooms)
    .values({ shard, sizeBytes, measuredAt: at })
    .onConflictDoUpdate({ target: shardRooms.shard, set: { sizeBytes, measuredAt: at } });
}

/** The catalog a sharded request's services use; `forget` drops a name's cached lookup (the edge cache). */
export function shardCatalog(shards: Shards, forget: (name: CatalogName) => Promise<void>): Catalog {
  let opened: Db | undefined;
  // Opened on first use: most requests never ask the catalog anything.
  const catalog = () => (opened ??= createDb(shards.catalog.withSession("first-primary")));
  const tenantDb = (shard: string) => createDb(shards.binding(shard).withSession("first-primary"));
  return {
    get db() {
      return catalog();
    },
    tenants: () => shards.names.map((shard) => ({ shard, db: tenantDb(shard) })),
    async place(organization) {
      const shard = await roomiest(catalog(), shards.names);
      const at = nowIso();
      await catalog().batch([
        catalog().insert(tenants).values({ organizationId: organization.id, shard, createdAt: at, updatedAt: at }),
        catalog().insert(organizations).values(organization),
      ]);
      return { shard, db: tenantDb(shard) };
    },
    async placedAfterAll(organizationId) {
      const found = await findTenant(catalog(), organizationId);
      if (!found) return false;
      const db = tenantDb(found.shard);
      if (await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).get()) return true;
      await catalog().batch([
        catalog().delete(tenants).where(eq(tenants.organizationId, organizationId)),
        catalog().delete(organizations).where(eq(organizations.id, organizationId)),
      ]);
      return false;
    },
    async inEveryShard(write) {
      await Promise.all(this.tenants().map(({ db }) => write(db)));
    },
    async copy(organization) {
      const { id, ...rest } = organization;
      await catalog().insert(organizations).values(organization).onConflictDoUpdate({ target: organizations.id, set: rest });
    },
    async tenantOf(organizationId) {
      const found = await findTenant(catalog(), organizationId);
      return found ? tenantDb(found.shard) : null;
    },
    async claim(organizationId, names) {
      if (!names.length) return [];
      const at = nowIso();
      const same = or(...names.map((n) => and(eq(catalogNames.kind, n.kind), eq(catalogNames.name, n.name))));
      const [claimed, owners] = await catalog()
        .batch([
          catalog()
            .insert(catalogNames)
            .values(names.map((n) => ({ ...n, organizationId, createdAt: at })))
            .onConflictDoNothing()
            .returning({ kind: catalogNames.kind, name: catalogNames.name }),
          catalog().select({ kind: catalogNames.kind, organizationId: catalogNames.organizationId }).from(catalogNames).where(same),
        ])
        .catch(async (err) => {
          // The batch may have run before it failed (its answer lost): what it wrote, and only that (the
          // names made at this very instant), goes back, so no name is held for a write that never came.
          await catalog()
            .delete(catalogNames)
            .where(and(same, eq(catalogNames.organizationId, organizationId), eq(catalogNames.createdAt, at)))
            .catch(() => {});
          throw err;
        });
      // A name this organization holds already (its own slug sent again) is no conflict.
      const taken = owners.find((o) => o.organizationId !== organizationId);
      if (!taken) return claimed;
      await this.release(claimed);
      throw new Error(`UNIQUE constraint failed: ${UNIQUE_IN[taken.kind]}`);
    },
    async claimListing(organizationId, directoryId, limit) {
      const name = `${directoryId}/${organizationId}`;
      const placed = await catalog().run(sql`INSERT INTO ${catalogNames} (kind, name, organization_id, created_at)
        SELECT 'directory_listing', ${name}, ${organizationId}, ${nowIso()}
        WHERE ${placesOf(directoryId)} < ${limit}
        ON CONFLICT DO NOTHING`);
      if ((placed as unknown as D1Result).meta.changes > 0) return "placed";
      // Already placed (a retry of its own listing) is no refusal: the shard's unique index answers that.
      const own = await catalog()
        .select({ name: catalogNames.name })
        .from(catalogNames)
        .where(and(eq(catalogNames.kind, "directory_listing"), eq(catalogNames.name, name)))
        .get();
      return own ? "held" : "full";
    },
    async release(names) {
      if (!names.length) return;
      for (const kind of new Set(names.map((n) => n.kind))) {
        const ofKind = names.filter((n) => n.kind === kind).map((n) => n.name);
        await catalog()
          .delete(catalogNames)
          .where(and(eq(catalogNames.kind, kind), inArray(catalogNames.name, ofKind)));
      }
      await Promise.all(names.map(forget));
    },
  };
}

/** How many places a directory has given, in every shard: its names run from "<id>/" to just before "<id>0". */
const placesOf = (directoryId: string) =>
  subquery<number>`(SELECT count(*) FROM ${catalogNames} WHERE kind = 'directory_listing' AND name >= ${`${directoryId}/`}
    AND name < ${`${directoryId}0`})`;

/** The names an organization holds, in a stable order (for a move, and for the operators' tools). */
export function namesOf(catalog: Db, organizationId: string) {
  return catalog
    .select({ kind: catalogNames.kind, name: catalogNames.name })
    .from(catalogNames)
    .where(eq(catalogNames.organizationId, organizationId))
    .orderBy(asc(catalogNames.kind), asc(catalogNames.name));
}

/** Marks names as an operator's (no organization): an operator key made by `npm run operator-key`. */
export const OPERATOR = "";

/**
 * The directories, as the catalog has them, written again in every tenant database: a write that missed a
 * shard (a failure after the catalog's commit) is repaired within a minute. Directories are few.
 */
export async function replicateDirectories(shards: Shards): Promise<number> {
  const catalog = createDb(shards.catalog.withSession("first-primary"));
  const rows = await catalog.select().from(directories);
  if (!rows.length) return 0;
  await Promise.all(
    shards.names.map((shard) => {
      const db = createDb(shards.binding(shard).withSession("first-primary"));
      return db.batch(
        rows.map((row) => {
          const { id, ...rest } = row;
          return db.insert(directories).values(row).onConflictDoUpdate({ target: directories.id, set: rest });
        }) as [never, ...never[]],
      );
    }),
  );
  return rows.length;
}
