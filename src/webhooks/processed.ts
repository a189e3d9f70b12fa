import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db, Statement } from "../db";
import { BODY_KEPT_TYPE, BODY_LEFT_TO_EMPTY, EMPTIED_BODY, events } from "../db/schema";
import { inList } from "../db/queries";

// The consumer's marks on an event it has fanned out (src/webhooks/fanout.ts, src/events/process-batch.ts):
// processed, and its body emptied (EMPTIED_BODY). Apart from the fan-out, so that the simulation
// (bench/simulate/statements.ts) builds the same statements in Node.

/**
 * An event marked processed once it is fanned out, and its body emptied in the same write (see
 * EMPTIED_BODY): its deliveries carry their own copies, written from the event as read, before this.
 */
export function markProcessed(db: Db, eventId: string, nowIso: string): Statement {
  return db
    .update(events)
    .set({
      processedAt: nowIso,
      payload: sql`CASE WHEN ${events.type} = ${BODY_KEPT_TYPE} THEN ${events.payload} ELSE ${EMPTIED_BODY} END`,
    })
    .where(and(eq(events.id, eventId), isNull(events.processedAt)));
}

/**
 * The bodies of events written processed in this batch (the intake's), emptied: for the end of the
 * batch, once every statement before it has copied them into their deliveries (fanOutWritten reads
 * the event's row) or read them otherwise. An event the batch did not write is not touched.
 */
export function emptyWrittenBodies(db: Db, eventIds: readonly string[]): Statement {
  return db
    .update(events)
    .set({ payload: EMPTIED_BODY })
    .where(and(inList(events.id, eventIds), BODY_LEFT_TO_EMPTY));
}
