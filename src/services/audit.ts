import { auditEvents, type AuditActorType } from "../db/schema";
import { nowIso, uuidv7 } from "../lib/ids";
import type { Caller } from "../lib/caller";
import type { ServiceContext } from "./context";

/**
 * One entry of the audit log, as a plan says it: what was done (`vuln.update`, `member.create`, ...), to
 * what, and which members changed (names, never values). `organizationId` defaults to the caller's;
 * an operator's change to an organization's data names that organization, so its people see it.
 */
export interface AuditEntry {
  action: string;
  target: { type: string; id: string | null };
  changed?: readonly string[];
  organizationId?: string | null;
  /**
   * Who did it, when not the context's caller (and then its organization's row, unless `organizationId` says):
   * a sign-in acts as the member it signs in, one request for sign-in links as each member it names.
   */
  actor?: Caller;
}

/** How the audit log names a caller. The platform's own work (the cron, the queue, inbound e-mail) is "system". */
export function auditActor(caller: Caller): { type: AuditActorType; id: string | null; name: string | null } {
  switch (caller.kind) {
    case "organization":
      return { type: "api_key", id: caller.keyId, name: caller.name ?? null };
    case "member":
      return { type: "member", id: caller.member?.id ?? null, name: caller.name ?? null };
    case "operator":
      return caller.keyId === "platform"
        ? { type: "system", id: null, name: null }
        : { type: "operator", id: caller.keyId, name: caller.name ?? null };
    case "reporter":
      return { type: "reporter", id: caller.reportId ?? null, name: null };
    default:
      // Someone not signed in who named a member (asked for its sign-in link, or failed to sign in as it).
      if (caller.member) return { type: "member", id: caller.member.id, name: caller.name ?? null };
      return { type: "reporter", id: null, name: null };
  }
}

/** The insert of one audit row, for the change's own batch. */
export function auditStatement(ctx: ServiceContext, entry: AuditEntry) {
  const actor = auditActor(entry.actor ?? ctx.caller);
  return ctx.db.insert(auditEvents).values({
    id: uuidv7(),
    organizationId: entry.organizationId !== undefined ? entry.organizationId : (entry.actor ?? ctx.caller).organizationId,
    at: nowIso(),
    actorType: actor.type,
    actorId: actor.id,
    actorName: actor.name,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    changed: entry.changed ? [...entry.changed] : null,
    requestId: ctx.request?.id ?? null,
    ip: ctx.request?.ip ?? null,
    userAgent: ctx.request?.userAgent ?? null,
  });
}
