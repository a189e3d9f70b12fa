import { asc, eq } from "drizzle-orm";
import type { Db } from "../db";
import { members, notifications, organizations, signInLinks, type NotificationRow } from "../db/schema";
import { isNotNullViolation } from "../db/queries";
import { randomSecret, sha256Hex } from "../lib/crypto";
import { LIMITS } from "../lib/limits";
import { publishNotifications, shardQueue } from "../lib/queue";
import { sealLink } from "../notifications/links";
import { newNotification } from "../notifications/rows";
import type { NotificationParams } from "../notifications/templates";
import type { ServiceContext } from "./context";
import {
  addressSubject,
  budgetOf,
  budgetWait,
  claimant,
  counted,
  HOUR_MS,
  ipSubject,
  retryAfter,
  signingMember,
  type SigningMember,
} from "./sign-in";
import { commit, Plan } from "./unit-of-work";
import { named, withNames } from "./catalog";
import type { Catalog } from "../db/catalog";

// A request for sign-in links: one e-mail to the address, with a link for each organization it is a
// member of (none for an address of nobody's), counted against the sign-in budget either way.

const MINUTE_MS = 60_000;

export type LinkRequestOutcome = { status: "answered" } | { status: "limited"; retryAfter: number };

/**
 * A request for sign-in links to `email`, from a browser (the SHA-256 of its sign-in cookie) at an IP.
 * A member (of one organization or several) gets one e-mail with a link per organization; anyone else
 * nothing. Both are counted, and both are answered "answered" (or "limited", past the budget), so the
 * answer never says whether the address is a member's.
 */
export async function requestSignInLinks(
  ctx: ServiceContext,
  request: { email: string; ip: string; browserHash: string },
): Promise<LinkRequestOutcome> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const since = new Date(now - HOUR_MS).toISOString();
  const address = request.email.trim().toLowerCase();
  const subjects = [await addressSubject(address), await ipSubject(request.ip)] as const;
  if (ctx.catalog) return requestLinksAcrossShards(ctx, ctx.catalog, { ...request, address, subjects, now });
  const [found, ...budgets] = await ctx.db.batch([
    membersByAddress(ctx.db, address),
    budgetOf(ctx.db, subjects[0], since),
    budgetOf(ctx.db, subjects[1], since),
  ]);
  const wait = retryAfter(budgets, now);
  if (wait > 0) return { status: "limited", retryAfter: wait };
  const guard = { subjects, since };
  const countRows = [counted(ctx.db, { subject: subjects[0], at, guard }), counted(ctx.db, { subject: subjects[1], at })] as const;
  try {
    if (found.length === 0) await ctx.db.batch(countRows);
    else {
      const { plan, emailId } = await linksPlan(ctx, found, { ...request, at, now, countRows });
      await commit(ctx, plan);
      ctx.defer(publishNotifications(ctx.queue, [emailId]));
    }
  } catch (err) {
    // Another request took the budget's last place while this one ran.
    if (!isNotNullViolation(err)) throw err;
    return { status: "limited", retryAfter: Math.max(1, await budgetWait(ctx.db, subjects, now)) };
  }
  return { status: "answered" };
}

/** A person's memberships, by the address they sign in with, in the e-mail's order (organization, then member). */
function membersByAddress(db: Db, address: string) {
  // Members' addresses are stored lower-cased (src/services/members.ts), so the index finds them.
  return db
    .select(signingMember)
    .from(members)
    .innerJoin(organizations, eq(organizations.id, members.organizationId))
    .where(eq(members.email, address))
    .orderBy(asc(organizations.name), asc(members.id));
}

/** The links (one per membership), their e-mail (the tokens sealed in it) and the count, as one plan. */
async function linksPlan(
  ctx: ServiceContext,
  found: SigningMember[],
  request: { browserHash: string; at: string; now: number; countRows: readonly [ReturnType<typeof counted>, ReturnType<typeof counted>] },
) {
  const plan = new Plan(null).add(request.countRows[0]).add(request.countRows[1]);
  const links = await planLinks({ ctx, plan }, found, request);
  const email = await linksEmail(links, request);
  return { plan: plan.add(ctx.db.insert(notifications).values(email)), emailId: email.id };
}

/** A link made for a member: its token (for the e-mail only) and its SHA-256 (stored). */
interface MadeLink {
  member: SigningMember;
  token: string;
  tokenHash: string;
  expiresAt: string;
}

