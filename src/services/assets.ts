import { actsForOrganization } from "../lib/caller";
import { and, eq, getTableColumns } from "drizzle-orm";
import { assets, organizations, vulnAssets, type AssetRow } from "../db/schema";
import { checkAssetValue, type AssetKind } from "../lib/asset-values";
import { nowIso, uuidv7 } from "../lib/ids";
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
import { isUniqueViolation, where, whenRefused } from "../db/queries";
import { listPage, type ListQuery } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { sentMembers } from "./audit";
import { touchVulns } from "./vulns/update";
import { Conflict, Invalid, NotFound, attribute } from "../lib/domain-errors";
import { mayChange } from "./access";

export interface AssetInput {
  kind?: AssetKind;
  value?: string;
  short_description?: string | null;
}

const notFound = () => new NotFound("asset", "No asset has that id.");

export function listAssets(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { kind?: string }) {
  const filter = where(tenantFilter(ctx, assets.organizationId), filters.kind ? eq(assets.kind, filters.kind) : undefined);
  return listPage(readersOf(ctx), assets, { filter, sort, page });
}

export async function getAsset(ctx: ServiceContext, id: string): Promise<AssetRow> {
  const row = await ctx.db
    .select()
    .from(assets)
    .where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId)))
    .get();
  if (!row) throw notFound();
  return row;
}

/** (organization, kind, value) is unique: the index says so inside the write, with no extra read. */
async function uniqueGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "assets."))
      throw Invalid.at(attribute("value"), "The organization already has an asset of this kind with this value.");
    throw err;
  }
}

export async function createAsset(
  ctx: ServiceContext,
  input: Required<Pick<AssetInput, "kind" | "value">> & AssetInput,
  organizationId: string | undefined,
): Promise<AssetRow> {
  mayChange(ctx, "settings");
  // Operators name the organization; that it exists unclaimed is checked inside the insert (ownerValue),
  // so this costs no read of its own, and only a refused insert reads the organization, to say why.
  const owner = owningOrganization(ctx, organizationId, ctx.caller.kind === "operator" ? true : undefined);
  const now = nowIso();
  const row: AssetRow = {
    id: uuidv7(),
    organizationId: owner,
    kind: input.kind,
    value: input.value,
    shortDescription: input.short_description ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const insert = ctx.db.insert(assets).values({ ...row, organizationId: ownerValue(ctx, owner) });
  await uniqueGuard(() =>
    whenRefused(
      () =>
        commit(
          ctx,
          new Plan(row).add(insert).audits({ action: "asset.create", target: { type: "asset", id: row.id }, organizationId: owner }),
          ctx.respond,
        ),
      () => refusedOwner(ctx, owner),
    ),
  );
  return row;
}

async function refusedOwner(ctx: ServiceContext, organizationId: string): Promise<never> {
  const org = await ctx.db.select({ claimed: organizations.claimed }).from(organizations).where(eq(organizations.id, organizationId)).get();
  owningUnclaimed(ctx, "assets", { requested: organizationId, found: org ?? null });
  throw new Conflict("The organization changed while this request ran; retry.");
}

/** The asset, whether its organization is claimed, and the vulns it is a domain of, in one round trip. */
async function readWithVulns(ctx: ServiceContext, id: string) {
  const [rows, linked] = await readBatch(ctx, [
    ctx.db
      .select({ ...getTableColumns(assets), ownerClaimed: ownerClaimed(assets.organizationId) })
      .from(assets)
      .where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId))),
    ctx.db
      .select({ vulnId: vulnAssets.vulnId })
      .from(vulnAssets)
      .innerJoin(assets, eq(assets.id, vulnAssets.assetId))
      .where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId))),
  ]);
  if (!rows[0]) throw notFound();
  const { ownerClaimed: claimed, ...row } = rows[0];
  assertOperatorMayChange(ctx, claimed, "assets");
  return { row, vulnIds: linked.map((l) => l.vulnId) };
}

/**
 * Updates an asset. Its kind and value are part of the payloads of the vulns it is a domain of, so
 * changing them moves those vulns too, with Vuln::Updated, in the same batch.
 */
export async function updateAsset(ctx: ServiceContext, id: string, input: AssetInput): Promise<AssetRow> {
  mayChange(ctx, "settings");
  const now = nowIso();
  const changes: Partial<AssetRow> = { updatedAt: now };
  if (input.short_description !== undefined) changes.shortDescription = input.short_description;
  const audit = { action: "asset.update", target: { type: "asset", id }, changed: sentMembers(input) };
  if (input.kind === undefined && input.value === undefined && actsForOrganization(ctx.caller)) {
    // No read first: the organization's own asset or none. (An operator reads first: the rule on
    // claimed organizations, and the organization its audit row goes to.)
    const p = new Plan(null);
    const rows = p.track<AssetRow[]>(
      ctx.db
        .update(assets)
        .set(changes)
        .where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId)))
        .returning(),
    );
    const { results } = await commit(ctx, p.audits(audit, { ifChanged: rows }));
    const row = rows.of(results)[0];
    if (row) return row;
    throw notFound();
  }
  const { row: existing, vulnIds } = await readWithVulns(ctx, id);
  // Changing one of kind and value re-checks the value against the kind it will have.
  const kind = (input.kind ?? existing.kind) as AssetKind;
  const checked = checkAssetValue(kind, input.value ?? existing.value);
  if (!checked.ok) throw Invalid.at(input.value !== undefined ? attribute("value") : attribute("kind"), checked.reason);
  changes.kind = kind;
  changes.value = checked.value;
  const next: AssetRow = { ...existing, ...changes };
  const p = new Plan(next);
  const updated = p.track(
    ctx.db
      .update(assets)
      .set(changes)
      .where(and(eq(assets.id, id), eq(assets.organizationId, existing.organizationId))),
  );
  p.audits({ ...audit, organizationId: existing.organizationId }, { ifChanged: updated });
  if (kind !== existing.kind || checked.value !== existing.value) touchVulns(ctx, p, { vulnIds, now });
  await uniqueGuard(() => commit(ctx, p));
  return next;
}

/** Deletes an asset; the vulns it was a domain of lose it, with Vuln::Updated, in the same batch. */
export async function deleteAsset(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "settings");
  const { row, vulnIds } = await readWithVulns(ctx, id);
  const p = new Plan(row);
  const deleted = p.track(ctx.db.delete(assets).where(and(eq(assets.id, id), eq(assets.organizationId, row.organizationId))));
  p.audits({ action: "asset.delete", target: { type: "asset", id }, organizationId: row.organizationId }, { ifChanged: deleted });
  touchVulns(ctx, p, { vulnIds, now: nowIso() });
  await commit(ctx, p);
}
