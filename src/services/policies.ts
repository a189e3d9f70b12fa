import { actsForOrganization } from "../lib/caller";
import { responseTargetsOf, type TargetsInput } from "../lib/deadlines";
import { and, eq, getTableColumns } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { assets, briefs, organizations, policies, policyAssets, type Branding, type PolicyRow } from "../db/schema";
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
import { inList, insertChunks, where, whenRefused, subquery } from "../db/queries";
import { listPage, type ListQuery } from "./list-pages";
import { assignScopeIds, type ScopeAssetInput } from "./scopes";
import { type PolicyPublicKeys, policyPublicKeys, staleOfPolicies } from "./organization-files";
import { commit, Plan, readBatch } from "./unit-of-work";
import { sentMembers } from "./audit";
import { directorySlugsOf, unlistStatements } from "./public-directories";
import { nextVersionStatement } from "./policy-versions";
import { Conflict, Invalid, NotFound, relationship } from "../lib/domain-errors";
import { claimColumns, claimGuard, domainNames, NO_CLAIM } from "./custom-domain-claims";
import { withNames } from "./catalog";
import { mayChange } from "./access";

export interface PolicyInput {
  name?: string | null;
  short_description?: string | null;
  /** Markdown; text of only white space is stored as null. */
  body?: string | null;
  point_of_contact?: string | null;
  cvd_timeline?: number | null;
  safe_harbor?: string | null;
  offers_bounty?: boolean | null;
  offers_swag?: boolean | null;
  hall_of_fame?: boolean | null;
  contact_url?: string | null;
  securitytxt_url?: string | null;
  hosted_policy_url?: string | null;
  public_disclosure?: boolean | null;
  launch_date?: string | null;
  policy_url_status?: string | null;
  creation_mode?: string | null;
  hosting_mode?: string | null;
  custom_domain?: string | null;
  published_at?: string | null;
  branding?: Branding | null;
  /** Any member left out takes its default; null restores them all. */
  response_targets?: TargetsInput | null;
  in_scope_assets?: ScopeAssetInput[];
  out_of_scope_assets?: ScopeAssetInput[];
}

export interface PolicyLinks {
  organizationId?: string;
  assetIds?: string[];
}

/** A policy with the ids its to-many relationships need, read in the same query. */
export type PolicyRecord = PolicyRow & { briefIds: string[]; assetIds: string[] };

const relationshipColumns = {
  briefIdsJson: subquery<string>`(select json_group_array(${briefs.id}) from ${briefs} where ${briefs.policyId} = ${policies.id})`,
  assetIdsJson: subquery<string>`(select json_group_array(${policyAssets.assetId}) from ${policyAssets} where ${policyAssets.policyId}
    = ${policies.id})`,
};

function toRecord(row: PolicyRow & { briefIdsJson: string; assetIdsJson: string }): PolicyRecord {
  const { briefIdsJson, assetIdsJson, ...policy } = row;
  return { ...policy, briefIds: (JSON.parse(briefIdsJson) as string[]).sort(), assetIds: (JSON.parse(assetIdsJson) as string[]).sort() };
}

function selectPolicies(ctx: ServiceContext) {
  return ctx.db.select({ ...getTableColumns(policies), ...relationshipColumns }).from(policies);
}

export async function listPolicies(ctx: ServiceContext, { page, sort }: ListQuery) {
  const { rows, total } = await listPage(readersOf(ctx), policies, {
    filter: tenantFilter(ctx, policies.organizationId),
    sort,
    page,
    extraColumns: relationshipColumns,
  });
  return { rows: rows.map(toRecord), total };
}

export async function getPolicy(ctx: ServiceContext, id: string): Promise<PolicyRecord> {
  const row = await selectPolicies(ctx)
    .where(where(eq(policies.id, id), tenantFilter(ctx, policies.organizationId)))
    .get();
  if (!row) throw notFound();
  return toRecord(row);
}

const notFound = () => new NotFound("policy", "No policy has that id.");

