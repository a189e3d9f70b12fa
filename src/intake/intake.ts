import { and, eq } from "drizzle-orm";
import type { Db } from "../db";
import { vulnRecords, vulns, type Submission } from "../db/schema";
import { vulnEvent } from "../events/outbox";
import { sha256Hex } from "../lib/crypto";

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

/**
 * Moves a vuln through the inbox: dispatching -> received (Vuln::Inbox::Received), then, once the
 * submission as received is kept as an immutable record, received -> stored (Vuln::Inbox::Stored).
 * Each move is a conditional UPDATE with its event chained on changes(), so the states never move
 * back and running this twice (a redelivered message) changes nothing the second time.
 * Returns the inbox state the vuln ends in, or null if the vuln no longer exists.
 */
export async function runIntake(db: Db, vulnId: string, queue?: { events: string[] }): Promise<string | null> {
  const receivedAt = new Date().toISOString();
  const received = vulnEvent(db, "Vuln::Inbox::Received", vulnId, receivedAt, { ifPreviousChanged: true });
  const [, receivedWritten, rows] = await db.batch([
    db.update(vulns).set({ inboxState: "received", updatedAt: receivedAt }).where(and(eq(vulns.id, vulnId), eq(vulns.inboxState, "dispatching"))),
    received.statement,
    db.select({ submission: vulns.submission, inboxState: vulns.inboxState }).from(vulns).where(eq(vulns.id, vulnId)),
  ]);
  if (receivedWritten.meta.changes > 0) queue?.events.push(received.event.id);
  const vuln = rows[0];
  if (!vuln) return null;
  if (vuln.inboxState === "stored") return "stored";

  const storedAt = new Date().toISOString();
  const submission = vuln.submission;
  const stored = vulnEvent(db, "Vuln::Inbox::Stored", vulnId, storedAt, { ifPreviousChanged: true });
  const [, , storedWritten] = await db.batch([
    db
      .insert(vulnRecords)
      .values({
        vulnId,
        title: submission.title,
        description: submission.description,
        contactEmail: submission.contact_email,
        domains: submission.domains,
        receivedAt: submission.received_at,
        sha256: await sha256Hex(canonicalSubmission(submission)),
        storedAt,
      })
      .onConflictDoNothing(),
    db.update(vulns).set({ inboxState: "stored", updatedAt: storedAt }).where(and(eq(vulns.id, vulnId), eq(vulns.inboxState, "received"))),
    stored.statement,
  ]);
  if (storedWritten.meta.changes > 0) queue?.events.push(stored.event.id);
  return "stored";
}

