import type { ResponseTargets } from "./promises";
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { assets } from "./assets";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

/** A scope entry of a policy or brief, stored inside its owner's row: scopes are written as whole arrays. */
export type ScopeAsset = { id: string; kind: string; value: string; short_description: string | null };

export type Branding = {
  primary_color?: string | null;
  secondary_color?: string | null;
  accent_color?: string | null;
  font_heading?: string | null;
  font_body?: string | null;
  google_fonts?: string[] | null;
};

export const policies = sqliteTable(
  "policies",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name"),
    shortDescription: text("short_description"),
    // The policy's full text in Markdown (at most 100,000 characters), part of its versions' terms.
    body: text("body"),
    pointOfContact: text("point_of_contact"),
    cvdTimeline: integer("cvd_timeline"),
    safeHarbor: text("safe_harbor"),
    offersBounty: integer("offers_bounty", { mode: "boolean" }),
    offersSwag: integer("offers_swag", { mode: "boolean" }),
    hallOfFame: integer("hall_of_fame", { mode: "boolean" }),
    contactUrl: text("contact_url"),
    securitytxtUrl: text("securitytxt_url"),
    hostedPolicyUrl: text("hosted_policy_url"),
    publicDisclosure: integer("public_disclosure", { mode: "boolean" }),
    launchDate: text("launch_date"),
    policyUrlStatus: text("policy_url_status"),
    creationMode: text("creation_mode"),
    hostingMode: text("hosting_mode"),
    customDomain: text("custom_domain"),
    // The claim on custom_domain and its proof (services/custom-domains.ts): the value its TXT record
    // must hold, when the claim began, the last lookup and why it proved nothing, and when control was
    // proven. A new domain starts a new claim; only a verified one serves anything.
    customDomainToken: text("custom_domain_token"),
    customDomainClaimedAt: text("custom_domain_claimed_at"),
    customDomainCheckedAt: text("custom_domain_checked_at"),
    customDomainFailure: text("custom_domain_failure"),
    customDomainVerifiedAt: text("custom_domain_verified_at"),
    publishedAt: text("published_at"),
    shortcode: text("shortcode").notNull().unique(),
    branding: text("branding", { mode: "json" }).$type<Branding>(),
    // What the policy promises (lib/deadlines.ts); null promises the defaults.
    responseTargets: text("response_targets", { mode: "json" }).$type<ResponseTargets>(),
    inScopeAssets: text("in_scope_assets", { mode: "json" }).$type<ScopeAsset[]>().notNull(),
    outOfScopeAssets: text("out_of_scope_assets", { mode: "json" }).$type<ScopeAsset[]>().notNull(),
    ...timestamps,
  },
  (t) => [
    index("policies_organization_created_at_idx").on(t.organizationId, t.createdAt),
    index("policies_organization_updated_at_idx").on(t.organizationId, t.updatedAt),
    // A domain is one policy's on the whole platform, whatever its case: the index decides between two
    // claims at once. security.txt on a custom domain finds its policy through it, by the request's host.
    uniqueIndex("policies_custom_domain_unique_idx").on(sql`lower(${t.customDomain})`),
    // The claims the cron looks up again, least recently checked first.
    index("policies_custom_domain_pending_idx")
      .on(t.customDomainCheckedAt)
      .where(sql`${t.customDomain} IS NOT NULL AND ${t.customDomainVerifiedAt} IS NULL`),
  ],
);

/** The policy's `assets` relationship: organization assets the policy covers. */
export const policyAssets = sqliteTable(
  "policy_assets",
  {
    policyId: text("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    assetId: text("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.policyId, t.assetId] }), index("policy_assets_asset_idx").on(t.assetId)],
);

export type PolicyRow = typeof policies.$inferSelect;
