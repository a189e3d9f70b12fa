import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { vulnRecords, vulns, type Submission } from "../db/schema";
import { vulnEvent } from "../events/outbox";
import { sha256Hex } from "../lib/crypto";

// The inbox pipeline moves a vuln dispatching -> received (Vuln::Inbox::Received), then, once the
// submission as received is kept as an immutable record, received -> stored (Vuln::Inbox::Stored).
// Each move is a conditional UPDATE with its event chained on changes(), so the states never move
// back and running a step twice (a redelivered message) changes nothing the second time. The
// consumer runs the steps, batched with other events' work (src/events/process-batch.ts).

/**
 * The canonical form of a submission, whose SHA-256 the intake record keeps: JSON with the keys in
 * this fixed order and the domains as received. Anyone holding the record can recompute the hash.
 */
export function canonicalSubmission(s: Submission): string {
  return JSON.stringify({
    title: s.title,
    description: s.description,
    contact_email: s.contact_email,
    domains: s.domains,
    received_at: s.received_at,
  });
}

// The consumer fans the intake's events out in the batch that writes them, so they are written processed,
// with their bodies, which the batch empties once their deliveries have copied them.

/** dispatching -> received, and Vuln::Inbox::Received if it moved. */
export function receiveStatements(db: Db, vulnId: string, nowIso: string) {
  const received = vulnEvent(db, "Vuln::Inbox::Received", vulnId, nowIso, { ifPreviousChanged: true, processedAt: nowIso });
  return {
    event: received.event,
    statements: [
      db
        .update(vulns)
        .set({ inboxState: "received", updatedAt: nowIso })
        .where(and(eq(vulns.id, vulnId), eq(vulns.inboxState, "dispatching"))),
      received.statement,
    ],
  };
}

/**
 * For a vuln that is received: the record of its submission as received, received -> stored, and
 * Vuln::Inbox::Stored if it moved. Each statement is conditional, so for a vuln already stored (or
 * gone) they change nothing.
 */
export async function storeStatements(db: Db, vulnId: string, submission: Submission, nowIso: string) {
  const stored = vulnEvent(db, "Vuln::Inbox::Stored", vulnId, nowIso, { ifPreviousChanged: true, processedAt: nowIso });
  const sha256 = await sha256Hex(canonicalSubmission(submission));
  const value = <T>(v: T, name: string) => sql<T>`${v}`.as(name);
  return {
    event: stored.event,
    statements: [
      db
        .insert(vulnRecords)
        .select(
          db
            .select({
              vulnId: vulns.id,
              title: value(submission.title, "title"),
              description: value(submission.description, "description"),
              contactEmail: value(submission.contact_email, "contact_email"),
              domains: value(JSON.stringify(submission.domains), "domains"),
              receivedAt: value(submission.received_at, "received_at"),
              sha256: value(sha256, "sha256"),
              storedAt: value(nowIso, "stored_at"),
              policyVersionNumber: vulns.policyVersionNumber,
              policyVersionSha256: vulns.policyVersionSha256,
            })
            .from(vulns)
            .where(and(eq(vulns.id, vulnId), eq(vulns.inboxState, "received"))),
        )
        .onConflictDoNothing(),
      db
        .update(vulns)
        .set({ inboxState: "stored", updatedAt: nowIso })
        .where(and(eq(vulns.id, vulnId), eq(vulns.inboxState, "received"))),
      stored.statement,
    ],
  };
}
