import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// The catalog: what finds an organization's shard, and the names that must stay unique across shards.
// Only the catalog database (the CATALOG binding) writes these tables; every database is laid out by the
// same migrations, so a tenant database holds them empty, and a one-database deployment never writes them.

/** Where each organization's rows live, and whether they are moving (its writes then answer 503). */
export const tenants = sqliteTable(
  "tenants",
  {
    organizationId: text("organization_id").primaryKey(),
    /** The binding name of the tenant database: TENANT_1 .. TENANT_K. */
    shard: text("shard").notNull(),
    /** Set while `npm run shard -- move` copies the organization; its writes answer 503 until it is cleared. */
    movingTo: text("moving_to"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("tenants_shard_idx").on(t.shard)],
);

export const CATALOG_NAME_KINDS = [
  "organization_slug",
  "api_key",
  "session",
  "brief",
  "policy",
  "domain",
  "report_token",
  "advisory",
  // What the console's sign-in and the e-mails' links name: a member (an invitation), a contact (a
  // confirmation), a sign-in link's SHA-256, a passkey's credential id.
  "member",
  "contact",
  "sign_in_link",
  "passkey",
  // A directory's listing of an organization (`<directory id>/<organization id>`): the catalog counts a
  // directory's listings across shards, where its limit holds.
  "directory_listing",
] as const;
export type CatalogNameKind = (typeof CATALOG_NAME_KINDS)[number];

/**
 * A name that leads to one organization: its slug, a key's or a session's SHA-256, a brief's or a
 * policy's shortcode, a custom domain, a report token's SHA-256, an advisory's id, a member's or a
 * contact's id, a sign-in link's SHA-256, a passkey's id. The primary key keeps each unique across
 * every shard.
 */
export const catalogNames = sqliteTable(
  "catalog_names",
  {
    kind: text("kind", { enum: CATALOG_NAME_KINDS }).notNull(),
    name: text("name").notNull(),
    organizationId: text("organization_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.name] }), index("catalog_names_organization_idx").on(t.organizationId)],
);

/** Each tenant database's size as D1 last reported it (`meta.size_after`): new organizations go where there is most room. */
export const shardRooms = sqliteTable("shard_rooms", {
  shard: text("shard").primaryKey(),
  sizeBytes: integer("size_bytes").notNull(),
  measuredAt: text("measured_at").notNull(),
});
