import type { ResponseTargets } from "./promises";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
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
    // security.txt on a custom domain finds its policy by the request's host.
    index("policies_custom_domain_idx").on(t.customDomain),
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
