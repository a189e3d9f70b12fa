import { eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { members, organizations, type MemberRow } from "../db/schema";
import { whenRefused } from "../db/queries";
import type { AuditActor } from "./audit";
import { nowIso } from "../lib/ids";
import { addressMatches, recordOfToken } from "../notifications/links";
import type { ServiceContext } from "./context";
import { commit, Plan } from "./unit-of-work";

// The invitation's side of members: what its e-mailed link names, checked by its MAC (the same
// mechanism as a contact's confirmation, for the purpose "invite"), and the join its page's button
// makes, as the invited person's own act. The invitation e-mail itself is written by members.ts, in
// the batch that adds the member or changes their address.

/** A member an invitation link names, if its MAC holds for the member's address as it is now. */
export interface InvitationTarget {
  member: MemberRow;
  organization: string;
}

export async function findInvitation(db: Db, token: string): Promise<InvitationTarget | null> {
  const named = recordOfToken(token);
  if (!named) return null;
  const row = await db
    .select({ member: members, organization: organizations.name })
    .from(members)
    .innerJoin(organizations, eq(organizations.id, members.organizationId))
    .where(eq(members.id, named.id))
    .get();
  if (!row || !(await addressMatches("invite", row.member.id, row.member.email, named.given))) return null;
  return row;
}

/**
 * The invited person, acting through their invitation's link: the audit log names them. They are not
 * signed in (no caller of theirs holds a scope); the link itself is what lets this one change happen.
 */
const invitee = (m: MemberRow): AuditActor => ({ type: "member", id: m.id, name: m.name ?? m.email });

/**
 * Accepts the invitation sent to the address the link was sent to (not one set since): joined_at is
 * set once. True if this request joined; false if the member had joined already.
 */
export async function joinMember(ctx: ServiceContext, target: InvitationTarget): Promise<boolean> {
  if (target.member.joinedAt !== null) return false;
  const now = nowIso();
  // Still invited at this address: otherwise invited_at comes out NULL and the batch, audit row included, is refused.
  const still = sql`${members.joinedAt} IS NULL AND ${members.email} = ${target.member.email}`;
  const p = new Plan(null)
    .add(
      ctx.db
        .update(members)
        .set({ joinedAt: now, invitedAt: sql`CASE WHEN ${still} THEN ${members.invitedAt} END`, updatedAt: now })
        .where(eq(members.id, target.member.id)),
    )
    .audits({
      action: "member.join",
      target: { type: "member", id: target.member.id },
      organizationId: target.member.organizationId,
      actor: invitee(target.member),
    });
  return whenRefused(
    async () => {
      await commit(ctx, p);
      return true;
    },
    () => false,
  );
}
