import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

export const API_KEY_KINDS = ["organization", "operator"] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/**
 * What a key (or a member's role) may do: `read` reads everything of the organization; `vulns` changes
 * reports, comments, files and regulatory reports; `advisories` drafts and publishes advisories;
 * `settings` changes policies, briefs, assets, contacts and webhooks; `members` changes members and keys.
 */
export const API_KEY_SCOPES = ["read", "vulns", "advisories", "settings", "members"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    // null for operator keys, which act across organizations.
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: API_KEY_KINDS }).notNull(),
    name: text("name"),
    // Only the SHA-256 of the key is kept; the key itself is shown once, when it is made.
    keyHash: text("key_hash").notNull().unique(),
    // The first characters of the key, so a person can tell keys apart in a list.
    keyPrefix: text("key_prefix").notNull(),
    revokedAt: text("revoked_at"),
    // Null: every scope (the keys made before scopes existed keep working as they did).
    scopes: text("scopes", { mode: "json" }).$type<ApiKeyScope[]>(),
    // Null: never expires. An expired key is refused like a revoked one.
    expiresAt: text("expires_at"),
    // The address the key was last used from, so use from a new one is audited (once per change of address).
    lastUsedIp: text("last_used_ip"),
    ...timestamps,
  },
  (t) => [index("api_keys_organization_idx").on(t.organizationId, t.createdAt)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
