import { and, eq, gt, inArray, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { members, organizations, passkeys, sessions, signInLinks, type MemberRole } from "../db/schema";
import { whenRefused } from "../db/queries";
import { ROLE_SCOPES, type Caller } from "../lib/caller";
import { randomSecret, sha256Hex } from "../lib/crypto";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import { ANY_BROWSER } from "../lib/seed-links";
import type { ServiceContext } from "./context";
import { auditActor } from "./audit";
import { findSignInLink, organizationName, recordSignInFailure, type LinkState, type SigningMember } from "./sign-in";
import { commit, Plan } from "./unit-of-work";
import { named, withNames } from "./catalog";

// A signed-in browser: its cookie holds 256 random bits, the database their SHA-256. It ends after
// LIMITS.sessionIdleHours unused, LIMITS.sessionDays after it began, or when revoked (sign-out, an
// owner's revocation, the member's removal or new role); the door reads all of that in its one query.

const HOUR_MS = 3_600_000;
/** How stale `last_seen_at` may get before a request writes it again: no write per request. */
export const SEEN_REFRESH_MS = 5 * 60_000;

/** The session the door found, with the member it signs in as they are now. */
export interface OpenSession {
  id: string;
  lastSeenAt: string;
  organizationName: string;
  caller: Caller & { organizationId: string; member: { id: string; role: MemberRole } };
  email: string;
}

/**
 * The door's one query (a join of the session and its member, like the API key's lookup): a live
 * session by its secret's SHA-256, or null for an unknown, revoked, idle or expired one.
 */
export async function findSession(db: Db, tokenHash: string, now = Date.now()): Promise<OpenSession | null> {
  const row = await db
    .select({
      id: sessions.id,
      lastSeenAt: sessions.lastSeenAt,
      organizationId: members.organizationId,
      organizationName,
      memberId: members.id,
      role: members.role,
      name: members.name,
      email: members.email,
    })
    .from(sessions)
    .innerJoin(members, eq(members.id, sessions.memberId))
    .innerJoin(organizations, eq(organizations.id, members.organizationId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, new Date(now).toISOString()),
        gt(sessions.lastSeenAt, new Date(now - LIMITS.sessionIdleHours * HOUR_MS).toISOString()),
      ),
    )
    .get();
  if (!row) return null;
  return {
    id: row.id,
    lastSeenAt: row.lastSeenAt,
    organizationName: row.organizationName,
    email: row.email,
    caller: {
      keyId: row.id,
      kind: "member",
      organizationId: row.organizationId,
      scopes: ROLE_SCOPES[row.role],
      name: row.name ?? row.email,
      member: { id: row.memberId, role: row.role },
    },
  };
}

/** Moves a session's idle expiry on, if its last sighting is older than SEEN_REFRESH_MS; never revives a revoked one. */
export async function touchSession(db: Db, session: Pick<OpenSession, "id" | "lastSeenAt">, now = Date.now()): Promise<void> {
  if (Date.parse(session.lastSeenAt) > now - SEEN_REFRESH_MS) return;
  const at = new Date(now).toISOString();
  await db
    .update(sessions)
    .set({ lastSeenAt: at })
    .where(and(eq(sessions.id, session.id), isNull(sessions.revokedAt), lt(sessions.lastSeenAt, at)));
}

/** A new session's secret (for the cookie only), its id, and its SHA-256 (what the door looks it up by). */
export interface StartedSession {
  secret: string;
  id: string;
  tokenHash: string;
  organizationId: string;
}

/**
 * The statements that start a session for `member`: the session, the member's last sign-in (and its
 * joining, if this is its first: a sign-in from the invitation's address proves it), and its audit.
 * `guard` is SQL that is true when the credential was just spent by the statement before (a link
 * marked used, a passkey's counter moved); otherwise the session's member is NULL and the database
 * refuses the whole batch.
 */
export async function sessionPlan(
  ctx: ServiceContext,
  plan: Plan<null>,
  how: { member: SigningMember; method: "email_link" | "passkey"; guard: SQL },
): Promise<StartedSession> {
  const { member } = how;
  const secret = randomSecret();
  const id = uuidv7();
  const now = Date.now();
  const at = new Date(now).toISOString();
  const tokenHash = await sha256Hex(secret);
  plan
    .add(
      ctx.db.insert(sessions).values({
        id,
        tokenHash,
        memberId: sql`CASE WHEN ${how.guard} THEN ${member.id} END`,
        organizationId: member.organizationId,
        method: how.method,
        ip: ctx.request?.ip ?? null,
        userAgent: ctx.request?.userAgent?.slice(0, 500) ?? null,
        lastSeenAt: at,
        expiresAt: new Date(now + LIMITS.sessionDays * 24 * HOUR_MS).toISOString(),
        revokedAt: null,
        createdAt: at,
      }),
    )
    .add(
      ctx.db
        .update(members)
        .set({ lastSignInAt: at, joinedAt: sql`coalesce(${members.joinedAt}, ${at})`, updatedAt: at })
        .where(eq(members.id, member.id)),
    );
  const caller: Caller = {
    keyId: id,
    kind: "member",
    organizationId: member.organizationId,
    scopes: ROLE_SCOPES[member.role],
    name: member.name ?? member.email,
    member: { id: member.id, role: member.role },
  };
  const actor = { actor: auditActor(caller), organizationId: member.organizationId };
  plan.audits({ action: "session.create", target: { type: "session", id }, ...actor });
  if (member.joinedAt === null)
    plan.audits({ action: "member.join", target: { type: "member", id: member.id }, changed: ["joined_at"], ...actor });
  return { secret, id, tokenHash, organizationId: member.organizationId };
}

