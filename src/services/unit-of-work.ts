import { getTableName, is, Table } from "drizzle-orm";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { SQLiteDeleteBase, SQLiteInsertBase, SQLiteUpdateBase } from "drizzle-orm/sqlite-core";
import { writtenEvents, type PlannedEvent } from "../events/outbox";
import { publishEvents } from "../lib/queue";
import type { ServiceContext } from "./context";
import type { Stale } from "../lib/stale";
import { batchOf } from "../db/queries";
import {
  advisories,
  auditEvents,
  briefs,
  directories,
  directoryListingItems,
  directoryListings,
  events,
  idempotencyKeys,
  inboundEmails,
  notifications,
  organizations,
  policies,
  webauthnChallenges,
  type IdempotencyKeyRow,
} from "../db/schema";
import type { StoredResponse } from "../lib/domain-errors";
import { noticesIn, publishNotices } from "../notifications/outbox";
import { type AuditEntry, auditStatement, isPlatform } from "./audit";
import { assertMayWrite } from "./access";

type Statements = Readonly<[BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]>;

/**
 * A read batch. When the request carries an Idempotency-Key not yet reserved, the reservation rides
 * in the same batch, so an idempotent write still costs one read round trip.
 */
export async function readBatch<T extends Statements>(ctx: ServiceContext, statements: T): Promise<BatchResponse<T>> {
  const unit = ctx.idempotency;
  if (!unit || unit.reserved) return ctx.db.batch(statements);
  if (!unit.keptIn(ctx.db)) {
    await unit.reserve();
    return ctx.db.batch(statements);
  }
  const [upsert, select] = unit.reserveStatements();
  const results = await batchOf(ctx.db, [upsert, select, ...statements]);
  unit.settle(results[1] as IdempotencyKeyRow[]);
  return results.slice(2) as BatchResponse<T>;
}

/** Where a statement's result is in a committed plan's results: read it by its handle, never by an index. */
export class Handle<T> {
  constructor(readonly index: number) {}

  of(results: readonly unknown[]): T {
    return results[this.index] as T;
  }
}

/**
 * The tables the public reads (briefs, policies, directories, advisories, an organization's files) are
 * made from: a plan that writes one of them must say what it makes stale (see Plan.evicts), or its
 * commit refuses to run.
 */
const PUBLIC_TABLES = new Set<string>(
  [organizations, policies, briefs, directories, directoryListings, directoryListingItems, advisories].map((t) => getTableName(t)),
);

/**
 * The tables a plan may write without an audit entry: bookkeeping that is nobody's change. The outbox's
 * events and the e-mails (notifications) ride with a change that is audited, or are the queue's; an
 * Idempotency-Key's record is the request's; an inbound e-mail's Message-ID rides with the comment it
 * made; a WebAuthn challenge is a sign-in's step (the sign-in is audited); and the audit log itself.
 * Any other write needs `Plan.audits`, or commit refuses the plan before it writes.
 */
export const UNAUDITED_TABLES: ReadonlySet<string> = new Set(
  [events, notifications, idempotencyKeys, inboundEmails, webauthnChallenges, auditEvents].map((t) => getTableName(t)),
);

/**
 * The table an insert, update or delete writes; null for a read. (Every write of a plan is a query
 * builder: Drizzle's D1 batch cannot bind a raw `db.run(sql)`.)
 */
function writtenTable(statement: BatchItem<"sqlite">): string | null {
  if (!is(statement, SQLiteInsertBase) && !is(statement, SQLiteUpdateBase) && !is(statement, SQLiteDeleteBase)) return null;
  const table: unknown = (Reflect.get(statement, "config") as { table?: unknown } | undefined)?.table;
  return is(table, Table) ? getTableName(table) : null;
}

/**
 * Statements a change makes in another area as its consequence (publishing an advisory marks its vulns
 * disclosed; a report's domains become assets): commit does not ask the caller for their tables' scopes.
 */
const CONSEQUENCES = new WeakSet<object>();

