import { type SQL, sql } from "drizzle-orm";
import { auditEvents, type AuditActorType } from "../db/schema";
import { nowIso, uuidv7 } from "../lib/ids";
import type { Caller } from "../lib/caller";
import type { ServiceContext } from "./context";

/**
 * One entry of the audit log, as a plan says it: what was done (`vuln.update`, `member.create`, ...), to
 * what, and which members changed (names, never values). `organizationId` defaults to the caller's;
 * an operator's change to an organization's data names that organization, so its people see it (a
 * subquery where only the batch knows it, like the owner of a key revoked by its id).
 */
export interface AuditEntry {
  action: string;
  target: { type: string; id: string | null };
  changed?: readonly string[];
  organizationId?: string | null | SQL<string | null>;
  /**
   * Who did it, where the caller does not say: a public submission's reporter is its new report, and
   * an e-mail's link is followed by whoever holds the address (the platform stands for it).
   */
  actor?: AuditActor;
}

export type AuditActor = { type: AuditActorType; id: string | null; name: string | null };

/** What an action is: `<target type>.<verb>`, lower case (`vuln.update`, `webhook.rotate_secret`). */
export const AUDIT_ACTION_PATTERN = /^[a-z_]+\.[a-z_]+$/;

/** The longest text an audit row keeps (a User-Agent is the client's to make long): cut there. */
export const AUDIT_TEXT_LENGTH = 512;
/** An IPv4 or IPv6 address as Cloudflare writes one; anything else in its header is not kept. */
export const AUDIT_IP_PATTERN = /^[0-9A-Fa-f:.]{2,45}$/;
const bounded = (text: string | null | undefined) => (text == null ? null : text.slice(0, AUDIT_TEXT_LENGTH));

/** How the audit log names a caller. The platform's own work (the cron, the queue, inbound e-mail) is "system". */
export function auditActor(caller: Caller): AuditActor {
  switch (caller.kind) {
    case "organization":
      return { type: "api_key", id: caller.keyId, name: caller.name ?? null };
    case "member":
      return { type: "member", id: caller.member?.id ?? null, name: caller.name ?? null };
    case "operator":
      return isPlatform(caller)
        ? { type: "system", id: null, name: null }
        : { type: "operator", id: caller.keyId, name: caller.name ?? null };
    case "reporter":
      return { type: "reporter", id: caller.reportId ?? null, name: null };
    default:
      return { type: "reporter", id: null, name: null };
  }
}

/** The platform's own work: the cron, the queue's consumer, inbound e-mail. */
export function isPlatform(caller: Caller): boolean {
  return caller.kind === "operator" && caller.keyId === "platform";
}

/**
 * The members an input names (a member left out is unchanged), for an entry's `changed`: as the API
 * spells them (`website_url`; a relationship's id `briefId` as `brief`), never their values.
 */
export function sentMembers(input: object): string[] {
  return Object.entries(input)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key.replace(/Id$/, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
    .sort();
}

function auditRow(ctx: ServiceContext, entry: AuditEntry) {
  const actor = entry.actor ?? auditActor(ctx.caller);
  return {
    id: uuidv7(),
    organizationId: entry.organizationId !== undefined ? entry.organizationId : ctx.caller.organizationId,
    at: nowIso(),
    actorType: actor.type,
    actorId: actor.id,
    actorName: bounded(actor.name),
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    changed: entry.changed ? [...entry.changed] : null,
    requestId: ctx.request?.id ?? null,
    ip: ctx.request?.ip && AUDIT_IP_PATTERN.test(ctx.request.ip) ? ctx.request.ip : null,
    userAgent: bounded(ctx.request?.userAgent),
  };
}

/**
 * The insert of one audit row, for the change's own batch. With `ifPreviousChanged` it writes the row
 * only if the statement just before it changed one (SQLite's changes(), as the outbox's conditional
 * events do), so a guarded write that lost its race, or found nothing, leaves no row; and since it
 * then changes exactly one row or none, a statement after it chained on changes() reads the same answer.
 */
export function auditStatement(ctx: ServiceContext, entry: AuditEntry, { ifPreviousChanged = false } = {}) {
  const row = auditRow(ctx, entry);
  if (!ifPreviousChanged) return ctx.db.insert(auditEvents).values(row);
  const changed = row.changed === null ? null : JSON.stringify(row.changed);
  // The columns in the table's order (an insert-select names them all).
  return ctx.db.insert(auditEvents).select(
    sql`SELECT ${row.id}, ${row.organizationId}, ${row.at}, ${row.actorType}, ${row.actorId}, ${row.actorName}, ${row.action},
      ${row.targetType}, ${row.targetId}, ${changed}, ${row.requestId}, ${row.ip}, ${row.userAgent} WHERE changes() > 0`,
  );
}
