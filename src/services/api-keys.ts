import { and, count, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../db";
import { apiKeys, organizations, type ApiKeyKind, type ApiKeyRow } from "../db/schema";
import { generateApiKey, sha256Hex } from "../lib/crypto";
import { nowIso, uuidv7 } from "../lib/ids";
import { ALL_SCOPES, actsForOrganization, type Scope } from "../lib/caller";
import { readersOf, owningOrganization, tenantFilter, type Caller, type ServiceContext } from "./context";
import { commit, Plan } from "./unit-of-work";
import { batchOf, isForeignKeyViolation, subquery, where } from "../db/queries";
import { listPage, ordering, pageStatements, type ListQuery } from "./list-pages";
import { InsufficientScope, Invalid, NotFound, attribute, relationship } from "../lib/domain-errors";
import { mayChange } from "./access";
import { auditStatement } from "./audit";
import { loggable } from "../lib/log";
import { withNames } from "./catalog";

/**
 * The one query behind every authenticated request, by the key's SHA-256 (hex). A revoked key and an
 * expired one are found alike (not at all), so a client cannot tell them apart; the expiry is compared
 * in the query, against the clock of the request.
 */
export async function findActiveKey(db: Db, hash: string): Promise<Caller | null> {
  const row = await db
    .select({
      id: apiKeys.id,
      kind: apiKeys.kind,
      organizationId: apiKeys.organizationId,
      name: apiKeys.name,
      scopes: apiKeys.scopes,
      expiresAt: apiKeys.expiresAt,
      lastUsedIp: apiKeys.lastUsedIp,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, nowIso()))))
    .get();
  return row
    ? {
        keyId: row.id,
        kind: row.kind,
        organizationId: row.organizationId,
        name: row.name,
        scopes: row.scopes ?? ALL_SCOPES,
        key: { expiresAt: row.expiresAt, lastUsedIp: row.lastUsedIp },
      }
    : null;
}

/** What a new key may do and until when: omitted scopes are all of them, an omitted expiry is none. */
export interface KeyTerms {
  name?: string | null;
  scopes?: readonly Scope[];
  expires_at?: string | null;
}

/** A new key record and the key itself, which exists only in this return value from now on. */
export async function newKeyRecord(kind: ApiKeyKind, organizationId: string | null, terms: KeyTerms = {}) {
  const key = generateApiKey();
  const now = nowIso();
  const record: ApiKeyRow = {
    id: uuidv7(),
    organizationId,
    kind,
    name: terms.name ?? null,
    keyHash: await sha256Hex(key),
    keyPrefix: key.slice(0, 8),
    revokedAt: null,
    // In the order of ALL_SCOPES, whatever order they were sent in; all of them stored as such.
    scopes: terms.scopes ? ALL_SCOPES.filter((s) => terms.scopes!.includes(s)) : null,
    expiresAt: terms.expires_at ?? null,
    lastUsedIp: null,
    createdAt: now,
    updatedAt: now,
  };
  return { key, record };
}

/**
 * The terms of a key the caller makes. A key of the organization's own (or a member) grants at most
 * what it holds: a scope beyond its own is refused as that scope missing, and a key that expires makes
 * keys that expire no later (by default, when it does). An operator grants anything.
 */
function grantedTerms(ctx: ServiceContext, terms: KeyTerms): KeyTerms {
  if (terms.expires_at && terms.expires_at <= nowIso()) throw Invalid.at(attribute("expires_at"), "must be in the future.");
  if (!actsForOrganization(ctx.caller)) return terms;
  const scopes = terms.scopes ?? ctx.caller.scopes;
  const beyond = scopes.find((s) => !ctx.caller.scopes.includes(s));
  if (beyond) throw new InsufficientScope(beyond);
  const limit = ctx.caller.key?.expiresAt ?? null;
  if (limit && terms.expires_at === null)
    throw Invalid.at(attribute("expires_at"), `must be at or before ${limit}, when this key expires.`);
  if (limit && terms.expires_at && terms.expires_at > limit) {
    throw Invalid.at(attribute("expires_at"), `must be at or before ${limit}, when this key expires.`);
  }
  return { ...terms, scopes, expires_at: terms.expires_at ?? limit };
}

async function insertKey(
  ctx: ServiceContext,
  { organizationId, terms }: { organizationId: string; terms: KeyTerms },
  missing: () => Error,
) {
  const { key, record } = await newKeyRecord("organization", organizationId, terms);
  const p = new Plan(record)
    .add(ctx.db.insert(apiKeys).values(record))
    .audits({ action: "api_key.create", target: { type: "api_key", id: record.id }, changed: changedTerms(terms), organizationId });
  try {
    await withNames(ctx, { organizationId, names: [{ kind: "api_key", name: record.keyHash }] }, () => commit(ctx, p, ctx.respond));
  } catch (err) {
    // The foreign key answers "does the organization exist" inside the insert: one round trip, not two.
    if (isForeignKeyViolation(err)) throw missing();
    throw err;
  }
  return { key, record };
}