function columnsOf(input: PolicyInput): Partial<PolicyRow> {
  const out: Partial<PolicyRow> = {};
  const map: [keyof PolicyInput, keyof PolicyRow][] = [
    ["name", "name"],
    ["short_description", "shortDescription"],
    ["point_of_contact", "pointOfContact"],
    ["cvd_timeline", "cvdTimeline"],
    ["safe_harbor", "safeHarbor"],
    ["offers_bounty", "offersBounty"],
    ["offers_swag", "offersSwag"],
    ["hall_of_fame", "hallOfFame"],
    ["contact_url", "contactUrl"],
    ["securitytxt_url", "securitytxtUrl"],
    ["hosted_policy_url", "hostedPolicyUrl"],
    ["public_disclosure", "publicDisclosure"],
    ["launch_date", "launchDate"],
    ["policy_url_status", "policyUrlStatus"],
    ["creation_mode", "creationMode"],
    ["hosting_mode", "hostingMode"],
    ["custom_domain", "customDomain"],
    ["published_at", "publishedAt"],
    ["branding", "branding"],
  ];
  for (const [from, to] of map) if (input[from] !== undefined) (out as Record<string, unknown>)[to] = input[from];
  if (input.body !== undefined) out.body = input.body?.trim() ? input.body : null;
  // Kept whole, so what a policy promises never changes with the defaults.
  if (input.response_targets !== undefined)
    out.responseTargets = input.response_targets === null ? null : responseTargetsOf(input.response_targets);
  return out;
}

/**
 * Everything a write must check, read in one round trip: the policy itself and whether its
 * organization is claimed (updates), whether the named organization exists and is claimed (operator
 * creates), and which of the named assets exist and whose they are.
 */
export async function readForWrite(ctx: ServiceContext, opts: { policyId?: string; organizationId?: string; assetIds: string[] }) {
  const [policyRows, orgRows, assetRows] = await readBatch(ctx, [
    ctx.db
      .select({ ...getTableColumns(policies), ...relationshipColumns, ownerClaimed: ownerClaimed(policies.organizationId) })
      .from(policies)
      .where(where(eq(policies.id, opts.policyId ?? ""), tenantFilter(ctx, policies.organizationId))),
    ctx.db
      .select({ claimed: organizations.claimed })
      .from(organizations)
      .where(eq(organizations.id, opts.organizationId ?? "")),
    ctx.db
      .select({ id: assets.id, organizationId: assets.organizationId })
      .from(assets)
      .where(where(inList(assets.id, opts.assetIds), tenantFilter(ctx, assets.organizationId))),
  ]);
  const { ownerClaimed: claimed, ...found } = policyRows[0] ?? { ownerClaimed: undefined };
  return { existing: "id" in found ? toRecord(found) : null, ownerClaimed: claimed, organization: orgRows[0] ?? null, assetRows };
}

/**
 * The answer to a write the database refused (see whenRefused): an asset named in it, or the
 * organization, went away after the first read. Read again to name the member; if everything is
 * still there, the race was lost to something else and a retry may succeed.
 */
async function refusedLinks(ctx: ServiceContext, opts: { organizationId?: string; assetIds: string[] }, owner: string): Promise<never> {
  const again = await readForWrite(ctx, opts);
  if (opts.organizationId !== undefined) owningUnclaimed(ctx, "policies", { requested: opts.organizationId, found: again.organization });
  assertAssetsOwned(opts.assetIds, again.assetRows, owner);
  throw new Conflict("Something this policy depends on changed while the request ran; read it again and retry.");
}

/** Unknown and foreign asset ids answer alike: 422 at their entry of the relationship. */
function assertAssetsOwned(assetIds: string[], assetRows: { id: string; organizationId: string }[], organizationId: string): void {
  const owned = new Set(assetRows.filter((a) => a.organizationId === organizationId).map((a) => a.id));
  const problems = assetIds.flatMap((id, i) =>
    owned.has(id) ? [] : [{ detail: "asset does not exist.", source: { member: relationship("assets", { entry: i }) } }],
  );
  if (problems.length) throw new Invalid(problems);
}

function linkStatements(ctx: ServiceContext, policyId: string, assetIds: string[] | undefined): BatchItem<"sqlite">[] {
  if (assetIds === undefined) return [];
  const unique = [...new Set(assetIds)];
  return [
    ctx.db.delete(policyAssets).where(eq(policyAssets.policyId, policyId)),
    ...insertChunks(unique.map((assetId) => ({ policyId, assetId }))).map((rows) => ctx.db.insert(policyAssets).values(rows)),
  ];
}

