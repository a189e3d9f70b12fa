import type { Db, Statement } from "../db";
import { events, vulns } from "../db/schema";
import { noticesIn, type WrittenNotice } from "../notifications/outbox";
import { releaseReceipt } from "../notifications/rows";
import { receiveStatements, storeStatements } from "../intake/intake";
import { type Candidate, type IntakeSignature, intakeSignature, similarityStatements, storeAndLookup } from "../intake/similarity";
import { batchOf, inList, subquery } from "../db/queries";
import { fanOut, fanOutWritten, subscribedWebhooks, targetsOf, type LeasedDelivery, type Part } from "../webhooks/fanout";
import { emptyWrittenBodies, markProcessed } from "../webhooks/processed";

// The events of one message batch processed together, in three D1 round trips whatever their
// number, where one at a time cost about eleven each (read the event, two intake batches, three
// fan-outs each reading the webhooks, then a lease per delivery):
//   1. the events, the enabled webhooks of their organizations with what each subscribes to, and
//      the submissions of the new vulns;
//   2. every event's fan-out and, for each Vuln::Created, the intake's first step (dispatching ->
//      received), its Vuln::Inbox::Received written processed with its fan-out in the statements
//      right after it, and the report's similarity signature stored and its candidates read
//      (src/intake/similarity.ts);
//   3. the intake's second step (the record, received -> stored), Vuln::Inbox::Stored likewise with the
//      e-mails it makes (the contacts told of the report, and its receipt released), what the candidates
//      scored (similar reports, the possible duplicate), and Vuln::Created marked processed: until then, a
//      retry redoes the intake.
// Every other e-mail was written with the change that wrote its event: processing an event writes none.
// An event's body is emptied once it is fanned out (a triage move's is kept: EMPTIED_BODY): in the
// write that marks it processed, or, for the intake's events written processed, by the last statement
// of their batch, after their deliveries have copied them.
// Each step is one D1 batch, so one transaction: every statement keeps the guard it has when run
// alone (conditional updates and inserts, events chained on changes(), the fan-out's unique index,
// processed_at set only if unset), so a redelivered message changes nothing. Deliveries are written
// leased to this invocation, which sends them next without a lease round trip.

/** What a step wrote for the consumer to send next: webhook deliveries (leased) and e-mails. */
export interface Written {
  deliveries: LeasedDelivery[];
  notifications: WrittenNotice[];
}

/** Runs the parts' statements as one batch and hands each part its own slice of the results. */
async function runParts(db: Db, parts: Part[]): Promise<Written> {
  const statements = parts.flatMap((p) => p.statements);
  if (statements.length === 0) return { deliveries: [], notifications: [] };
  const results = await batchOf(db, statements);
  let at = 0;
  const written: Written = { deliveries: [], notifications: [] };
  for (const p of parts) {
    const slice = results.slice(at, (at += p.statements.length));
    written.deliveries.push(...p.written(slice));
    written.notifications.push(...(p.notified?.(slice) ?? []));
  }
  return written;
}

/** The e-mails the store's batch writes: those of its Vuln::Inbox::Stored, and the report's held receipt, released. */
function emailPart(statements: Statement[]): Part {
  return { statements, written: () => [], notified: noticesIn };
}

/** A part that writes no delivery. */
function plain(statements: Statement[]): Part {
  return { statements, written: () => [] };
}

/** The step's parts, then the bodies of the events it wrote processed emptied, after everything that reads them. */
function emptiedAfter(db: Db, parts: Part[], writtenProcessed: readonly string[]): Part[] {
  return writtenProcessed.length ? [...parts, plain([emptyWrittenBodies(db, writtenProcessed)])] : parts;
}

/** The similarity signature's store and lookup, whose candidates the intake keeps for the next step. */
function lookupPart(
  db: Db,
  intake: { similar?: { signature: IntakeSignature; candidates: Candidate[] } },
  signature: IntakeSignature,
): Part {
  const lookup = storeAndLookup(db, signature);
  return {
    statements: lookup.statements,
    written: (results) => {
      intake.similar = { signature, candidates: lookup.candidates(results) };
      return [];
    },
  };
}

/**
 * Processes the events `ids` (those already processed, or gone, need nothing). The deliveries each
 * step writes, leased, go to `send` as soon as the step is committed, so the first requests leave
 * while the next step runs; it resolves once every step is committed, and throws if one fails.
 */
export async function processEventBatch(db: Db, ids: readonly string[], send: (written: Written) => void, now = Date.now()): Promise<void> {
  const eventIds = [...new Set(ids)];
  if (eventIds.length === 0) return;
  const nowIso = new Date(now).toISOString();
  const [rows, hooks, submissions] = await db.batch([
    db.select().from(events).where(inList(events.id, eventIds)),
    subscribedWebhooks(db, eventIds),
    // What the intake keeps of each new vuln, read now so that its record needs no read later.
    db
      .select({ id: vulns.id, submission: vulns.submission })
      .from(vulns)
      .where(
        subquery`${vulns.id} IN (SELECT vuln_id FROM events WHERE ${inList(events.id, eventIds)} AND type = 'Vuln::Created' AND
          processed_at IS NULL)`,
      ),
  ]);
  const targets = targetsOf(hooks);
  const submissionOf = new Map(submissions.map((v) => [v.id, v.submission]));

  const intakes: {
    eventId: string;
    vulnId: string;
    organizationId: string;
    similar?: { signature: IntakeSignature; candidates: Candidate[] };
  }[] = [];
  const first: Part[] = [];
  const received: string[] = [];
  for (const event of rows.filter((e) => e.processedAt === null)) {
    const created = event.type === "Vuln::Created" && event.vulnId !== null;
    if (created) {
      const intake: (typeof intakes)[number] = { eventId: event.id, vulnId: event.vulnId!, organizationId: event.organizationId };
      intakes.push(intake);
      const receive = receiveStatements(db, event.vulnId!, nowIso);
      first.push(plain(receive.statements), fanOutWritten(db, receive.event, event.organizationId, targets, now));
      received.push(receive.event.id);
      const submission = submissionOf.get(event.vulnId!);
      if (submission) first.push(lookupPart(db, intake, await intakeSignature(event.vulnId!, event.organizationId, submission)));
    }
    first.push(fanOut(db, event, targets, now, { markProcessed: !created }));
  }
  send(await runParts(db, emptiedAfter(db, first, received)));

  const second: Part[] = [];
  const stored: string[] = [];
  for (const intake of intakes) {
    const submission = submissionOf.get(intake.vulnId);
    if (submission) {
      const store = await storeStatements(db, intake.vulnId, submission, nowIso);
      second.push(
        plain(store.statements),
        fanOutWritten(db, store.event, intake.organizationId, targets, now),
        emailPart([...store.event.emails, releaseReceipt(db, intake.vulnId, nowIso)]),
      );
      stored.push(store.event.id);
    }
    if (intake.similar) second.push(plain(similarityStatements(db, intake.similar.signature, intake.similar.candidates, nowIso)));
    second.push(plain([markProcessed(db, intake.eventId, nowIso)]));
  }
  send(await runParts(db, emptiedAfter(db, second, stored)));
}
