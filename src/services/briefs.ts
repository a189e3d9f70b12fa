import { actsForOrganization } from "../lib/caller";
import { and, count, eq, getTableColumns, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../db";
import {
  briefs,
  NO_REQUIREMENTS,
  organizations,
  policies,
  vulns,
  type BriefRow,
  type OrganizationRow,
  type PolicyRow,
  type ProofOfWorkMode,
  type SubmissionRequirements,
} from "../db/schema";
import { isPublished } from "../lib/maturity";
import { nowIso, shortcode, uuidv7 } from "../lib/ids";
import {
  assertOperatorMayChange,
  ownerClaimed,
  owningOrganization,
  owningUnclaimed,
  ownerValue,
  tenantFilter,
  type ServiceContext,
  readersOf,
} from "./context";
import { listPage, type ListQuery } from "./list-pages";
import { inList, where, whenRefused, subquery } from "../db/queries";
import { assignScopeIds, type ScopeAssetInput } from "./scopes";
import { commit, Plan, readBatch } from "./unit-of-work";
import { sentMembers } from "./audit";
import { directorySlugsOf, unlistStatements } from "./public-directories";
import { type PolicyPublicKeys, policyPublicKeys, staleOfPolicies } from "./organization-files";
import { Conflict, Invalid, NotFound, Unprocessable, relationship } from "../lib/domain-errors";
import { responsivenessFrom, responsivenessStatements, type Responsiveness } from "./metrics";
import type { Stale } from "../lib/stale";
import { withNames } from "./catalog";
import { mayChange } from "./access";

export interface BriefInput {
  name?: string;
  short_description?: string | null;
  published_at?: string | null;
  in_scope_assets?: ScopeAssetInput[];
  out_of_scope_assets?: ScopeAssetInput[];
  submission_requirements?: SubmissionRequirements;
  proof_of_work?: ProofOfWorkMode;
  expected_hourly?: number;
  daily_cap?: number | null;
  intake_paused_until?: string | null;
  intake_paused_message?: string | null;
  verified_lane_min_valid?: number | null;
}

/** The gate's columns an input sets (left out: unchanged, or the defaults for a new brief). */
function gateChanges(input: BriefInput): Partial<BriefRow> {
  const changes: Partial<BriefRow> = {};
  if (input.submission_requirements !== undefined) changes.submissionRequirements = input.submission_requirements;
  if (input.proof_of_work !== undefined) changes.proofOfWork = input.proof_of_work;
  if (input.expected_hourly !== undefined) changes.expectedHourly = input.expected_hourly;
  if (input.daily_cap !== undefined) changes.dailyCap = input.daily_cap;
  if (input.intake_paused_until !== undefined) changes.intakePausedUntil = input.intake_paused_until;
  if (input.intake_paused_message !== undefined) changes.intakePausedMessage = input.intake_paused_message || null;
  if (input.verified_lane_min_valid !== undefined) changes.verifiedLaneMinValid = input.verified_lane_min_valid;
  return changes;
}

export interface BriefLinks {
  organizationId?: string;
  /** undefined: leave as is; null: detach from its policy. */
  policyId?: string | null;
}

const notFound = () => new NotFound("brief", "No brief has that id.");

export function listBriefs(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { policyId?: string }) {
  const filter = where(tenantFilter(ctx, briefs.organizationId), filters.policyId ? eq(briefs.policyId, filters.policyId) : undefined);
  return listPage(readersOf(ctx), briefs, { filter, sort, page });
}

export async function getBrief(ctx: ServiceContext, id: string): Promise<BriefRow> {
  const row = await ctx.db
    .select()
    .from(briefs)
    .where(where(eq(briefs.id, id), tenantFilter(ctx, briefs.organizationId)))
    .get();
  if (!row) throw notFound();
  return row;
}

/**
 * Everything a write must check, read in one round trip: the brief itself and whether its
 * organization is claimed (updates), whether the named organization exists and is claimed (operator
 * creates), and whose the named policy is. A foreign policy answers exactly like a missing one.
 */
async function readForWrite(ctx: ServiceContext, opts: { briefId?: string; organizationId?: string; policyId?: string | null }) {
  const [briefRows, orgRows, policyRows] = await readBatch(ctx, [
    ctx.db
      .select({ ...getTableColumns(briefs), ownerClaimed: ownerClaimed(briefs.organizationId) })
      .from(briefs)
      .where(where(eq(briefs.id, opts.briefId ?? ""), tenantFilter(ctx, briefs.organizationId))),
    ctx.db
      .select({ claimed: organizations.claimed })
      .from(organizations)
      .where(eq(organizations.id, opts.organizationId ?? "")),
    ctx.db
      .select({ organizationId: policies.organizationId })
      .from(policies)
      .where(eq(policies.id, opts.policyId ?? "")),
  ]);
  const { ownerClaimed: claimed, ...brief } = briefRows[0] ?? { ownerClaimed: undefined };
  return {
    existing: "id" in brief ? (brief as BriefRow) : null,
    ownerClaimed: claimed,
    organization: orgRows[0] ?? null,
    policyOwner: policyRows[0]?.organizationId,
  };
}

/**
 * The answer to a write the database refused (see whenRefused): the named policy, or the
 * organization, went away after the first read. Read again to name the member.
 */
async function refusedLinks(
  ctx: ServiceContext,
  opts: { organizationId?: string; policyId?: string | null },
  owner: string,
): Promise<never> {
  const again = await readForWrite(ctx, opts);
  if (opts.organizationId !== undefined) owningUnclaimed(ctx, "briefs", { requested: opts.organizationId, found: again.organization });
  assertPolicyOwned(opts.policyId, again.policyOwner, owner);
  throw new Conflict("Something this brief depends on changed while the request ran; read it again and retry.");
}

function assertPolicyOwned(policyId: string | null | undefined, policyOwner: string | undefined, organizationId: string): void {
  if (typeof policyId === "string" && policyOwner !== organizationId) {
    throw Invalid.at(relationship("policy"), "policy does not exist.");
  }
}

export async function createBrief(ctx: ServiceContext, input: BriefInput & { name: string }, links: BriefLinks): Promise<BriefRow> {
  mayChange(ctx, "settings");
  let organizationId: string;
  if (typeof links.policyId !== "string" && actsForOrganization(ctx.caller)) {
    organizationId = owningOrganization(ctx, links.organizationId, undefined);
  } else {
    const read = await readForWrite(ctx, { organizationId: links.organizationId, policyId: links.policyId });
    organizationId = owningUnclaimed(ctx, "briefs", { requested: links.organizationId, found: read.organization });
    assertPolicyOwned(links.policyId, read.policyOwner, organizationId);
  }
  const now = nowIso();
  const row: BriefRow = {
    id: uuidv7(),
    organizationId,
    policyId: links.policyId ?? null,
    name: input.name,
    shortDescription: input.short_description ?? null,
    shortcode: shortcode(),
    publishedAt: input.published_at ?? null,
    inScopeAssets: assignScopeIds(input.in_scope_assets ?? []),
    outOfScopeAssets: assignScopeIds(input.out_of_scope_assets ?? []),
    submissionRequirements: NO_REQUIREMENTS,
    proofOfWork: "off",
    expectedHourly: 10,
    dailyCap: null,
    intakePausedUntil: null,
    intakePausedMessage: null,
    verifiedLaneMinValid: null,
    ...gateChanges(input),
    createdAt: now,
    updatedAt: now,
  };
  const p = new Plan(row)
    .add(ctx.db.insert(briefs).values({ ...row, organizationId: ownerValue(ctx, organizationId) }))
    .audits({ action: "brief.create", target: { type: "brief", id: row.id }, organizationId });
  // Its policy's page lists the policy's briefs; its security.txt names the first.
  const policyPages = p.track<PolicyPublicKeys[]>(policiesOfBriefs(ctx, [row.policyId]));
  p.evicts((results) => staleOfPolicies(policyPages.of(results) ?? []));
  await whenRefused(
    () => withNames(ctx, { organizationId, names: [{ kind: "brief", name: row.shortcode }] }, () => commit(ctx, p, ctx.respond)),
    () =>
      refusedLinks(
        ctx,
        { organizationId: actsForOrganization(ctx.caller) ? undefined : organizationId, policyId: links.policyId },
        organizationId,
      ),
  );
  return row;
}

/**
 * What the policies `ids` names (nulls skipped) publish about their briefs: their pages list them,
 * their organizations' security.txt names the first.
 */
function policiesOfBriefs(ctx: ServiceContext, ids: (string | null | undefined)[]) {
  return policyPublicKeys(
    ctx.db,
    inList(
      policies.id,
      ids.filter((id): id is string => typeof id === "string"),
    ),
  );
}

export async function updateBrief(ctx: ServiceContext, id: string, { input, links }: { input: BriefInput; links: BriefLinks }) {
  mayChange(ctx, "settings");
  const read = await readForWrite(ctx, { briefId: id, policyId: links.policyId });
  const existing = read.existing;
  if (!existing) throw notFound();
  assertOperatorMayChange(ctx, read.ownerClaimed, "briefs");
  assertPolicyOwned(links.policyId, read.policyOwner, existing.organizationId);
  const changes: Partial<BriefRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.short_description !== undefined) changes.shortDescription = input.short_description;
  if (input.published_at !== undefined) changes.publishedAt = input.published_at;
  if (input.in_scope_assets) changes.inScopeAssets = assignScopeIds(input.in_scope_assets, existing.inScopeAssets);
  if (input.out_of_scope_assets) changes.outOfScopeAssets = assignScopeIds(input.out_of_scope_assets, existing.outOfScopeAssets);
  if (links.policyId !== undefined) changes.policyId = links.policyId;
  Object.assign(changes, gateChanges(input));
  const p = new Plan(null);
  const rows = p.track<BriefRow[]>(
    ctx.db
      .update(briefs)
      .set(changes)
      .where(and(eq(briefs.id, id), eq(briefs.organizationId, existing.organizationId)))
      .returning(),
  );
  p.audits(
    {
      action: "brief.update",
      target: { type: "brief", id },
      changed: sentMembers({ ...input, policyId: links.policyId }),
      organizationId: existing.organizationId,
    },
    { ifChanged: rows },
  );
  const slugs = p.track<{ slug: string }[]>(directorySlugsOf(ctx.db, existing.organizationId));
  // The pages of the policy it leaves and the one it joins.
  const policyPages = p.track<PolicyPublicKeys[]>(policiesOfBriefs(ctx, [existing.policyId, changes.policyId]));
  p.evicts((r) => staleOfBrief(rows.of(r)[0], policyPages.of(r), slugs.of(r)));
  const { results } = await whenRefused(
    () => commit(ctx, p),
    () => refusedLinks(ctx, { policyId: links.policyId }, existing.organizationId),
  );
  const row = rows.of(results)[0];
  if (!row) throw notFound();
  return row;
}