export async function createPolicy(ctx: ServiceContext, input: PolicyInput, links: PolicyLinks) {
  mayChange(ctx, "settings");
  const assetIds = links.assetIds ?? [];
  let organizationId: string;
  if (assetIds.length === 0 && actsForOrganization(ctx.caller)) {
    organizationId = owningOrganization(ctx, links.organizationId, undefined);
  } else {
    const read = await readForWrite(ctx, { organizationId: links.organizationId, assetIds });
    organizationId = owningUnclaimed(ctx, "policies", { requested: links.organizationId, found: read.organization });
    assertAssetsOwned(assetIds, read.assetRows, organizationId);
  }
  const now = nowIso();
  const row: PolicyRow = {
    id: uuidv7(),
    organizationId,
    name: null,
    shortDescription: null,
    body: null,
    pointOfContact: null,
    cvdTimeline: null,
    safeHarbor: null,
    offersBounty: null,
    offersSwag: null,
    hallOfFame: null,
    contactUrl: null,
    securitytxtUrl: null,
    hostedPolicyUrl: null,
    publicDisclosure: null,
    launchDate: null,
    policyUrlStatus: null,
    creationMode: null,
    hostingMode: null,
    ...NO_CLAIM,
    publishedAt: null,
    branding: null,
    responseTargets: null,
    ...columnsOf(input),
    ...claimColumns(input.custom_domain, null, now),
    shortcode: shortcode(),
    inScopeAssets: assignScopeIds(input.in_scope_assets ?? []),
    outOfScopeAssets: assignScopeIds(input.out_of_scope_assets ?? []),
    createdAt: now,
    updatedAt: now,
  };
  const record: PolicyRecord = { ...row, briefIds: [], assetIds: [...new Set(links.assetIds ?? [])].sort() };
  const p = new Plan(record)
    .add(ctx.db.insert(policies).values({ ...row, organizationId: ownerValue(ctx, organizationId) }))
    .audits({ action: "policy.create", target: { type: "policy", id: row.id }, organizationId });
  for (const statement of linkStatements(ctx, row.id, links.assetIds)) p.add(statement);
  // Its terms as created are version 1.
  p.add((await nextVersionStatement(ctx.db, row, { now })).statement);
  // A published policy can change the organization's rating in the directories that list it.
  const listedIn = p.track<{ slug: string }[]>(directorySlugsOf(ctx.db, organizationId));
  // A published policy may become what its organization's security.txt speaks for.
  const keys = p.track<PolicyPublicKeys[]>(policyPublicKeys(ctx.db, eq(policies.id, row.id)));
  p.evicts((r) => ({ ...staleOfPolicies(keys.of(r)), directories: listedIn.of(r).map((s) => s.slug) }));
  // A sharded deployment claims the shortcode and the custom domain across shards first.
  const names = [{ kind: "policy" as const, name: row.shortcode }, ...domainNames(row.customDomain)];
  await claimGuard(() =>
    withNames(ctx, { organizationId, names }, () =>
      whenRefused(
        () => commit(ctx, p, ctx.respond),
        () => refusedLinks(ctx, { organizationId: actsForOrganization(ctx.caller) ? undefined : organizationId, assetIds }, organizationId),
      ),
    ),
  );
  return record;
}

/**
 * Reads the policy and checks new links in one round trip, then writes in one batch, which also reads
 * the briefs that show this policy and the directories that list its organization: their public reads
 * are evicted.
 */
