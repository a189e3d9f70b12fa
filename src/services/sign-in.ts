import { and, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "../db";
import { catalogNames, members, organizations, signInFailures, signInLinks, webauthnChallenges, type MemberRole } from "../db/schema";
import { batchOf, subquery } from "../db/queries";
import { sha256Hex } from "../lib/crypto";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import type { AuditActor } from "./audit";
import { ANY_BROWSER } from "../lib/seed-links";
import type { ServiceContext } from "./context";
import { commit, Plan } from "./unit-of-work";

// Signing in by an e-mailed link, and the budget every sign-in request is counted against. A request
// for a link is answered the same way whether the address belongs to a member or not, and is counted
// either way (per address and per client IP, as SHA-256s): a budget spent only by strangers would tell
// them apart. A link works once, for 15 minutes, in the browser that asked for it (the SHA-256 of that
// browser's short-lived cookie is kept with it).

export const HOUR_MS = 3_600_000;

/** What the budget is counted by: the lower-cased address and the client IP, each as its SHA-256. */
export const addressSubject = (email: string) => sha256Hex(email.trim().toLowerCase());
export const ipSubject = (ip: string) => sha256Hex(`ip:${ip}`);

/** A member as signing in sees it. */
export interface SigningMember {
  id: string;
  organizationId: string;
  organization: string;
  email: string;
  name: string | null;
  role: MemberRole;
  joinedAt: string | null;
}

/**
 * Whoever names a member without having signed in (asks for its link, fails to sign in as it): no
 * powers at all (the request stays public), named in the audit log by the member it claimed to be.
 */
export function claimant(member: SigningMember): AuditActor {
  return { type: "member", id: member.id, name: member.name ?? member.email };
}

/** The organization's name, aliased: a batch's rows are keyed by column name, and members have a `name` too. */
export const organizationName = sql<string>`${organizations.name}`.as("organization_name");

/** The member a sign-in signs in, as its reads select it (by link, by passkey, by address). */
export const signingMember = {
  id: members.id,
  organizationId: members.organizationId,
  organization: organizationName,
  email: members.email,
  name: members.name,
  role: members.role,
  joinedAt: members.joinedAt,
};

/**
 * Per subject, the time of its LIMITS.signInRequestsPerHour-th newest request of the last hour: null
 * while under the budget; otherwise the budget frees an hour after it.
 */
export function budgetOf(db: Db, subject: string, since: string) {
  return db
    .select({ at: signInFailures.at })
    .from(signInFailures)
    .where(and(eq(signInFailures.subject, subject), gt(signInFailures.at, since)))
    .orderBy(desc(signInFailures.at))
    .limit(1)
    .offset(LIMITS.signInRequestsPerHour - 1);
}

/** Seconds until every subject is under the budget again; 0 if they are. */
export function retryAfter(fullAt: readonly ({ at: string }[] | undefined)[], now: number): number {
  const frees = fullAt.flatMap((rows) => (rows?.[0] ? [Date.parse(rows[0].at) + HOUR_MS] : []));
  return frees.length ? Math.max(1, Math.ceil((Math.max(...frees) - now) / 1000)) : 0;
}

/** Seconds until the subjects are under the budget again; 0 if they are now. */
export async function budgetWait(db: Db, subjects: readonly string[], now = Date.now()): Promise<number> {
  const since = new Date(now - HOUR_MS).toISOString();
  const reads = subjects.map((s) => budgetOf(db, s, since));
  const results = (await db.batch(reads as [(typeof reads)[number], ...typeof reads])) as { at: string }[][];
  return retryAfter(results, now);
}

/**
 * One counted request of `subject`. The first of a request's rows carries the guard: its subject is
 * NULL (refused, and the whole batch with it) unless every subject is under the budget as the batch
 * runs, so concurrent requests cannot pass it together.
 */
export function counted(
  db: Db,
  { subject, at, guard }: { subject: string; at: string; guard?: { subjects: readonly string[]; since: string } },
) {
  if (!guard) return db.insert(signInFailures).values({ id: uuidv7(), subject, at });
  const under = guard.subjects.map(
    (s) =>
      subquery`(SELECT count(*) FROM ${signInFailures} f WHERE f.subject = ${s} AND f.at > ${guard.since}) < ${LIMITS.signInRequestsPerHour}`,
  );
  return db
    .insert(signInFailures)
    .values({ id: uuidv7(), subject: subquery<string>`(SELECT CASE WHEN ${sql.join(under, sql` AND `)} THEN ${subject} END)`, at });
}

/** Where a sign-in link stands for the browser that opened it. */
export type LinkState = "valid" | "used" | "expired" | "other_browser";

export interface FoundLink {
  state: LinkState;
  member: SigningMember;
}

/** The link a token names, and whether it would sign this browser in now (a read: the page's GET changes nothing). */
export async function findSignInLink(
  db: Db,
  token: string,
  browser: { hash: string | null; anyBrowser: boolean },
): Promise<FoundLink | null> {
  const row = await db
    .select({ ...signingMember, browserHash: signInLinks.browserHash, expiresAt: signInLinks.expiresAt, usedAt: signInLinks.usedAt })
    .from(signInLinks)
    .innerJoin(members, eq(members.id, signInLinks.memberId))
    .innerJoin(organizations, eq(organizations.id, members.organizationId))
    .where(eq(signInLinks.tokenHash, await sha256Hex(token)))
    .get();
  if (!row) return null;
  const { browserHash, expiresAt, usedAt, ...member } = row;
  const state: LinkState = usedAt
    ? "used"
    : expiresAt <= nowIso()
      ? "expired"
      : browserHash === browser.hash || (browserHash === ANY_BROWSER && browser.anyBrowser)
        ? "valid"
        : "other_browser";
  return { state, member };
}

/**
 * Counts a failed sign-in (a spent, expired or foreign link, a passkey that did not verify) against
 * the IP and, where the attempt named a member, its address; and audits it in that member's
 * organization. Answers the seconds to wait if the budget was spent before this attempt (0 if not):
 * the attempt past the budget is answered 429, whatever it was.
 */
export async function recordSignInFailure(ctx: ServiceContext, failure: { ip: string; member?: SigningMember }): Promise<number> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const since = new Date(now - HOUR_MS).toISOString();
  const subjects = [await ipSubject(failure.ip), ...(failure.member ? [await addressSubject(failure.member.email)] : [])];
  // The budget read in the same batch, before the rows it counts.
  const statementsOn = (db: Db) => [
    ...subjects.map((s) => budgetOf(db, s, since)),
    ...subjects.map((subject) => counted(db, { subject, at })),
  ];
  const audit = failure.member && {
    action: "session.create_failed",
    target: { type: "member", id: failure.member.id },
    organizationId: failure.member.organizationId,
    actor: claimant(failure.member),
  };
  let results: unknown[];
  if (ctx.catalog) {
    // A sharded deployment keeps the budget in its catalog, and the audit row in the member's shard.
    [results] = await Promise.all([
      batchOf(ctx.catalog.db, statementsOn(ctx.catalog.db)),
      audit && commit(ctx, new Plan(null).audits(audit)),
    ]);
  } else if (!audit) results = await batchOf(ctx.db, statementsOn(ctx.db));
  else {
    const plan = new Plan(null).audits(audit);
    for (const statement of statementsOn(ctx.db)) plan.add(statement);
    results = (await commit(ctx, plan)).results;
  }
  return retryAfter(results.slice(0, subjects.length) as { at: string }[][], now);
}