/** Adds a link for each member to `plan`, with its audit in the member's organization. */
async function planLinks(
  { ctx, plan }: { ctx: ServiceContext; plan: Plan<null> },
  found: readonly SigningMember[],
  request: { browserHash: string; at: string; now: number },
): Promise<MadeLink[]> {
  const expiresAt = new Date(request.now + LIMITS.signInLinkMinutes * MINUTE_MS).toISOString();
  const links: MadeLink[] = [];
  for (const member of found) {
    const token = randomSecret();
    const tokenHash = await sha256Hex(token);
    links.push({ member, token, tokenHash, expiresAt });
    plan
      .add(
        ctx.db.insert(signInLinks).values({
          tokenHash,
          memberId: member.id,
          browserHash: request.browserHash,
          expiresAt,
          usedAt: null,
          createdAt: request.at,
        }),
      )
      .audits({
        action: "sign_in_link.create",
        target: { type: "member", id: member.id },
        organizationId: member.organizationId,
        actor: claimant(member),
      });
  }
  return links;
}

/** The one e-mail of a request's links, their tokens sealed in it, in the first organization's e-mail log. */
async function linksEmail(links: readonly MadeLink[], request: { at: string }): Promise<NotificationRow> {
  const first = links[0]!;
  const params: NotificationParams = {
    kind: "sign_in_link",
    organizations: links.map((l) => l.member.organization),
    expires_at: first.expiresAt,
  };
  const email = newNotification(
    // Its subject names none of them.
    {
      organizationId: first.member.organizationId,
      vulnId: null,
      contactId: null,
      eventId: null,
      recipient: "member",
      to: first.member.email,
      params,
    },
    request.at,
  );
  email.sealedLink = await sealLink(email.id, JSON.stringify(links.map((l) => l.token)));
  return email;
}

/** Orders memberships from several shards as one database's query would (organization name, then member id). */
const emailOrder = (a: SigningMember, b: SigningMember) =>
  a.organization < b.organization ? -1 : a.organization > b.organization ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * requestSignInLinks in a sharded deployment. The person's memberships may be in any shard: every shard
 * is asked at once, beside the budget, which the catalog keeps (it is nobody's). The count goes first, so
 * its guard refuses a request past the budget before any link exists; then each shard writes its links,
 * their names claimed in the catalog first (the link's page finds its shard by them). The e-mail goes
 * with the first organization's links, after the other shards' have committed, and carries only links
 * that were written: a shard that failed leaves its organizations out, never a link that leads nowhere.
 */
async function requestLinksAcrossShards(
  ctx: ServiceContext,
  catalog: Catalog,
  request: { address: string; subjects: readonly [string, string]; browserHash: string; now: number },
): Promise<LinkRequestOutcome> {
  const { subjects, now } = request;
  const at = new Date(now).toISOString();
  const since = new Date(now - HOUR_MS).toISOString();
  const budget = catalog.db;
  const [budgets, ...shards] = await Promise.all([
    budget.batch([budgetOf(budget, subjects[0], since), budgetOf(budget, subjects[1], since)]),
    ...catalog.tenants().map(async (tenant) => ({ ...tenant, found: await membersByAddress(tenant.db, request.address) })),
  ]);
  const wait = retryAfter(budgets, now);
  if (wait > 0) return { status: "limited", retryAfter: wait };
  try {
    await budget.batch([
      counted(budget, { subject: subjects[0], at, guard: { subjects, since } }),
      counted(budget, { subject: subjects[1], at }),
    ]);
  } catch (err) {
    if (!isNotNullViolation(err)) throw err;
    return { status: "limited", retryAfter: Math.max(1, await budgetWait(budget, subjects, now)) };
  }
  const holding = shards.filter((s) => s.found.length > 0);
  if (holding.length === 0) return { status: "answered" };
  const first = holding.reduce((a, b) => (emailOrder(a.found[0]!, b.found[0]!) <= 0 ? a : b));
  const write = async (shard: (typeof holding)[number], others: MadeLink[] = []) => {
    const shardCtx = { ...ctx, db: shard.db };
    const plan = new Plan(null);
    const links = await planLinks({ ctx: shardCtx, plan }, shard.found, { browserHash: request.browserHash, at, now });
    const email =
      shard === first
        ? await linksEmail(
            [...others, ...links].sort((a, b) => emailOrder(a.member, b.member)),
            { at },
          )
        : null;
    if (email) plan.add(shard.db.insert(notifications).values(email));
    const claims = links.map((l) => ({ organizationId: l.member.organizationId, names: [named.signInLink(l.tokenHash)] }));
    await withNames(ctx, claims, () => commit(shardCtx, plan));
    return { links, email };
  };
  const others = await Promise.allSettled(holding.filter((s) => s !== first).map((s) => write(s)));
  for (const failed of others)
    if (failed.status === "rejected")
      console.error(JSON.stringify({ level: "warn", message: "sign-in links of a shard not written", error: String(failed.reason) }));
  const { email } = await write(
    first,
    others.flatMap((o) => (o.status === "fulfilled" ? o.value.links : [])),
  );
  // The e-mail is the first organization's shard's row: its message names that shard.
  ctx.defer(
    publishNotifications(
      shardQueue(ctx.queue, () => first.shard),
      [email!.id],
    ),
  );
  return { status: "answered" };
}
