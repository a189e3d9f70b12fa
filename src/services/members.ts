import { and, count, eq, isNull, sql } from "drizzle-orm";
import {
  members,
  notifications,
  organizations,
  sessions,
  vulns,
  type MemberRole,
  type MemberRow,
  type NotificationRow,
} from "../db/schema";
import { isUniqueViolation, subquery, where, whenRefused } from "../db/queries";
import { actsForOrganization } from "../lib/caller";
import { Conflict, Forbidden, Invalid, NotFound, attribute, resource } from "../lib/domain-errors";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import { publishNotifications } from "../lib/queue";
import { newNotification } from "../notifications/rows";
import { readersOf, owningOrganization, tenantFilter, type ServiceContext } from "./context";
import { listPage, type ListQuery } from "./list-pages";
import { mayChange } from "./access";
import { commit, consequence, Plan, readBatch } from "./unit-of-work";
import { vulnEvent } from "../events/outbox";
import { named, withNames } from "./catalog";
import { forgetSessions, memberNames } from "./sessions";

// The organization's people who sign in. A new member is invited: one invitation e-mail (the outbox,
// in the batch that adds them) whose page's button sets joined_at. The organization's own key (or an
// owner) with the `members` scope writes them; operators read them. Every change that takes a role away
// or changes who the address is ends the member's sessions in its own batch.

export interface MemberInput {
  email?: string;
  name?: string | null;
  role?: MemberRole;
}

const notFound = () => new NotFound("member", "No member has that id.");
const full = () =>
  Invalid.at(resource(), `The organization has ${LIMITS.membersPerOrganization} members, as many as it may; remove one first.`);
const lastOwner = () =>
  new Conflict("This is the organization's last owner: make another member an owner first, then remove or change this one.");

/** Addresses are kept and compared in lower case: one person, one member of an organization. */
const normalized = (email: string) => email.trim().toLowerCase();

/**
 * A change of members needs the members scope (an owner's, or a key's), asked before anything is read.
 * Operators read members but never change them: refused by the routes, and here too.
 */
function mayChangeMembers(ctx: ServiceContext): void {
  if (!actsForOrganization(ctx.caller))
    throw new Forbidden("Operator keys read members but never change them; use the organization's key.");
  mayChange(ctx, "members");
}

async function uniqueGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "members."))
      throw Invalid.at(attribute("email"), "The organization already has a member with this address.");
    throw err;
  }
}

export function listMembers(
  ctx: ServiceContext,
  { page, sort, ...filters }: ListQuery & { role?: MemberRole; joined?: boolean; email?: string; organizationId?: string },
) {
  const filter = where(
    tenantFilter(ctx, members.organizationId),
    filters.organizationId ? eq(members.organizationId, filters.organizationId) : undefined,
    filters.role ? eq(members.role, filters.role) : undefined,
    filters.email ? eq(members.email, normalized(filters.email)) : undefined,
    filters.joined === undefined ? undefined : filters.joined ? sql`${members.joinedAt} IS NOT NULL` : isNull(members.joinedAt),
  );
  return listPage(readersOf(ctx), members, { filter, sort, page });
}

const selectMember = (ctx: ServiceContext, id: string) =>
  ctx.db
    .select()
    .from(members)
    .where(where(eq(members.id, id), tenantFilter(ctx, members.organizationId)));

export async function getMember(ctx: ServiceContext, id: string): Promise<MemberRow> {
  const row = await selectMember(ctx, id).get();
  if (!row) throw notFound();
  return row;
}

/** The invitation e-mail to `member`'s address, for the batch that sets the address. */
function invitationFor(member: MemberRow, organization: string | null, now: string): NotificationRow {
  return newNotification(
    {
      organizationId: member.organizationId,
      vulnId: null,
      contactId: null,
      memberId: member.id,
      eventId: null,
      recipient: "member",
      to: member.email,
      params: { kind: "member_invitation", organization: organization ?? "Your organization", name: member.name, role: member.role },
    },
    now,
  );
}

const organizationName = (ctx: ServiceContext, organizationId: string) =>
  ctx.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId));

/** Ends every live session of a member, in the batch that takes their access away (their hashes: forgetSessions). */
const revokeSessions = (ctx: ServiceContext, memberId: string, now: string) =>
  ctx.db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.memberId, memberId), isNull(sessions.revokedAt)))
    .returning({ tokenHash: sessions.tokenHash });