export async function updatePolicy(ctx: ServiceContext, id: string, { input, links }: { input: PolicyInput; links: PolicyLinks }) {
  mayChange(ctx, "settings");
  const read = await readForWrite(ctx, { policyId: id, assetIds: links.assetIds ?? [] });
  const existing = read.existing;
  if (!existing) throw notFound();
  assertOperatorMayChange(ctx, read.ownerClaimed, "policies");
  assertAssetsOwned(links.assetIds ?? [], read.assetRows, existing.organizationId);
  const now = nowIso();
  const changes: Partial<PolicyRow> = { ...columnsOf(input), ...claimColumns(input.custom_domain, existing, now), updatedAt: now };
  if (input.in_scope_assets) changes.inScopeAssets = assignScopeIds(input.in_scope_assets, existing.inScopeAssets);
  if (input.out_of_scope_assets) changes.outOfScopeAssets = assignScopeIds(input.out_of_scope_assets, existing.outOfScopeAssets);
  const { briefIds: _briefs, assetIds: _assets, ...existingRow } = existing;
  // The next version is made from the row as this change leaves it, so the update must find the row
  // as it was read (its updated_at): a change that landed in between makes this one a conflict.
  const { statement: version } = await nextVersionStatement(ctx.db, { ...existingRow, ...changes }, { now, ifPreviousChanged: true });
  const p = new Plan(null);
  const updated = p.track<PolicyRow[]>(
    ctx.db
      .update(policies)
      .set(changes)
      .where(and(eq(policies.id, id), eq(policies.organizationId, existing.organizationId), eq(policies.updatedAt, existing.updatedAt)))
      .returning(),
  );
  // Right after the update, chained on it (the audit row, which is chained on it too, answers changes() alike).
  p.audits(
    {
      action: "policy.update",
      target: { type: "policy", id },
      changed: sentMembers({ ...input, assets: links.assetIds }),
      organizationId: existing.organizationId,
    },
    { ifChanged: updated },
  );
  // Nothing is versioned unless the row changed.
  p.add(version);
  for (const statement of linkStatements(ctx, id, links.assetIds)) p.add(statement);
  const shortcodes = p.track<{ shortcode: string }[]>(
    ctx.db.select({ shortcode: briefs.shortcode }).from(briefs).where(eq(briefs.policyId, id)),
  );
  const slugs = p.track<{ slug: string }[]>(directorySlugsOf(ctx.db, existing.organizationId));
  const keys = p.track<PolicyPublicKeys[]>(policyPublicKeys(ctx.db, eq(policies.id, id)));
  p.evicts((r) => ({
    // The custom domain it had answers no more (or for another policy).
    ...staleOfPolicies(keys.of(r), [existing.customDomain]),
    briefs: shortcodes.of(r).map((s) => s.shortcode),
    directories: slugs.of(r).map((s) => s.slug),
  }));
  // A new custom domain is claimed across shards first (a sharded deployment); the one it replaces goes back once this commits.
  const named = changes.customDomain !== undefined && changes.customDomainToken !== undefined;
  const { results } = await claimGuard(() =>
    withNames(ctx, { organizationId: existing.organizationId, names: named ? domainNames(changes.customDomain) : [] }, () =>
      whenRefused(
        () => commit(ctx, p),
        () => refusedLinks(ctx, { assetIds: links.assetIds ?? [] }, existing.organizationId),
      ),
    ),
  );
  const row = updated.of(results)[0];
  if (!row) {
    const still = await ctx.db.select({ id: policies.id }).from(policies).where(eq(policies.id, id)).get();
    if (still) throw new Conflict("The policy changed while this request ran; read it again and retry.");
    throw notFound();
  }
  if (named && ctx.catalog) await ctx.catalog.release(domainNames(existing.customDomain));
  return { ...row, briefIds: existing.briefIds, assetIds: [...new Set(links.assetIds ?? existing.assetIds)].sort() } satisfies PolicyRecord;
}

export async function deletePolicy(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "settings");
  const existing = await ctx.db
    .select({
      organizationId: policies.organizationId,
      shortcode: policies.shortcode,
      customDomain: policies.customDomain,
      claimed: ownerClaimed(policies.organizationId),
    })
    .from(policies)
    .where(where(eq(policies.id, id), tenantFilter(ctx, policies.organizationId)))
    .get();
  if (!existing) throw notFound();
  assertOperatorMayChange(ctx, existing.claimed, "policies");
  const p = new Plan(null);
  const shortcodes = p.track<{ shortcode: string }[]>(
    ctx.db.select({ shortcode: briefs.shortcode }).from(briefs).where(eq(briefs.policyId, id)),
  );
  const keys = p.track<PolicyPublicKeys[]>(policyPublicKeys(ctx.db, eq(policies.id, id)));
  const slugs = p.track<{ slug: string }[]>(directorySlugsOf(ctx.db, existing.organizationId));
  const deleted = p.track<{ id: string }[]>(
    ctx.db
      .delete(policies)
      .where(and(eq(policies.id, id), eq(policies.organizationId, existing.organizationId)))
      .returning({ id: policies.id }),
  );
  p.audits({ action: "policy.delete", target: { type: "policy", id }, organizationId: existing.organizationId }, { ifChanged: deleted });
  for (const statement of unlistStatements(ctx.db, { type: "Policy", id, organizationId: existing.organizationId })) p.add(statement);
  p.evicts((r) => ({
    ...staleOfPolicies(keys.of(r)),
    briefs: shortcodes.of(r).map((s) => s.shortcode),
    directories: slugs.of(r).map((s) => s.slug),
  }));
  const { results } = await commit(ctx, p);
  if (deleted.of(results).length === 0) throw notFound();
  await ctx.catalog?.release([{ kind: "policy", name: existing.shortcode }, ...domainNames(existing.customDomain)]);
}