/**
 * Commits the plan that starts `session`. In a sharded deployment its SHA-256 is claimed in the catalog
 * first, where the door finds its shard; the claim goes back if the plan is refused.
 */
export function commitSession(ctx: ServiceContext, plan: Plan<null>, session: StartedSession) {
  return withNames(ctx, { organizationId: session.organizationId, names: [named.session(session.tokenHash)] }, () => commit(ctx, plan));
}

export type LinkSignIn =
  | { ok: true; session: StartedSession }
  | { ok: false; state: Exclude<LinkState, "valid"> | "unknown"; retryAfter: number; member?: SigningMember };

/**
 * Signs in with a link: one conditional write marks it used (unused, unexpired, this browser's: two
 * requests with one link cannot both pass) and the session starts in the same batch. Anything else
 * is a failure, counted and, where the link names a member, audited.
 */
export async function signInWithLink(
  ctx: ServiceContext,
  link: { token: string; browserHash: string | null; anyBrowser: boolean; ip: string },
): Promise<LinkSignIn> {
  const found = await findSignInLink(ctx.db, link.token, { hash: link.browserHash, anyBrowser: link.anyBrowser });
  if (found?.state !== "valid") {
    const retryAfter = await recordSignInFailure(ctx, { ip: link.ip, ...(found && { member: found.member }) });
    if (!found) return { ok: false, state: "unknown", retryAfter };
    return { ok: false, state: found.state as Exclude<LinkState, "valid">, retryAfter, member: found.member };
  }
  const at = nowIso();
  const browsers = [link.browserHash ?? "", ...(link.anyBrowser ? [ANY_BROWSER] : [])];
  const plan = new Plan(null).add(
    ctx.db
      .update(signInLinks)
      .set({ usedAt: at })
      .where(
        and(
          eq(signInLinks.tokenHash, await sha256Hex(link.token)),
          isNull(signInLinks.usedAt),
          gt(signInLinks.expiresAt, at),
          inArray(signInLinks.browserHash, browsers),
        ),
      ),
  );
  const session = await sessionPlan(ctx, plan, { member: found.member, method: "email_link", guard: sql`changes() > 0` });
  return whenRefused<LinkSignIn>(
    async () => {
      await commitSession(ctx, plan, session);
      return { ok: true, session };
    },
    // Another request used the link first.
    async () => ({
      ok: false,
      state: "used",
      member: found.member,
      retryAfter: await recordSignInFailure(ctx, { ip: link.ip, member: found.member }),
    }),
  );
}

/** Signs the caller's browser out: its session ends now, for every later request (and leaves the catalog). */
export async function endSession(ctx: ServiceContext): Promise<void> {
  const at = nowIso();
  const p = new Plan(null);
  const ended = p.track<{ tokenHash: string }[]>(
    ctx.db
      .update(sessions)
      .set({ revokedAt: at })
      .where(and(eq(sessions.id, ctx.caller.keyId), isNull(sessions.revokedAt)))
      .returning({ tokenHash: sessions.tokenHash }),
  );
  const { results } = await commit(ctx, p.audits({ action: "session.revoke", target: { type: "session", id: ctx.caller.keyId } }));
  await forgetSessions(ctx, ended.of(results));
}

/** Gives ended sessions' names back to the catalog of a sharded deployment (the shard refuses them already). */
export async function forgetSessions(ctx: ServiceContext, ended: readonly { tokenHash: string }[]): Promise<void> {
  await ctx.catalog?.release(ended.map((s) => named.session(s.tokenHash)));
}

/**
 * What a member's removal takes from a sharded deployment's catalog: the member, and its sessions (live or
 * ended) and passkeys, which go with it (cascade), read in the removal's batch before its delete (nothing
 * in a one-database deployment). `forget` once the batch has committed.
 */
export function memberNames(ctx: ServiceContext, plan: Plan<null>, memberId: string) {
  const catalog = ctx.catalog;
  if (!catalog) return { forget: async (_: unknown[]) => {} };
  const ended = plan.track<{ tokenHash: string }[]>(
    ctx.db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.memberId, memberId)),
  );
  const keys = plan.track<{ id: string }[]>(ctx.db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.memberId, memberId)));
  return {
    forget: (results: unknown[]) =>
      catalog.release([
        named.member(memberId),
        ...ended.of(results).map((s) => named.session(s.tokenHash)),
        ...keys.of(results).map((k) => named.passkey(k.id)),
      ]),
  };
}