/**
 * Whether the row being written leaves its organization an owner: it is no owner, or another member
 * is. Read inside the write, so of two concurrent demotions of the last two owners the second sees the
 * first and is refused.
 */
const leavesAnOwner = sql`(${members.role} <> 'owner' OR ${subquery`(SELECT count(*) FROM members o WHERE o.organization_id = ${members.organizationId} AND o.role = 'owner' AND o.id <> ${members.id})`} > 0)`;

/**
 * A new member of a new organization (its first owner, named by the operator who makes it) or of an
 * existing one, with its invitation: the statements for the caller's batch.
 */
function newMember(
  input: Required<Pick<MemberInput, "email" | "role">> & MemberInput,
  target: { organizationId: string; organization: string | null },
) {
  const now = nowIso();
  const row: MemberRow = {
    id: uuidv7(),
    organizationId: target.organizationId,
    email: normalized(input.email),
    name: input.name ?? null,
    role: input.role,
    invitedAt: now,
    joinedAt: null,
    lastSignInAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return { row, invitation: invitationFor(row, target.organization, now) };
}

const created = (row: MemberRow) => ({
  action: "member.create",
  target: { type: "member", id: row.id },
  changed: ["email", "role", ...(row.name === null ? [] : ["name"])],
  organizationId: row.organizationId,
});

/** The insert of an organization's first owner, in the batch that makes the organization. */
export function firstOwner(ctx: ServiceContext, organization: { id: string; name: string }, email: string) {
  const { row, invitation } = newMember({ email, role: "owner" }, { organizationId: organization.id, organization: organization.name });
  return {
    invitation,
    statements: [ctx.db.insert(members).values(row), ctx.db.insert(notifications).values(invitation)] as const,
    audit: created(row),
    names: [named.member(row.id)],
  };
}

/**
 * Adds a member, invited, with its invitation e-mail in the same batch. The limit is counted again
 * inside the insert (an organization_id that comes out NULL refuses it), so concurrent adds cannot
 * pass it.
 */
export async function createMember(
  ctx: ServiceContext,
  input: Required<Pick<MemberInput, "email" | "role">> & MemberInput,
  requestedOrganization: string | undefined,
): Promise<MemberRow> {
  mayChangeMembers(ctx);
  const organizationId = owningOrganization(ctx, requestedOrganization, undefined);
  const [org] = await readBatch(ctx, [organizationName(ctx, organizationId)]);
  const { row, invitation } = newMember(input, { organizationId, organization: org[0]?.name ?? null });
  const insert = ctx.db.insert(members).select(
    ctx.db
      .select({
        id: sql<string>`${row.id}`.as("id"),
        organizationId: sql<string>`CASE WHEN count(*) < ${LIMITS.membersPerOrganization} THEN ${organizationId} END`.as("organization_id"),
        email: sql<string>`${row.email}`.as("email"),
        name: sql<string | null>`${row.name}`.as("name"),
        role: sql<MemberRole>`${row.role}`.as("role"),
        invitedAt: sql<string>`${row.invitedAt}`.as("invited_at"),
        joinedAt: sql<null>`null`.as("joined_at"),
        lastSignInAt: sql<null>`null`.as("last_sign_in_at"),
        createdAt: sql<string>`${row.createdAt}`.as("created_at"),
        updatedAt: sql<string>`${row.updatedAt}`.as("updated_at"),
      })
      .from(members)
      .where(eq(members.organizationId, organizationId)),
  );
  const p = new Plan(row).add(insert).add(ctx.db.insert(notifications).values(invitation)).audits(created(row));
  await uniqueGuard(() =>
    whenRefused(
      () => withNames(ctx, { organizationId, names: [named.member(row.id)] }, () => commit(ctx, p, ctx.respond)),
      async () => {
        const [n] = await readBatch(ctx, [ctx.db.select({ n: count() }).from(members).where(eq(members.organizationId, organizationId))]);
        if ((n[0]?.n ?? 0) >= LIMITS.membersPerOrganization) throw full();
        throw new Conflict("The organization changed while this request ran; retry.");
      },
    ),
  );
  ctx.defer(publishNotifications(ctx.queue, [invitation.id]));
  return row;
}

/** Why a guarded write of a member was refused, read again after it: gone, changed meanwhile, or its organization's last owner. */
async function refusal(ctx: ServiceContext, existing: MemberRow): Promise<never> {
  const [rows] = await readBatch(ctx, [selectMember(ctx, existing.id)]);
  const now = rows[0];
  if (!now) throw notFound();
  if (now.email !== existing.email) throw new Conflict("The member changed while this request ran; read it again and retry.");
  throw lastOwner();
}

/**
 * Changes a member. A new address is invited again (joined_at null, its own invitation e-mail); a new
 * role or address ends the member's sessions in the same batch. The last owner keeps the role: the
 * write itself refuses (the role comes out NULL) when no other owner would be left.
 */
export async function updateMember(ctx: ServiceContext, id: string, input: MemberInput): Promise<MemberRow> {
  mayChangeMembers(ctx);
  const [found, org] = await readBatch(ctx, [
    selectMember(ctx, id),
    ctx.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, subquery`(SELECT organization_id FROM members WHERE id = ${id})`)),
  ]);
  const existing = found[0];
  if (!existing) throw notFound();
  const now = nowIso();
  const email = input.email === undefined ? existing.email : normalized(input.email);
  const readdressed = email !== existing.email;
  const next: MemberRow = {
    ...existing,
    email,
    name: input.name === undefined ? existing.name : input.name,
    role: input.role ?? existing.role,
    invitedAt: readdressed ? now : existing.invitedAt,
    joinedAt: readdressed ? null : existing.joinedAt,
    updatedAt: now,
  };
  const changed = (["email", "name", "role"] as const).filter((k) => next[k] !== existing[k]);
  // Only while the address is still the one read, and never leaving the organization without an owner.
  const allowed = sql`${members.email} = ${existing.email} AND (${next.role} = 'owner' OR ${leavesAnOwner})`;
  const p = new Plan(next);
  const update = p.track<MemberRow[]>(
    ctx.db
      .update(members)
      .set({
        email: next.email,
        name: next.name,
        role: sql`CASE WHEN ${allowed} THEN ${next.role} END`,
        invitedAt: next.invitedAt,
        joinedAt: next.joinedAt,
        updatedAt: now,
      })
      .where(and(eq(members.id, id), eq(members.organizationId, existing.organizationId)))
      .returning(),
  );
  const ended = readdressed || next.role !== existing.role ? p.track<{ tokenHash: string }[]>(revokeSessions(ctx, id, now)) : null;
  const invitation = readdressed ? invitationFor(next, org[0]?.name ?? null, now) : null;
  if (invitation) p.add(ctx.db.insert(notifications).values(invitation));
  p.audits({ action: "member.update", target: { type: "member", id }, changed, organizationId: existing.organizationId });
  const { results } = await uniqueGuard(() =>
    whenRefused(
      () => commit(ctx, p),
      () => refusal(ctx, existing),
    ),
  );
  if (update.of(results).length === 0) throw notFound();
  if (ended) await forgetSessions(ctx, ended.of(results));
  if (invitation) ctx.defer(publishNotifications(ctx.queue, [invitation.id]));
  return next;
}

