import { eq } from "drizzle-orm";
import { createDb, type Db } from "../db";
import { events } from "../db/schema";
import { runIntake } from "../intake/intake";
import { markProcessed, publishEvents, type EventMessage } from "./outbox";

// A failed message comes back after 10 s, 20 s, 40 s ... up to 10 minutes; after max_retries
// (wrangler.toml) it goes to the dead-letter queue, never to nowhere.
export function retryDelaySeconds(attempts: number): number {
  return Math.min(600, 10 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Processes one outbox event: runs the intake for Vuln::Created, then marks the event processed.
 * An event already processed, or no longer in the outbox, is a no-op. Returns new events to publish.
 */
export async function processEvent(db: Db, eventId: string): Promise<string[]> {
  const event = await db.select({ type: events.type, vulnId: events.vulnId, processedAt: events.processedAt }).from(events).where(eq(events.id, eventId)).get();
  if (!event || event.processedAt) return [];
  const produced = { events: [] as string[] };
  if (event.type === "Vuln::Created" && event.vulnId) await runIntake(db, event.vulnId, produced);
  await markProcessed(db, eventId, new Date().toISOString());
  return produced.events;
}

/**
 * The queue consumer. Each message is acknowledged only after its event has been processed and
 * recorded; any failure retries that message alone, so nothing is lost and nothing is repeated
 * beyond the idempotent steps above.
 */
export async function consumeEvents(batch: MessageBatch<EventMessage>, env: Env): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const eventId = (message.body as Partial<EventMessage> | null)?.event_id;
    try {
      if (typeof eventId !== "string") throw new Error("message has no event_id");
      const produced = await processEvent(db, eventId);
      await publishEvents(env.EVENTS as Queue<EventMessage>, produced);
      message.ack();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "event processing failed; retrying", event_id: eventId, attempts: message.attempts, error: String(err) }));
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
