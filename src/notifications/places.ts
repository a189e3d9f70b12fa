import { and, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db";
import { notifications } from "../db/schema";
import { subquery } from "../db/queries";
import { LIMITS } from "../lib/limits";
import { GATHER_BOUND_MS, GATHER_MS, SENT_ALONE } from "./outbox";

// The conditions an attempt's lease holds in SQL, so that concurrent attempts cannot both pass them:
// the hourly limits (a place taken in the very write that leases the e-mail, counted with the e-mails
// sent), and the wait of a notice for others to the same address about the same report.

export const HOUR_MS = 3_600_000;

const aloneList = sql.raw(SENT_ALONE.map((k) => `'${k}'`).join(", "));

/** The row gathers others into its e-mail: a notice about a report (not a receipt nor a confirmation). */
export const gathers = sql`${notifications.kind} NOT IN (${aloneList})`;

/** Not leased, or its lease ran out. */
export const unleased = (nowIso: string) => or(isNull(notifications.leaseUntil), lte(notifications.leaseUntil, nowIso));

/**
 * The e-mails that count against a limit in the hour since `since`, for the organization or the address
 * of the outer notifications row: those sent (one per message: a digest marks several notices sent) and
 * those an attempt is sending (holding a place), the row itself left out.
 */
function counted(by: "organization_id" | '"to"', since: string): SQL<number> {
  const outer = by === "organization_id" ? notifications.organizationId : notifications.to;
  const column = sql.raw(`n.${by}`);
  return subquery<number>`((SELECT count(DISTINCT coalesce(n.message_id, n.id)) FROM ${notifications} n WHERE ${column} = ${outer} AND n.sent_at > ${since})
    + (SELECT count(*) FROM ${notifications} n WHERE ${column} = ${outer} AND n.reserved_at > ${since} AND n.id <> ${notifications.id}))`;
}

/** When the first place of the hour frees, for the organization or the address: an hour after the oldest counted. */
function oldestCounted(by: "organization_id" | '"to"', since: string): SQL<string | null> {
  const outer = by === "organization_id" ? notifications.organizationId : notifications.to;
  const column = sql.raw(`n.${by}`);
  return subquery<
    string | null
  >`(SELECT min(t) FROM (SELECT min(n.sent_at) AS t FROM ${notifications} n WHERE ${column} = ${outer} AND n.sent_at > ${since}
    UNION ALL SELECT min(n.reserved_at) FROM ${notifications} n WHERE ${column} = ${outer} AND n.reserved_at > ${since} AND n.id <> ${notifications.id}))`;
}

/** Room under both hourly limits for one more e-mail of the row. */
export function underLimits(now: number): SQL {
  const since = new Date(now - HOUR_MS).toISOString();
  return sql`${counted("organization_id", since)} < ${LIMITS.emailsPerOrganizationHour} AND ${counted('"to"', since)} <
    ${LIMITS.emailsPerRecipientHour}`;
}

/** The notices waiting with the row (itself included): to its address, about its report, not yet taken. */
function waitingWith(nowIso: string, also: SQL): SQL {
  return subquery`(SELECT 1 FROM ${notifications} g WHERE g.vuln_id = ${notifications.vulnId} AND g."to" = ${notifications.to}
    AND g.recipient = ${notifications.recipient} AND g.kind NOT IN (${aloneList}) AND g.status IN ('pending', 'delayed')
    AND (g.lease_until IS NULL OR g.lease_until <= ${nowIso}) AND ${also})`;
}

/**
 * The row may go now: it does not gather, or no notice waiting with it came in the last GATHER_MS, or
 * the first of them came GATHER_BOUND_MS ago.
 */
export function gathered(now: number): SQL {
  const nowIso = new Date(now).toISOString();
  const recent = new Date(now - GATHER_MS).toISOString();
  const bound = new Date(now - GATHER_BOUND_MS).toISOString();
  return sql`(NOT (${gathers}) OR NOT EXISTS ${waitingWith(nowIso, sql`g.created_at > ${recent}`)} OR EXISTS
    ${waitingWith(nowIso, sql`g.created_at <= ${bound}`)})`;
}

/**
 * The notices that go in the e-mail of the row `id`, once its attempt holds the lease `lease`: to the
 * same address about the same report, waiting, not leased by another attempt. Each value read by its
 * own lookup of the leased row, so the report's index finds them.
 */
export function sameEmailAs(id: string, lease: string): SQL {
  const leader = (column: string) =>
    subquery`(SELECT ${sql.raw(`l.${column}`)} FROM ${notifications} l WHERE l.id = ${id} AND l.lease_until = ${lease} AND l.kind NOT
      IN (${aloneList}))`;
  return and(
    sql`${notifications.vulnId} = ${leader("vuln_id")}`,
    sql`${notifications.to} = ${leader('"to"')}`,
    sql`${notifications.recipient} = ${leader("recipient")}`,
    gathers,
  )!;
}

/**
 * What an attempt that could not lease its row reads to say why: the hour's counts and when a place
 * frees, and the newest and oldest notice waiting with it.
 */
export function whyNot(db: Db, id: string, now: number) {
  const since = new Date(now - HOUR_MS).toISOString();
  const nowIso = new Date(now).toISOString();
  const waiting = (fn: "max" | "min") =>
    subquery<
      string | null
    >`(SELECT ${sql.raw(fn)}(g.created_at) FROM ${notifications} g WHERE g.vuln_id = ${notifications.vulnId} AND g."to" = ${notifications.to}
      AND g.recipient = ${notifications.recipient} AND g.kind NOT IN (${aloneList}) AND g.status IN ('pending', 'delayed')
      AND (g.lease_until IS NULL OR g.lease_until <= ${nowIso}))`;
  return db
    .select({
      organizationCounted: counted("organization_id", since),
      organizationFrees: oldestCounted("organization_id", since),
      recipientCounted: counted('"to"', since),
      recipientFrees: oldestCounted('"to"', since),
      newestWaiting: waiting("max"),
      oldestWaiting: waiting("min"),
    })
    .from(notifications)
    .where(sql`${notifications.id} = ${id}`);
}
