import type { CatalogNameKind } from "./schema/catalog";

// What a tenant database holds that its catalog must know, as SQL text run in that database: how
// `npm run shard -- adopt` (scripts/shard-adopt.ts) fills a new catalog from a deployment's one database,
// kept here beside the catalog so `test/shards/adoption.test.ts` holds each query to the names the Worker
// itself claims (`withNames`, `claimListing`). Plain text with no imports but types: the script runs it
// through `wrangler d1 execute` from Node.

/**
 * Per kind of catalog name, the names a tenant database holds that lead to one of its organizations, as
 * rows of `name`, `organization_id` and `created_at` (the row's own, so the cron's purge of sign-in
 * links' names counts from when the link was made). Each yields exactly what the Worker keeps claimed:
 * what a write made and nothing it gave back (a revoked key or session, a released custom domain).
 *
 * One name the catalog keeps cannot be read back: a deleted report's follow-up token (its reporter is told
 * the report was deleted), since `deleted_report_tokens` keeps no organization. After adoption such a token
 * is unknown (401) instead.
 */
export const ADOPTED_NAMES: Readonly<Record<CatalogNameKind, string>> = {
  organization_slug: "SELECT slug AS name, id AS organization_id, created_at FROM organizations",
  api_key: "SELECT key_hash AS name, organization_id, created_at FROM api_keys WHERE organization_id IS NOT NULL AND revoked_at IS NULL",
  // An expired session keeps its name (the owner's list still shows it); an ended one gave it back.
  session: "SELECT token_hash AS name, organization_id, created_at FROM sessions WHERE revoked_at IS NULL",
  brief: "SELECT shortcode AS name, organization_id, created_at FROM briefs",
  policy: "SELECT shortcode AS name, organization_id, created_at FROM policies",
  domain:
    "SELECT lower(custom_domain) AS name, organization_id, coalesce(custom_domain_claimed_at, created_at) AS created_at FROM policies WHERE custom_domain IS NOT NULL",
  report_token: "SELECT follow_up_token_hash AS name, organization_id, created_at FROM vulns WHERE follow_up_token_hash IS NOT NULL",
  advisory: "SELECT id AS name, organization_id, created_at FROM advisories",
  member: "SELECT id AS name, organization_id, created_at FROM members",
  contact: "SELECT id AS name, organization_id, created_at FROM contacts",
  // Used links keep their names until the cron purges both, a day past their lifetime.
  sign_in_link: "SELECT l.token_hash AS name, m.organization_id, l.created_at FROM sign_in_links l JOIN members m ON m.id = l.member_id",
  passkey: "SELECT id AS name, organization_id, created_at FROM passkeys",
  directory_listing: "SELECT directory_id || '/' || organization_id AS name, organization_id, created_at FROM directory_listings",
};

/** A row of an ADOPTED_NAMES query. */
export interface AdoptedName {
  name: string;
  organization_id: string;
  created_at: string;
}

/**
 * The rows the catalog keeps a copy of, whole (every column, as the tenant database has them): each
 * organization's row (with a `tenants` row naming its shard), the directories operators curate, and the
 * operators' keys, which belong to no organization and move to the catalog (named there as `""`'s).
 */
export const ADOPTED_ROWS = {
  organizations: "SELECT * FROM organizations",
  directories: "SELECT * FROM directories",
  api_keys: "SELECT * FROM api_keys WHERE organization_id IS NULL",
} as const;

export type AdoptedTable = keyof typeof ADOPTED_ROWS;

/**
 * One page of a query's rows in a stable order, as text (`wrangler d1 execute --command` binds nothing):
 * names are unique per kind and ids per table, so the page past the last one read (`after`) never skips
 * or repeats a row.
 */
export function pageOf(query: string, key: "name" | "id", after: string, size: number): string {
  return `SELECT * FROM (${query}) WHERE ${key} > '${after.replaceAll("'", "''")}' ORDER BY ${key} LIMIT ${size}`;
}