/** Marks a statement as a consequence of its plan's change (see CONSEQUENCES); returns it. */
export function consequence<S extends BatchItem<"sqlite">>(statement: S): S {
  CONSEQUENCES.add(statement);
  return statement;
}

/** The tables a plan's own statements write, each needing its scope (consequences aside). */
function scopedTables(p: Plan<unknown>): string[] {
  return p.statements.flatMap((s) => (CONSEQUENCES.has(s) ? [] : [writtenTable(s)].filter((t): t is string => t !== null)));
}

/** A record just made: no public read of it was ever cached (a not-found answer is never stored). */
export const NEW_RECORD: Stale = {};

/** What a committed change made stale, from its statements' results (read by their handles). */
export type Evicts = Stale | ((results: readonly unknown[]) => Stale);

/**
 * A change planned by a service: the record it makes, its statements, the events among them, their
 * e-mails, and the public reads it makes stale. commit runs it and then evicts those reads, so no
 * service evicts anything itself.
 */
export class Plan<R> {
  readonly statements: BatchItem<"sqlite">[] = [];
  readonly events: { event: PlannedEvent; index: number }[] = [];
  /** The notices the planned events make, written after every statement of the change. */
  readonly emails: BatchItem<"sqlite">[] = [];
  /** Undefined until said: a plan writing public data must say, even that it makes nothing stale. */
  stale?: Evicts;
  /** The audit log's entries for this change, written in its batch (`after`: only if that statement changed a row). */
  readonly audit: { entry: AuditEntry; after?: number }[] = [];
  /** Why a plan of the platform's own writes no audit row (see Plan.unaudited). */
  bookkeeping?: string;
  /** A read's own bookkeeping (the first read marks a vuln read): needs the `read` scope, not its tables'. */
  private read = false;

  constructor(readonly record: R) {}

  /** What the change makes stale among the public reads: keys, or a function of the results. */
  evicts(stale: Evicts): this {
    this.stale = stale;
    return this;
  }

  /** Says the plan is a read's own bookkeeping: commit asks the caller for `read`, not for the scopes of what it writes. */
  partOfRead(): this {
    this.read = true;
    return this;
  }

  get isPartOfRead(): boolean {
    return this.read;
  }

  /**
   * Says what the change is for the audit log: commit writes the row in the change's own batch. With
   * `ifChanged`, the row is written right after that statement and only if it changed a row: a
   * guarded update that lost a race, or a delete that found nothing, leaves no audit row.
   */
  audits(entry: AuditEntry, { ifChanged }: { ifChanged?: Handle<unknown> } = {}): this {
    this.audit.push({ entry, ...(ifChanged && { after: ifChanged.index }) });
    return this;
  }

  /**
   * The platform's own bookkeeping (the cron's scheduling marks, a backfill), which is no one's change:
   * commits without an audit row, saying why. Refused for any caller but the platform itself.
   */
  unaudited(reason: string): this {
    this.bookkeeping = reason;
    return this;
  }

  add(statement: BatchItem<"sqlite">, event?: PlannedEvent): this {
    this.track(statement, event);
    return this;
  }

  /** Adds a statement whose result the service reads after the commit, and hands back its handle. */
  track<T = unknown>(statement: BatchItem<"sqlite">, event?: PlannedEvent): Handle<T> {
    if (event) {
      this.events.push({ event, index: this.statements.length });
      this.emails.push(...event.emails);
    }
    this.statements.push(statement);
    return new Handle<T>(this.statements.length - 1);
  }
}

/**
 * How a create's response is made, for storing with an Idempotency-Key. Called only when the request
 * carries one, so requests without a key never serialize twice.
 */
export type Responder<R> = (record: R) => StoredResponse;

/**
 * After a change has committed: evicts the public reads it made stale, awaited, so the writer's next
 * read of them is fresh. Only commit calls it: every write of public data is a plan.
 */
async function evictStale(ctx: ServiceContext, stale: Stale): Promise<void> {
  if (Object.values(stale).some((keys) => keys?.length) && ctx.evict) await ctx.evict(stale);
}

