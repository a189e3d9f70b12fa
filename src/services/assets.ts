import { eq } from "drizzle-orm";
import { assets, type AssetRow } from "../db/schema";
import { ApiError, invalid } from "../http/errors";
import type { Page } from "../http/jsonapi";
import { checkAssetValue, type AssetKind } from "../lib/asset-values";
import { nowIso, uuidv7 } from "../lib/ids";
import { owningOrganization, tenantFilter, type ServiceContext } from "./context";
import { isForeignKeyViolation, isUniqueViolation, listPage, where, type Sort } from "./listing";
import { commit, Plan, type Responder } from "./unit-of-work";

export interface AssetInput {
  kind?: AssetKind;
  value?: string;
  short_description?: string | null;
}

const notFound = () => new ApiError("not_found", { detail: "No asset has that id." });

export function listAssets(ctx: ServiceContext, page: Page, sort?: Sort, filters: { kind?: string } = {}) {
  const filter = where(tenantFilter(ctx, assets.organizationId), filters.kind ? eq(assets.kind, filters.kind) : undefined);
  return listPage(ctx.db, assets, filter, sort, page);
}

export async function getAsset(ctx: ServiceContext, id: string): Promise<AssetRow> {
  const row = await ctx.db.select().from(assets).where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId))).get();
  if (!row) throw notFound();
  return row;
}

/** (organization, kind, value) is unique: the index says so inside the write, with no extra read. */
async function uniqueGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "assets.")) throw invalid("/data/attributes/value", "The organization already has an asset of this kind with this value.");
    if (isForeignKeyViolation(err)) throw invalid("/data/relationships/organization/data/id", "organization does not exist.");
    throw err;
  }
}

export async function createAsset(
  ctx: ServiceContext,
  input: Required<Pick<AssetInput, "kind" | "value">> & AssetInput,
  organizationId: string | undefined,
  respond: Responder<AssetRow>,
): Promise<AssetRow> {
  // Operators name the organization; its existence is checked by the foreign key inside the insert.
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
  await uniqueGuard(() => commit(ctx, new Plan(row).add(ctx.db.insert(assets).values(row)), respond));
  return row;
}

export async function updateAsset(ctx: ServiceContext, id: string, input: AssetInput): Promise<AssetRow> {
  const changes: Partial<AssetRow> = { updatedAt: nowIso() };
  if (input.short_description !== undefined) changes.shortDescription = input.short_description;
  if (input.kind !== undefined || input.value !== undefined) {
    // Changing one of kind and value re-checks the value against the kind it will have.
    const existing = input.kind !== undefined && input.value !== undefined ? null : await getAsset(ctx, id);
    const kind = (input.kind ?? existing!.kind) as AssetKind;
    const checked = checkAssetValue(kind, input.value ?? existing!.value);
    if (!checked.ok) throw invalid(input.value !== undefined ? "/data/attributes/value" : "/data/attributes/kind", checked.reason);
    changes.kind = kind;
    changes.value = checked.value;
  }
  const [row] = await uniqueGuard(() =>
    ctx.db.update(assets).set(changes).where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId))).returning(),
  );
  if (!row) throw notFound();
  return row;
}

export async function deleteAsset(ctx: ServiceContext, id: string): Promise<void> {
  const deleted = await ctx.db.delete(assets).where(where(eq(assets.id, id), tenantFilter(ctx, assets.organizationId))).returning({ id: assets.id });
  if (deleted.length === 0) throw notFound();
}