/**
 * Deletes a brief that no report came through. A brief with reports stays (unpublish it to close it
 * to new reports): every vuln keeps the brief it came through, which PATCH requires. A deleted brief
 * leaves the directory listings that showed it, and their positions close up.
 */
export async function deleteBrief(ctx: ServiceContext, id: string) {
  mayChange(ctx, "settings");
  const existing = await ctx.db
    .select({ organizationId: briefs.organizationId, policyId: briefs.policyId, claimed: ownerClaimed(briefs.organizationId) })
    .from(briefs)
    .where(where(eq(briefs.id, id), tenantFilter(ctx, briefs.organizationId)))
    .get();
  if (!existing) throw notFound();
  assertOperatorMayChange(ctx, existing.claimed, "briefs");
  const p = new Plan(null);
  const deleted = p.track<BriefRow[]>(
    ctx.db
      .delete(briefs)
      .where(
        and(
          eq(briefs.id, id),
          eq(briefs.organizationId, existing.organizationId),
          subquery`NOT EXISTS (SELECT 1 FROM vulns WHERE brief_id = ${id})`,
        ),
      )
      .returning(),
  );
  p.audits({ action: "brief.delete", target: { type: "brief", id }, organizationId: existing.organizationId }, { ifChanged: deleted });
  const reports = p.track<{ n: number }[]>(ctx.db.select({ n: count() }).from(vulns).where(eq(vulns.briefId, id)));
  const slugs = p.track<{ slug: string }[]>(directorySlugsOf(ctx.db, existing.organizationId));
  const policyPages = p.track<PolicyPublicKeys[]>(policiesOfBriefs(ctx, [existing.policyId]));
  for (const s of unlistStatements(
    ctx.db,
    { type: "Brief", id, organizationId: existing.organizationId },
    subquery`NOT EXISTS (SELECT 1 FROM briefs WHERE id = ${id})`,
  ))
    p.add(s);
  p.evicts((r) => staleOfBrief(deleted.of(r)[0], policyPages.of(r), slugs.of(r)));
  const { results } = await commit(ctx, p);
  const gone = deleted.of(results)[0];
  if (gone) return void (await ctx.catalog?.release([{ kind: "brief", name: gone.shortcode }]));
  const n = reports.of(results)[0]?.n ?? 0;
  throw new Unprocessable({
    detail: `${n} report(s) came through this brief, so it stays; unpublish it (published_at: null) to close it to new reports.`,
  });
}

