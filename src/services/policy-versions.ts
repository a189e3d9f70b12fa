import { and, asc, desc, eq, isNotNull, lte, ne, sql } from "drizzle-orm";
import type { Db } from "../db";
import { batchOf, where, subquery } from "../db/queries";
import {
  advisories,
  briefs,
  organizations,
  policies,
  policyVersions,
  type BriefRow,
  type OrganizationRow,
  type PolicyRow,
  type PolicyVersionRow,
} from "../db/schema";
import { LIMITS } from "../lib/limits";
import { responsivenessFrom, responsivenessStatements, type Responsiveness } from "./metrics";
import { canonicalJson } from "../lib/canonical-json";
import { sha256Hex } from "../lib/crypto";
import { responseTargetsOf, type ResponseTargets } from "../lib/deadlines";
import { NotFound } from "../lib/domain-errors";
import { uuidv7 } from "../lib/ids";
import { readersOf, tenantFilter, type ServiceContext } from "./context";
import { listPage, type ListQuery } from "./list-pages";

// A policy's public terms, versioned: every change of them makes version n+1, immutable, hashed over
// its canonical JSON (RFC 8785), so a reporter can prove what they were promised when they reported and
// nobody can change it behind a report. Changes to anything else (branding, hosting, publication, the
// linked assets) make no version.

/** What a policy promises a researcher, as a version holds it. */
export interface PolicyTerms {
  name: string | null;
  short_description: string | null;
  point_of_contact: string | null;
  contact_url: string | null;
  safe_harbor: string | null;
  public_disclosure: boolean | null;
  cvd_timeline: number | null;
  offers_bounty: boolean | null;
  offers_swag: boolean | null;
  hall_of_fame: boolean | null;
  /** Every target, its default filled in: what the report is held to. */
  response_targets: ResponseTargets;
  in_scope_assets: { kind: string; value: string; short_description: string | null }[];
  out_of_scope_assets: { kind: string; value: string; short_description: string | null }[];
  /** The full text (Markdown); absent without one (see termsOf). */
  body?: string;
}

const scope = (entries: PolicyRow["inScopeAssets"]) =>
  entries.map(({ kind, value, short_description }) => ({ kind, value, short_description: short_description ?? null }));

export function termsOf(row: PolicyRow): PolicyTerms {
  const flag = (v: boolean | number | null) => (v === null ? null : Boolean(v));
  return {
    name: row.name,
    short_description: row.shortDescription,
    point_of_contact: row.pointOfContact,
    contact_url: row.contactUrl,
    safe_harbor: row.safeHarbor,
    public_disclosure: flag(row.publicDisclosure),
    cvd_timeline: row.cvdTimeline,
    offers_bounty: flag(row.offersBounty),
    offers_swag: flag(row.offersSwag),
    hall_of_fame: flag(row.hallOfFame),
    response_targets: responseTargetsOf(row.responseTargets),
    in_scope_assets: scope(row.inScopeAssets),
    out_of_scope_assets: scope(row.outOfScopeAssets),
    // Left out while there is none, so a policy without a text keeps the terms (and the hash) its versions
    // had before policies had one: an unchanged policy's next write makes no version.
    ...(row.body === null ? {} : { body: row.body }),
  };
}

/**
 * The INSERT of the policy's next version, for the batch that writes the policy: numbered after the
 * last, and written only if its hash differs from the last one's (or there is none yet), so a change
 * that leaves the terms as they were makes no version, and two batches cannot both take a number.
 * With `ifPreviousChanged`, only if the statement just before it changed a row (SQLite's changes()).
 */
export async function nextVersionStatement(db: Db, row: PolicyRow, opts: { now: string; ifPreviousChanged?: boolean }) {
  const { now } = opts;
  const terms = canonicalJson(termsOf(row));
  const sha256 = await sha256Hex(terms);
  const last = subquery`(SELECT pv.sha256 FROM ${policyVersions} pv WHERE pv.policy_id = ${row.id} ORDER BY pv.number DESC LIMIT 1)`;
  // Wrapped: a query builder is a thenable, and an async function's result is awaited, which would run it.
  const statement = db.insert(policyVersions).select(
    db
      .select({
        id: sql<string>`${uuidv7()}`.as("id"),
        policyId: sql<string>`${row.id}`.as("policy_id"),
        number: sql<number>`coalesce(max(${policyVersions.number}), 0) + 1`.as("number"),
        terms: sql<string>`${terms}`.as("terms"),
        sha256: sql<string>`${sha256}`.as("sha256"),
        createdAt: sql<string>`${now}`.as("created_at"),
        updatedAt: sql<string>`${now}`.as("updated_at"),
      })
      .from(policyVersions)
      .where(eq(policyVersions.policyId, row.id))
      .having(sql`coalesce(${last}, '') <> ${sha256}${opts.ifPreviousChanged ? sql` AND changes() > 0` : sql``}`),
  );
  return { statement };
}

const versionNotFound = () => new NotFound("policy_version", "The policy has no version with that number.");

/** The policy's versions (the caller's tenancy, through the policy). */
export function listPolicyVersions(ctx: ServiceContext, policyId: string, { page, sort }: ListQuery) {
  const owned = subquery`${policyVersions.policyId} IN (SELECT ${policies.id} FROM ${policies} WHERE ${where(
    eq(policies.id, policyId),
    tenantFilter(ctx, policies.organizationId),
  )})`;
  return listPage(readersOf(ctx), policyVersions, { filter: owned, sort, page });
}

