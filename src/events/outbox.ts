import { and, asc, eq, inArray, isNull, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Db, Statement } from "../db";
import { BODY_LEFT_TO_EMPTY, comments, EMPTIED_BODY, events, vulns } from "../db/schema";
import { uuidv7 } from "../lib/ids";
import { inList } from "../db/queries";
import { LIMITS } from "../lib/limits";
import { QUEUE_BATCH_LIMIT, type QueueMessage } from "../lib/queue";
import { emailsOfEvent } from "../notifications/outbox";
import type { EventType } from "./types";

/**
 * The webhook body of a vuln event, built by SQLite from the row `v` as it stands at that point of
 * the batch, so the payload is exactly the state the change produced.
 */
const VULN_PAYLOAD = sql.raw(`json_object('vuln', json_object(
  'id', "vulns"."id", 'shortcode', "vulns"."shortcode", 'title', "vulns"."title", 'description', "vulns"."description",
  'inbox_state', "vulns"."inbox_state", 'processing_state', "vulns"."processing_state",
  'organization_id', "vulns"."organization_id", 'tags', json("vulns"."tags"),
  'assets', (SELECT json_group_array(json_object('id', a.id, 'kind', a.kind, 'value', a.value))
             FROM vuln_assets va JOIN assets a ON a.id = va.asset_id WHERE va.vuln_id = "vulns"."id"),
  'created_at', "vulns"."created_at", 'updated_at', "vulns"."updated_at"))`);

const DESTROYED_PAYLOAD = sql.raw(`json_object('vuln', json_object('id', "vulns"."id", 'destroyed', json('true')))`);

export interface PlannedEvent {
  id: string;
  type: EventType;
  /**
   * The notices the event makes (src/notifications/outbox.ts): statements for the same batch, anywhere
   * after the event's own (the unit of work puts them last, where no statement chains on them).
   */
  emails: Statement[];
}

/** A new event of `type`, with the e-mails it makes: no builder can plan an event and forget them. */
function planned(db: Db, type: EventType, now: string): PlannedEvent {
  const id = uuidv7();
  return { id, type, emails: emailsOfEvent(db, { id, type }, now) };
}

/**
 * An INSERT of one vuln event into the outbox, for the same batch as the change. With
 * `ifPreviousChanged`, it inserts only if the statement just before it changed a row (SQLite's
 * changes()), which lets a conditional UPDATE decide inside the transaction whether its event exists.
 * With `requirePreviousChanged`, a statement before it that changed nothing refuses the whole batch.
 * With `processedAt`, it is written processed: its fan-out is in the same batch (the consumer's), which
 * copies its body into the deliveries and then empties it (emptyWrittenBodies in src/webhooks/processed.ts).
 */
export function vulnEvent(
  db: Db,
  type: EventType,
  vulnId: string,
  now: string,
  opts: {
    ifPreviousChanged?: boolean;
    requirePreviousChanged?: boolean;
    organizationId?: string;
    processedAt?: string;
    /** The body, when it is not the vuln as the change left it. */
    payload?: SQL;
    /** A further condition on the vuln's row as the batch left it. */
    when?: SQL;
  } = {},
) {
  const event = planned(db, type, now);
  const payload = opts.payload ?? (type === "Vuln::Destroyed" ? DESTROYED_PAYLOAD : VULN_PAYLOAD);
  // (An insert-select builder rather than db.run(sql): drizzle's D1 batch cannot bind raw queries.)
  const statement = db.insert(events).select(
    db
      .select({
        id: sql<string>`${event.id}`.as("id"),
        organizationId: vulns.organizationId,
        vulnId: vulns.id,
        // Required: NULL (refusing the whole batch on events.type NOT NULL) unless the statement before changed a row.
        type: (opts.requirePreviousChanged ? sql<string>`CASE WHEN changes() > 0 THEN ${type} END` : sql<string>`${type}`).as("type"),
        payload: sql<string>`${payload}`.as("payload"),
        createdAt: sql<string>`${now}`.as("created_at"),
        processedAt: sql<string | null>`${opts.processedAt ?? null}`.as("processed_at"),
        lastSentAt: sql<null>`null`.as("last_sent_at"),
        nextSendAt: sql<null>`null`.as("next_send_at"),
        sendCount: sql<number>`0`.as("send_count"),
      })
      .from(vulns)
      .where(
        and(
          eq(vulns.id, vulnId),
          opts.organizationId ? eq(vulns.organizationId, opts.organizationId) : undefined,
          opts.ifPreviousChanged ? sql`changes() > 0` : undefined,
          opts.when,
        ),
      ),
  );
  return { event, statement };
}