/** A plan that writes a public table and has not said what it makes stale is a mistake of its service. */
function assertEvictionSaid(p: Plan<unknown>): void {
  if (p.stale !== undefined) return;
  const table = p.statements.map(writtenTable).find((t) => t !== null && PUBLIC_TABLES.has(t));
  if (table) throw new Error(`A plan writes ${table}, whose rows public reads show, without saying what it makes stale (Plan.evicts).`);
}

/**
 * A plan that writes anything but bookkeeping (UNAUDITED_TABLES) must say what it is for the audit log.
 * Refused before the batch, like a missing eviction: no change commits without its audit row.
 */
function assertAuditSaid(ctx: ServiceContext, p: Plan<unknown>): void {
  if (p.bookkeeping !== undefined) {
    if (!isPlatform(ctx.caller)) throw new Error(`Plan.unaudited (${p.bookkeeping}) is for only the platform's own work.`);
    return;
  }
  if (p.audit.length) return;
  const table = p.statements.map(writtenTable).find((t) => t !== null && !UNAUDITED_TABLES.has(t));
  if (table) throw new Error(`A plan writes ${table} without saying what it is for the audit log (Plan.audits).`);
}

/** The plan's statements with each conditional audit row right after its statement, and where each statement went. */
function withAuditRows(ctx: ServiceContext, p: Plan<unknown>): { statements: BatchItem<"sqlite">[]; at: number[] } {
  const statements: BatchItem<"sqlite">[] = [];
  const at: number[] = [];
  p.statements.forEach((statement, i) => {
    at.push(statements.length);
    statements.push(statement);
    for (const { entry, after } of p.audit) if (after === i) statements.push(auditStatement(ctx, entry, { ifPreviousChanged: true }));
  });
  return { statements, at };
}

/**
 * Commits a plan in one D1 batch: the change, its outbox events, the e-mails they make (last: each
 * reads its event's row, and none may come between a statement and the one chained on it), its audit
 * rows and, with an Idempotency-Key, the stored response. Then evicts the public reads the plan made stale (awaited,
 * so the writer's next read is fresh) and hands the events and e-mails written to the queue, after
 * the response.
 */
export async function commit<R>(
  ctx: ServiceContext,
  p: Plan<R>,
  respond?: Responder<R>,
): Promise<{ events: PlannedEvent[]; results: unknown[] }> {
  assertEvictionSaid(p);
  assertAuditSaid(ctx, p);
  // Before anything is reserved or written: a caller without the scope leaves no trace.
  assertMayWrite(ctx, scopedTables(p), p.isPartOfRead);
  const unit = ctx.idempotency;
  if (unit && !unit.reserved) await unit.reserve();
  const { statements, at } = withAuditRows(ctx, p);
  const emailsFrom = statements.length;
  // The other audit rows go after the e-mails: each e-mail reads its event's row, so nothing comes between.
  statements.push(...p.emails, ...p.audit.filter((a) => a.after === undefined).map((a) => auditStatement(ctx, a.entry)));
  // The key's record is kept in the request's database; a change committed elsewhere (an operator's new
  // organization, written in its shard while the request reads the catalog) seals it there right after.
  const sealInBatch = unit !== undefined && respond !== undefined && unit.keptIn(ctx.db);
  if (sealInBatch) statements.push(unit.sealStatement(respond(p.record)));
  if (statements.length === 0) return { events: [], results: [] };
  const results = await batchOf(ctx.db, statements);
  if (sealInBatch) unit.sealed = true;
  else if (unit && respond) await unit.sealAfterCommit(respond(p.record));
  const own = at.map((i) => results[i]);
  const events = writtenEvents(p.events, own);
  if (events.length)
    ctx.defer(
      publishEvents(
        ctx.queue,
        events.map((e) => e.id),
      ),
    );
  const notices = noticesIn(results.slice(emailsFrom, emailsFrom + p.emails.length));
  if (notices.length) ctx.defer(publishNotices(ctx.queue, notices));
  if (p.stale) await evictStale(ctx, typeof p.stale === "function" ? p.stale(own) : p.stale);
  return { events, results: own };
}