/** Whether the caller sees the policy: the versions' 404 says which is missing. */
export async function getPolicyVersion(ctx: ServiceContext, policyId: string, number: number): Promise<PolicyVersionRow> {
  const [found, policy] = await ctx.db.batch([
    ctx.db
      .select()
      .from(policyVersions)
      .where(
        and(
          eq(policyVersions.policyId, policyId),
          eq(policyVersions.number, number),
          subquery`${policyVersions.policyId} IN (SELECT ${policies.id} FROM ${policies} WHERE
            ${where(eq(policies.id, policyId), tenantFilter(ctx, policies.organizationId))})`,
        ),
      ),
    ctx.db
      .select({ id: policies.id })
      .from(policies)
      .where(where(eq(policies.id, policyId), tenantFilter(ctx, policies.organizationId))),
  ]);
  if (!policy[0]) throw new NotFound("policy", "No policy has that id.");
  if (!found[0]) throw versionNotFound();
  return found[0];
}

/** A version of a published policy, by the policy's public shortcode: what anyone may read. */
export async function getPublicPolicyVersion(
  db: Db,
  { shortcode, number }: { shortcode: string; number: number },
  now: string,
): Promise<PolicyVersionRow | null> {
  const row = await db
    .select({ version: policyVersions })
    .from(policyVersions)
    .innerJoin(policies, eq(policies.id, policyVersions.policyId))
    .where(
      and(
        eq(policies.shortcode, shortcode),
        eq(policyVersions.number, number),
        isNotNull(policies.publishedAt),
        lte(policies.publishedAt, now),
      ),
    )
    .get();
  return row?.version ?? null;
}

/** Policies one cron run gives a first version, at most. */
const BACKFILL_PAGE = 100;

/**
 * The cron: a policy made before versions existed has none until its terms change; this gives it its
 * version 1 (its terms as they stand), a page a run, so reports sent under it record the terms too.
 * Once every policy has one, a run costs one indexed read that finds nothing. No plan and no audit row:
 * a backfill records the terms a policy already has, which is nobody's change.
 */
export async function versionUnversionedPolicies(db: Db, now = new Date().toISOString()): Promise<number> {
  const rows = await db
    .select()
    .from(policies)
    .where(subquery`NOT EXISTS (SELECT 1 FROM ${policyVersions} pv WHERE pv.policy_id = ${policies.id})`)
    .limit(BACKFILL_PAGE);
  if (rows.length === 0) return 0;
  // (Wrapped until here: a statement returned from an async function would be awaited, and so run.)
  const planned = await Promise.all(rows.map((row) => nextVersionStatement(db, row, { now })));
  await batchOf(
    db,
    planned.map((p) => p.statement),
  );
  return rows.length;
}

/** A published policy as its page shows it: the policy, its organization, its open briefs and its versions. */
export interface PublishedPolicy {
  policy: PolicyRow;
  organization: OrganizationRow;
  briefs: Pick<BriefRow, "name" | "shortDescription" | "shortcode">[];
  versions: Pick<PolicyVersionRow, "number" | "sha256" | "createdAt">[];
  /** Its organization's published advisories, the newest first. */
  advisories: { id: string; title: string; cveId: string | null; state: string; publishedAt: string | null }[];
  responsiveness: Responsiveness | null;
}

/** The versions a page lists, newest first. */
const PAGE_VERSIONS = 50;

/** The published policy with that shortcode, for its public page, in one round trip; null if none is. */
export async function findPublishedPolicy(db: Db, shortcode: string, now: string): Promise<PublishedPolicy | null> {
  // Selects, not a join: D1 batch rows are keyed by column name, and these tables share some.
  const policyId = subquery`(SELECT id FROM policies WHERE shortcode = ${shortcode})`;
  const [policyRows, organizationRows, briefRows, versionRows, advisoryRows, counts, medians] = await db.batch([
    db
      .select()
      .from(policies)
      .where(and(eq(policies.shortcode, shortcode), isNotNull(policies.publishedAt), lte(policies.publishedAt, now))),
    db
      .select()
      .from(organizations)
      .where(subquery`${organizations.id} = (SELECT organization_id FROM policies WHERE shortcode = ${shortcode})`),
    db
      .select({ name: briefs.name, shortDescription: briefs.shortDescription, shortcode: briefs.shortcode })
      .from(briefs)
      .where(and(sql`${briefs.policyId} = ${policyId}`, isNotNull(briefs.publishedAt), lte(briefs.publishedAt, now)))
      .orderBy(asc(briefs.name))
      .limit(LIMITS.pageSize),
    db
      .select({ number: policyVersions.number, sha256: policyVersions.sha256, createdAt: policyVersions.createdAt })
      .from(policyVersions)
      .where(sql`${policyVersions.policyId} = ${policyId}`)
      .orderBy(desc(policyVersions.number))
      .limit(PAGE_VERSIONS),
    db
      .select({
        id: advisories.id,
        title: advisories.title,
        cveId: advisories.cveId,
        state: advisories.state,
        publishedAt: advisories.publishedAt,
      })
      .from(advisories)
      .where(
        and(
          subquery`${advisories.organizationId} = (SELECT organization_id FROM policies WHERE shortcode = ${shortcode})`,
          ne(advisories.state, "draft"),
        ),
      )
      .orderBy(desc(advisories.publishedAt), desc(advisories.id))
      .limit(PAGE_VERSIONS),
    ...responsivenessStatements(db, policyId, new Date(now)),
  ]);
  const [policy, organization] = [policyRows[0], organizationRows[0]];
  if (!policy || !organization) return null;
  const responsiveness = responsivenessFrom({ counts, medians }).get(policy.id) ?? null;
  return { policy, organization, briefs: briefRows, versions: versionRows, advisories: advisoryRows, responsiveness };
}