/**
 * Vuln::Triage::Changed, for the same batch as the move and chained on the statement before it like
 * any conditional vuln event: the state the move left, the one it came from, the original of a duplicate.
 */
export function triageEvent(db: Db, vulnId: string, previous: string, now: string) {
  const payload = sql`json_object('vuln', json_object('id', "vulns"."id", 'shortcode', "vulns"."shortcode",
    'triage_state', "vulns"."triage_state", 'previous_triage_state', ${previous},
    'duplicate_of', "vulns"."duplicate_of_id", 'changed_at', ${now}))`;
  return vulnEvent(db, "Vuln::Triage::Changed", vulnId, now, { ifPreviousChanged: true, payload });
}

/**
 * Vuln::Deadline::Approaching or ::Breached for the cron's alert of `deadline` (due at `dueAt`), for the
 * batch that records the alert and chained on it like any conditional vuln event: which deadline, when
 * it is due, and whether it has passed.
 */
export function deadlineEvent(db: Db, vulnId: string, alert: { deadline: string; dueAt: string; breached: boolean }, now: string) {
  const payload = sql`json_object('deadline', json_object('vuln_id', "vulns"."id", 'shortcode', "vulns"."shortcode",
    'kind', ${alert.deadline}, 'due_at', ${alert.dueAt}, 'state', ${alert.breached ? "breached" : "pending"}))`;
  const type = alert.breached ? "Vuln::Deadline::Breached" : "Vuln::Deadline::Approaching";
  return vulnEvent(db, type, vulnId, now, { ifPreviousChanged: true, payload });
}

const COMMENT_PAYLOAD = sql.raw(`json_object('comment', json_object(
  'id', "comments"."id", 'vuln_id', "comments"."vuln_id", 'author', "comments"."author",
  'visibility', "comments"."visibility", 'body', "comments"."body", 'created_at', "comments"."created_at"))`);

/**
 * Vuln::Comment::Created for the comment `commentId`, built by SQLite from the comment's row, so it
 * belongs after the comment's INSERT in the same batch: a comment the batch did not write has no event.
 */
export function commentEvent(db: Db, commentId: string, now: string) {
  const event = planned(db, "Vuln::Comment::Created", now);
  const statement = db.insert(events).select(
    db
      .select({
        id: sql<string>`${event.id}`.as("id"),
        organizationId: comments.organizationId,
        vulnId: comments.vulnId,
        type: sql<string>`${event.type}`.as("type"),
        payload: sql<string>`${COMMENT_PAYLOAD}`.as("payload"),
        createdAt: sql<string>`${now}`.as("created_at"),
        processedAt: sql<null>`null`.as("processed_at"),
        lastSentAt: sql<null>`null`.as("last_sent_at"),
        nextSendAt: sql<null>`null`.as("next_send_at"),
        sendCount: sql<number>`0`.as("send_count"),
      })
      .from(comments)
      .where(eq(comments.id, commentId)),
  );
  return { event, statement };
}

/** What Advisory::Published says: the advisory's revision just frozen, and the reports it discloses. */
export interface AdvisoryPublished {
  advisory: { id: string; title: string; cve_id: string | null; revision: number; published_at: string; vuln_ids: string[] };
}

/** Advisory::Published, for the batch that freezes the revision (an event of no vuln). */
export function advisoryEvent(db: Db, organizationId: string, body: AdvisoryPublished, now: string) {
  const event = planned(db, "Advisory::Published", now);
  const statement = db.insert(events).values({
    id: event.id,
    organizationId,
    vulnId: null,
    type: event.type,
    payload: JSON.stringify(body),
    createdAt: now,
    processedAt: null,
    lastSentAt: null,
    nextSendAt: null,
    sendCount: 0,
  });
  return { event, statement };
}