const changedTerms = (terms: KeyTerms) => ["name", "scopes", "expires_at"].filter((m) => terms[m as keyof KeyTerms] !== undefined);

/** An operator makes a key for an organization (POST /v1/organizations/{id}/api_keys). */
export async function createOrganizationKey(ctx: ServiceContext, organizationId: string, terms: KeyTerms = {}) {
  const granted = grantedTerms(ctx, terms);
  return insertKey(ctx, { organizationId, terms: granted }, () => new NotFound("organization", "No organization has that id."));
}

/**
 * A key made by its organization (a key with the `members` scope, or an owner), or by an operator who
 * names the organization (POST /v1/api_keys).
 */
export async function createKey(ctx: ServiceContext, terms: KeyTerms, organizationId: string | undefined) {
  mayChange(ctx, "members");
  const owner = owningOrganization(ctx, organizationId, true);
  const granted = grantedTerms(ctx, terms);
  return insertKey(ctx, { organizationId: owner, terms: granted }, () =>
    Invalid.at(relationship("organization"), "organization does not exist."),
  );
}

const keyNotFound = () => new NotFound("api_key", "No API key has that id.");

/**
 * Revokes a key of the caller's organization (any key, an operator's included, for an operator). Doing
 * it again changes nothing; a key that does not exist (or is another organization's) is a 404.
 */
export async function revokeKey(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "members");
  const now = nowIso();
  const p = new Plan(null);
  const revoked = p.track<{ id: string; keyHash: string }[]>(
    ctx.db
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})`, updatedAt: now })
      .where(where(eq(apiKeys.id, id), tenantFilter(ctx, apiKeys.organizationId)))
      .returning({ id: apiKeys.id, keyHash: apiKeys.keyHash }),
  );
  const organizationId = subquery<string | null>`(SELECT ${apiKeys.organizationId} FROM ${apiKeys} WHERE ${apiKeys.id} = ${id})`;
  p.audits({ action: "api_key.revoke", target: { type: "api_key", id }, changed: ["revoked_at"], organizationId }, { ifChanged: revoked });
  const { results } = await commit(ctx, p);
  const keyHash = revoked.of(results)[0]?.keyHash;
  if (!keyHash) throw keyNotFound();
  // The key's shard refuses it from now on; the catalog forgets it too, so its next use costs no shard read.
  if (ctx.catalog && keyHash) await ctx.catalog.release([{ kind: "api_key", name: keyHash }]);
}

export async function getKey(ctx: ServiceContext, id: string): Promise<ApiKeyRow> {
  const row = await ctx.db
    .select()
    .from(apiKeys)
    .where(where(eq(apiKeys.id, id), tenantFilter(ctx, apiKeys.organizationId)))
    .get();
  if (!row) throw keyNotFound();
  return row;
}

/** The keys the caller may see: its organization's, or for an operator every key. */
export function listKeys(ctx: ServiceContext, { page, sort }: ListQuery) {
  return listPage(readersOf(ctx, { catalogToo: true }), apiKeys, { filter: tenantFilter(ctx, apiKeys.organizationId), sort, page });
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

/**
 * A key used from an address other than the one it was last used from: the key's row learns the new
 * address and the audit log says so, in one batch after the answer (ctx.defer). A request from the
 * same address costs nothing (the address came with the key's lookup); concurrent requests from a new
 * address write one audit row: it is chained on the update that changed the address (changes()).
 */
export function noteKeyUse(ctx: ServiceContext): void {
  const caller = ctx.caller;
  const ip = ctx.request?.ip;
  if (!ip || !caller.key || caller.key.lastUsedIp === ip || caller.kind === "member") return;
  const update = ctx.db
    .update(apiKeys)
    .set({ lastUsedIp: ip })
    .where(and(eq(apiKeys.id, caller.keyId), sql`${apiKeys.lastUsedIp} IS NOT ${ip}`));
  const audit = auditStatement(
    ctx,
    {
      action: "api_key.use_from_new_ip",
      target: { type: "api_key", id: caller.keyId },
      changed: ["last_used_ip"],
    },
    { ifPreviousChanged: true },
  );
  // Lost, the next request from the address notes it: nothing waits on this write.
  const noted = batchOf(ctx.db, [update, audit]).catch((err: unknown) => {
    console.error(JSON.stringify({ level: "error", message: "a key's use from a new address was not noted", ...loggable(err as Error) }));
  });
  ctx.defer(noted);
}