/**
 * The cron's purge of what signing in leaves behind: counted requests older than a day (the budget
 * reads an hour), links a day past their expiry, challenges past theirs. Sessions stay, for the
 * owner's list and the audit log's references. Run on a sharded deployment's catalog too, which keeps
 * the budget, passkey sign-in challenges and the links' names (made with their links, so a day past
 * the link's lifetime they name nothing).
 */
export async function purgeSignInRecords(db: Db, now = Date.now()): Promise<void> {
  const dayAgo = new Date(now - 24 * HOUR_MS).toISOString();
  const namesBefore = new Date(now - 24 * HOUR_MS - LIMITS.signInLinkMinutes * 60_000).toISOString();
  await db.batch([
    db.delete(signInFailures).where(lt(signInFailures.at, dayAgo)),
    db.delete(signInLinks).where(lt(signInLinks.expiresAt, dayAgo)),
    db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, new Date(now).toISOString())),
    db.delete(catalogNames).where(and(eq(catalogNames.kind, "sign_in_link"), lt(catalogNames.createdAt, namesBefore))),
  ]);
}

/** Where what signing in keeps that is no organization's lives: a sharded deployment's catalog, else the one database. */
export const platformDb = (ctx: ServiceContext): Db => ctx.catalog?.db ?? ctx.db;
