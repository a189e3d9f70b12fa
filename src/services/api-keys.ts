import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db";
import { apiKeys, organizations, type ApiKeyKind, type ApiKeyRow } from "../db/schema";
import { generateApiKey, sha256Hex } from "../lib/crypto";
import { nowIso, uuidv7 } from "../lib/ids";
import { ALL_SCOPES } from "../lib/caller";
import type { Caller, ServiceContext } from "./context";
import { commit, Plan } from "./unit-of-work";
import { batchOf, isForeignKeyViolation, subquery } from "../db/queries";
import { ordering, pageStatements, type ListQuery } from "./list-pages";
import { NotFound } from "../lib/domain-errors";

/** The one query behind every authenticated request, by the key's SHA-256 (hex). */
export async function findActiveKey(db: Db, hash: string): Promise<Caller | null> {
  const row = await db
    .select({ id: apiKeys.id, kind: apiKeys.kind, organizationId: apiKeys.organizationId, name: apiKeys.name, scopes: apiKeys.scopes })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .get();
  return row
    ? { keyId: row.id, kind: row.kind, organizationId: row.organizationId, name: row.name, scopes: row.scopes ?? ALL_SCOPES }
    : null;
}

/** A new key record and the key itself, which exists only in this return value from now on. */
export async function newKeyRecord(kind: ApiKeyKind, organizationId: string | null, name: string | null) {
  const key = generateApiKey();
  const now = nowIso();
  const record: ApiKeyRow = {
    id: uuidv7(),
    organizationId,
    kind,
    name,
    keyHash: await sha256Hex(key),
    keyPrefix: key.slice(0, 8),
    revokedAt: null,
    scopes: null,
    expiresAt: null,
    lastUsedIp: null,
    createdAt: now,
    updatedAt: now,
  };
  return { key, record };
}

export async function createOrganizationKey(ctx: ServiceContext, organizationId: string, name: string | null) {
  const { key, record } = await newKeyRecord("organization", organizationId, name);
  try {
    const p = new Plan(record)
      .add(ctx.db.insert(apiKeys).values(record))
      .audits({ action: "api_key.create", target: { type: "api_key", id: record.id }, organizationId });
    await commit(ctx, p, ctx.respond);
  } catch (err) {
    // The foreign key answers "does the organization exist" inside the insert: one round trip, not two.
    if (isForeignKeyViolation(err)) throw new NotFound("organization", "No organization has that id.");
    throw err;
  }
  return { key, record };
}

/** Revoking is idempotent in effect; a key that does not exist is a 404. */
export async function revokeKey(ctx: ServiceContext, id: string): Promise<void> {
  const now = nowIso();
  const p = new Plan(null);
  const revoked = p.track<{ id: string }[]>(
    ctx.db
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})`, updatedAt: now })
      .where(eq(apiKeys.id, id))
      .returning({ id: apiKeys.id }),
  );
  const organizationId = subquery<string | null>`(SELECT ${apiKeys.organizationId} FROM ${apiKeys} WHERE ${apiKeys.id} = ${id})`;
  p.audits({ action: "api_key.revoke", target: { type: "api_key", id }, organizationId }, { ifChanged: revoked });
  const { results } = await commit(ctx, p);
  if (revoked.of(results).length === 0) throw new NotFound("api_key", "No API key has that id.");
}

export async function getKey(ctx: ServiceContext, id: string): Promise<ApiKeyRow> {
  const row = await ctx.db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
  if (!row) throw new NotFound("api_key", "No API key has that id.");
  return row;
}

/** One batch: whether the organization exists (a missing one is a 404, not an empty list), a page, the count. */
export async function listOrganizationKeys(ctx: ServiceContext, organizationId: string, { page, sort }: ListQuery) {
  const filter = eq(apiKeys.organizationId, organizationId);
  const list = pageStatements<ApiKeyRow>({
    ordering: ordering(apiKeys, sort),
    page,
    rows: ({ seek, order, limit, offset }) =>
      ctx.db
        .select()
        .from(apiKeys)
        .where(and(filter, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => ctx.db.select({ id: apiKeys.id }).from(apiKeys).where(and(filter, at)).limit(1),
    total: ctx.db.select({ total: count() }).from(apiKeys).where(filter),
  });
  const [org, ...results] = await batchOf(ctx.db, [
    ctx.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)),
    ...list.statements,
  ]);
  if ((org as unknown[]).length === 0) throw new NotFound("organization", "No organization has that id.");
  return list.read(results);
}
