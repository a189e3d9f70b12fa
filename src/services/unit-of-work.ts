import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { publishEvents, writtenEvents, type PlannedEvent } from "../events/outbox";
import type { ServiceContext, Stale } from "./context";
import { batchOf } from "../db/queries";
import type { IdempotencyKeyRow } from "../db/schema";
import type { StoredResponse } from "../http/idempotency-key";
import { noticesIn, publishNotices } from "../notifications/outbox";

type Statements = Readonly<[BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]>;

/**
 * A read batch. When the request carries an Idempotency-Key not yet reserved, the reservation rides
 * in the same batch, so an idempotent write still costs one read round trip.
 */
export async function readBatch<T extends Statements>(ctx: ServiceContext, statements: T): Promise<BatchResponse<T>> {
  const unit = ctx.idempotency;
  if (!unit || unit.reserved) return ctx.db.batch(statements);
  const [upsert, select] = unit.reserveStatements();
  const results = await batchOf(ctx.db, [upsert, select, ...statements]);
  unit.settle(results[1] as IdempotencyKeyRow[]);
  return results.slice(2) as BatchResponse<T>;
}

/** Where a statement's result is in a committed plan's results: read it by its handle, never by an index. */
export class Handle<T> {
  constructor(private readonly index: number) {}

  of(results: readonly unknown[]): T {
    return results[this.index] as T;
  }
}

/** A change planned by a service: the record it makes, its statements, the events among them, and their e-mails. */
export class Plan<R> {
  readonly statements: BatchItem<"sqlite">[] = [];
  readonly events: { event: PlannedEvent; index: number }[] = [];
  /** The notices the planned events make, written after every statement of the change. */
  readonly emails: BatchItem<"sqlite">[] = [];

  constructor(readonly record: R) {}

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
 * read of them is fresh. Every write of public data ends here; no route evicts anything itself.
 */
export async function evictStale(ctx: ServiceContext, stale: Stale): Promise<void> {
  if (Object.values(stale).some((keys) => keys?.length) && ctx.evict) await ctx.evict(stale);
}

/**
 * Commits a plan in one D1 batch: the change, its outbox events, the e-mails they make (last: each
 * reads its event's row, and none may come between a statement and the one chained on it) and, with
 * an Idempotency-Key, the stored response. Then hands the events and e-mails written to the queue,
 * after the response.
 */
export async function commit<R>(
  ctx: ServiceContext,
  p: Plan<R>,
  respond?: Responder<R>,
): Promise<{ events: PlannedEvent[]; results: unknown[] }> {
  const unit = ctx.idempotency;
  if (unit && !unit.reserved) await unit.reserve();
  const statements = [...p.statements, ...p.emails];
  if (unit && respond) statements.push(unit.sealStatement(respond(p.record)));
  if (statements.length === 0) return { events: [], results: [] };
  const results = await batchOf(ctx.db, statements);
  if (unit && respond) unit.sealed = true;
  const events = writtenEvents(p.events, results);
  if (events.length)
    ctx.defer(
      publishEvents(
        ctx.queue,
        events.map((e) => e.id),
      ),
    );
  const notices = noticesIn(results.slice(p.statements.length, p.statements.length + p.emails.length));
  if (notices.length) ctx.defer(publishNotices(ctx.queue, notices));
  return { events, results: results.slice(0, p.statements.length) };
}