/**
 * Removes a member, their sessions with them. The last owner stays: a guard in the same batch
 * (a role that would come out NULL) refuses the whole batch when no other owner is left.
 */
export async function deleteMember(ctx: ServiceContext, id: string): Promise<void> {
  mayChangeMembers(ctx);
  const [found, assigned] = await readBatch(ctx, [selectMember(ctx, id), assignedTo(ctx, id)]);
  const existing = found[0];
  if (!existing) throw notFound();
  const now = nowIso();
  const mine = and(eq(members.id, id), eq(members.organizationId, existing.organizationId));
  const p = new Plan(null)
    .add(
      ctx.db
        .update(members)
        .set({ role: sql`CASE WHEN ${leavesAnOwner} THEN ${members.role} END`, updatedAt: now })
        .where(mine),
    )
    .add(revokeSessions(ctx, id, now));
  // Read before the delete takes them with it.
  const names = memberNames(ctx, p, id);
  p.add(ctx.db.delete(members).where(mine)).audits({
    action: "member.delete",
    target: { type: "member", id },
    organizationId: existing.organizationId,
  });
  unassign(ctx, p, { member: existing, vulnIds: assigned.map((v) => v.id), now });
  const { results } = await whenRefused(
    () => commit(ctx, p),
    () => refusal(ctx, existing),
  );
  await names.forget(results);
}