/** The events of a batch that were written (a conditional event may not have been). */
export function writtenEvents(planned: { event: PlannedEvent; index: number }[], results: unknown[]): PlannedEvent[] {
  return planned.filter(({ index }) => ((results[index] as D1Result | undefined)?.meta?.changes ?? 0) > 0).map(({ event }) => event);
}

export const SWEEP_AFTER_MS = 60_000;
export const MAX_SWEEP_SENDS = 10;
const SWEEP_PAGE = QUEUE_BATCH_LIMIT;
// Pages a sweep takes at most: a backlog left by a queue outage (or events handed over in bulk)
// goes to the queue in one run, not a hundred a minute.
export const SWEEP_MAX_PAGES = 20;

/**
 * The cron sweep: re-sends events still unprocessed a minute after they were made, a page of 100 at
 * a time until none are due (at most SWEEP_MAX_PAGES). Each re-send waits twice as long as the one
 * before (1, 2, 4 ... minutes), and after MAX_SWEEP_SENDS the sweep gives up: such an event failed
 * every time the consumer took it (see the dead-letter queue and the logs) and stays in the outbox,
 * unprocessed, for an operator. Sending twice is harmless: the consumer processes an event once.
 * A page the queue refuses stops the sweep; its events stay due for the next run.
 */
export async function sweepOutbox(db: Db, queue: Queue<QueueMessage>, now = Date.now()): Promise<number> {
  let sent = 0;
  for (let page = 0; page < SWEEP_MAX_PAGES; page++) {
    const n = await sweepPage(db, queue, now);
    sent += n;
    if (n < SWEEP_PAGE) break;
  }
  return sent;
}

async function sweepPage(db: Db, queue: Queue<QueueMessage>, now: number): Promise<number> {
  const nowIso = new Date(now).toISOString();
  const due = await db
    .select({ id: events.id, sendCount: events.sendCount })
    .from(events)
    .where(
      and(
        isNull(events.processedAt),
        lt(events.createdAt, new Date(now - SWEEP_AFTER_MS).toISOString()),
        or(isNull(events.nextSendAt), lte(events.nextSendAt, nowIso)),
        lt(events.sendCount, MAX_SWEEP_SENDS),
      ),
    )
    .orderBy(asc(events.createdAt))
    .limit(SWEEP_PAGE);
  if (due.length === 0) return 0;
  await queue.sendBatch(due.map((e) => ({ body: { event_id: e.id }, contentType: "json" as const })));
  // One statement for all: the backoff grows with each event's own send count. It also takes the
  // page out of the next page's select.
  await db
    .update(events)
    .set({
      lastSentAt: nowIso,
      sendCount: sql`${events.sendCount} + 1`,
      nextSendAt: sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${nowIso}, '+' || (${SWEEP_AFTER_MS / 1000} * (1 << ${events.sendCount})) ||
        ' seconds')`,
    })
    .where(
      inList(
        events.id,
        due.map((e) => e.id),
      ),
    );
  return due.length;
}

/**
 * The cron step that empties the bodies of events processed before their bodies were emptied at
 * processing (EMPTIED_BODY), a page a run, oldest first; a triage move keeps its body, and an event not
 * yet processed is not touched. Its page is read from a partial index of those events alone, so once
 * they are done a run reads nothing, however many events there are. Returns the bodies emptied.
 */
export async function emptyEventBodies(db: Db): Promise<number> {
  const page = db
    .select({ id: events.id })
    .from(events)
    .where(BODY_LEFT_TO_EMPTY)
    .orderBy(asc(events.createdAt))
    .limit(LIMITS.eventBodiesEmptiedPerRun);
  const result = await db
    .update(events)
    .set({ payload: EMPTIED_BODY })
    .where(and(inArray(events.id, page), BODY_LEFT_TO_EMPTY));
  return result.meta.changes;
}