/** A brief's change makes stale its page, its policy's page and files, and the directories listing its organization. */
function staleOfBrief(row: BriefRow | undefined, policyPages: PolicyPublicKeys[], slugs: { slug: string }[]): Stale {
  if (!row) return {};
  return { ...staleOfPolicies(policyPages), briefs: [row.shortcode], directories: slugs.map((s) => s.slug) };
}

// ---- The public read (no key) ------------------------------------------------------------------

export interface PublishedBrief {
  brief: BriefRow;
  organization: OrganizationRow;
  /** The brief's policy, only while it is published itself. */
  policy: PolicyRow | null;
  /** How its policy answered reports lately; null without a policy or before it has enough reports. */
  responsiveness: Responsiveness | null;
}

/**
 * One round trip: the brief if it is published now, with its organization and its policy, and that
 * policy's responsiveness. No key, no tenant.
 */
export async function findPublishedBrief(db: Db, shortcode: string, now: string): Promise<PublishedBrief | null> {
  // Three selects, not a join: D1 batch rows are keyed by column name, and the three tables share some.
  const ofBrief = (column: string) => subquery`(SELECT ${sql.raw(column)} FROM briefs WHERE shortcode = ${shortcode})`;
  const [briefRows, organizationRows, policyRows, counts, medians] = await db.batch([
    db
      .select()
      .from(briefs)
      .where(and(eq(briefs.shortcode, shortcode), isNotNull(briefs.publishedAt), lte(briefs.publishedAt, now))),
    db
      .select()
      .from(organizations)
      .where(sql`${organizations.id} = ${ofBrief("organization_id")}`),
    db
      .select()
      .from(policies)
      .where(sql`${policies.id} = ${ofBrief("policy_id")}`),
    ...responsivenessStatements(db, ofBrief("policy_id"), new Date(now)),
  ]);
  const [brief, organization, stored] = [briefRows[0], organizationRows[0], policyRows[0]];
  if (!brief || !organization) return null;
  const policy = stored && isPublished(stored.publishedAt, now) ? stored : null;
  const responsiveness = policy ? (responsivenessFrom({ counts, medians }).get(policy.id) ?? null) : null;
  return { brief, organization, policy, responsiveness };
}