/** The reports assigned to a member (on vulns_organization_assignee_idx). */
const assignedTo = (ctx: ServiceContext, memberId: string) =>
  ctx.db
    .select({ id: vulns.id })
    .from(vulns)
    .where(
      and(
        tenantFilter(ctx, vulns.organizationId),
        eq(vulns.organizationId, subquery`(SELECT organization_id FROM members WHERE id = ${memberId})`),
        eq(vulns.assigneeId, memberId),
      ),
    );

/**
 * A removed member's reports go back to nobody, in the removal's batch: every report still assigned
 * to them when it runs (an assignment can no longer name them after it: the assignment's own write
 * asks that the member exists), each of those read before firing Vuln::Updated.
 */
function unassign(ctx: ServiceContext, p: Plan<unknown>, { member, vulnIds, now }: { member: MemberRow; vulnIds: string[]; now: string }) {
  p.add(
    consequence(
      ctx.db
        .update(vulns)
        .set({ assigneeId: null, revision: sql`${vulns.revision} + 1`, updatedAt: now })
        .where(and(eq(vulns.organizationId, member.organizationId), eq(vulns.assigneeId, member.id))),
    ),
  );
  for (const vulnId of vulnIds) {
    const updated = vulnEvent(ctx.db, "Vuln::Updated", vulnId, now, { when: isNull(vulns.assigneeId) });
    p.add(updated.statement, updated.event);
  }
}

/**
 * Invites a member again, who has not joined: a new invitation e-mail (the old link still works),
 * invited_at now. With an Idempotency-Key a retry replays the answer instead of e-mailing twice.
 */
export async function resendInvitation(ctx: ServiceContext, id: string): Promise<MemberRow> {
  mayChangeMembers(ctx);
  const [found, org] = await readBatch(ctx, [
    selectMember(ctx, id),
    ctx.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, subquery`(SELECT organization_id FROM members WHERE id = ${id})`)),
  ]);
  const existing = found[0];
  if (!existing) throw notFound();
  if (existing.joinedAt !== null) throw new Conflict("The member joined already: there is no invitation to send again.");
  const now = nowIso();
  const next: MemberRow = { ...existing, invitedAt: now, updatedAt: now };
  const invitation = invitationFor(next, org[0]?.name ?? null, now);
  // Still invited at the address read: otherwise invited_at comes out NULL and nothing is written or sent.
  const still = sql`${members.joinedAt} IS NULL AND ${members.email} = ${existing.email}`;
  const p = new Plan(next)
    .add(
      ctx.db
        .update(members)
        .set({ invitedAt: sql`CASE WHEN ${still} THEN ${now} END`, updatedAt: now })
        .where(and(eq(members.id, id), eq(members.organizationId, existing.organizationId))),
    )
    .add(ctx.db.insert(notifications).values(invitation))
    .audits({ action: "member.invite", target: { type: "member", id }, changed: ["invited_at"], organizationId: existing.organizationId });
  await whenRefused(
    () => commit(ctx, p, ctx.respond),
    () => {
      throw new Conflict("The member joined or changed address while this request ran; read it again.");
    },
  );
  ctx.defer(publishNotifications(ctx.queue, [invitation.id]));
  return next;
}

/** Ends every session of a member now (an owner's revocation): they sign in again. */
export async function revokeMemberSessions(ctx: ServiceContext, id: string): Promise<void> {
  mayChangeMembers(ctx);
  const [found] = await readBatch(ctx, [selectMember(ctx, id)]);
  const existing = found[0];
  if (!existing) throw notFound();
  const p = new Plan(null);
  const ended = p.track<{ tokenHash: string }[]>(revokeSessions(ctx, id, nowIso()));
  p.audits({ action: "member.sessions_revoke", target: { type: "member", id }, organizationId: existing.organizationId });
  const { results } = await commit(ctx, p);
  await forgetSessions(ctx, ended.of(results));
}
