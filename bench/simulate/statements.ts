// The Worker's own statements for the writes that carry bodies, built once by the same builders the
// Worker calls (src/events/outbox.ts, src/intake/intake.ts, and src/webhooks/fanout.ts for the marks
// that empty an event's body once fanned out) over the same Drizzle schema, with placeholders where a
// report's values go. The SQL is what D1 would run, bodies made by SQLite from the rows as the Worker's
// are; only the values differ.
import { and, eq, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import type { DatabaseSync } from "node:sqlite";
import { advisories, events, notifications, vulns, webhookDeliveries } from "../../src/db/schema/index.ts";
import { advisoryEvent, commentEvent, deadlineEvent, triageEvent, vulnEvent } from "../../src/events/outbox.ts";
import type { EventType } from "../../src/events/types.ts";
import { receiveStatements, storeStatements } from "../../src/intake/intake.ts";
import { emptyWrittenBodies, markProcessed } from "../../src/webhooks/processed.ts";
import { type Built, slot, Template } from "./database.ts";

// A Drizzle client that only builds: nothing is sent through it.
const builder = drizzle(async () => ({ rows: [] })) as unknown as Parameters<typeof vulnEvent>[0];

type Buildable = { toSQL(): Built };

/** The statement with the event id the builder made replaced by the `eventId` slot. */
function withEventSlot(statement: Buildable, eventId: string): Built {
  const built = statement.toSQL();
  return { sql: built.sql, params: built.params.map((p) => (p === eventId ? slot("eventId") : p)) };
}

const VULN_EVENTS = ["Vuln::Created", "Vuln::Read", "Vuln::Updated", "Vuln::Processing::Closed"] as const satisfies readonly EventType[];

export type VulnEventType = (typeof VULN_EVENTS)[number];

export interface Statements {
  vulnEvent: Record<VulnEventType, Template>;
  receive: Template[];
  store: Template[];
  triage: Template;
  /** The cron's deadline alert event, approaching or breached. */
  deadline: Record<"approaching" | "breached", Template>;
  comment: Template;
  advisory: Template;
  /** A webhook delivery of an event, its body copied from the event's row as the fan-out does. */
  delivery: Template;
  /** The consumer's mark that an event is processed: it empties the body (a triage move's kept), or, before bodies were emptied, it only marks. */
  markProcessed: Template;
  /** The intake's events written processed, their bodies emptied at the end of their batch; none before bodies were emptied. */
  emptyWritten: Template | null;
  releaseReceipt: Template;
  readVuln: Template;
  moveTriage: Template;
  disclose: Template;
  /** An assessment: severity and CVSS set. */
  assess: Template;
  /** A published advisory's revision 2. */
  revise: Template;
}

/**
 * The statements, with an event's body emptied once it is fanned out as the Worker does now
 * ("emptied"), or kept, as before it did ("kept"), for the comparison.
 */
export async function prepareStatements(db: DatabaseSync, bodies: "emptied" | "kept"): Promise<Statements> {
  const t = (built: Built) => new Template(db, built);
  const vulnEvents = Object.fromEntries(
    VULN_EVENTS.map((type) => {
      const { event, statement } = vulnEvent(builder, type, slot("vulnId"), slot("now"));
      return [type, t(withEventSlot(statement, event.id))];
    }),
  ) as Record<VulnEventType, Template>;

  const received = receiveStatements(builder, slot("vulnId"), slot("now"));
  const submission = {
    title: slot("title"),
    description: slot("description"),
    contact_email: slot("contactEmail"),
    domains: [slot("domain")],
    received_at: slot("receivedAt"),
  };
  const stored = await storeStatements(builder, slot("vulnId"), submission as never, slot("now"));
  const hashSlot = (b: Built): Built => ({
    sql: b.sql,
    params: b.params.map((p) => (typeof p === "string" && /^[0-9a-f]{64}$/.test(p) ? slot("sha256") : p)),
  });

  const triage = triageEvent(builder, slot("vulnId"), slot("previous"), slot("now"));
  const deadline = (breached: boolean) => {
    const built = deadlineEvent(builder, slot("vulnId"), { deadline: slot("deadline"), dueAt: slot("dueAt"), breached }, slot("now"));
    return t(withEventSlot(built.statement, built.event.id));
  };
  const comment = commentEvent(builder, slot("commentId"), slot("now"));
  const advisory = advisoryEvent(
    builder,
    slot("organizationId"),
    {
      advisory: {
        id: slot("advisoryId"),
        title: slot("title"),
        cve_id: slot("cveId"),
        revision: slot("revision") as unknown as number,
        published_at: slot("now"),
        vuln_ids: [slot("vulnId")],
      },
    },
    slot("now"),
  );

  // The fan-out's insert (src/webhooks/fanout.ts), written delivered with its one attempt's outcome:
  // the rows the consumer leaves once the receiver answers.
  const delivery = builder.insert(webhookDeliveries).select(
    builder
      .select({
        id: sql<string>`${slot("deliveryId")}`.as("id"),
        webhookId: sql<string>`${slot("webhookId")}`.as("webhook_id"),
        organizationId: events.organizationId,
        eventId: events.id,
        eventType: events.type,
        requestBody: events.payload,
        redeliveryOf: sql<null>`null`.as("redelivery_of"),
        status: sql<string>`${slot("status")}`.as("status"),
        attemptCount: sql<number>`${slot("attempts")}`.as("attempt_count"),
        lastStatusCode: sql<number>`${slot("statusCode")}`.as("last_status_code"),
        nextAttemptAt: sql<null>`null`.as("next_attempt_at"),
        leaseUntil: sql<null>`null`.as("lease_until"),
        createdAt: sql<string>`${slot("now")}`.as("created_at"),
        updatedAt: sql<string>`${slot("now")}`.as("updated_at"),
      })
      .from(events)
      .where(eq(events.id, slot("eventId"))),
  );

  return {
    vulnEvent: vulnEvents,
    receive: [t(received.statements[0]!.toSQL()), t(withEventSlot(received.statements[1]!, received.event.id))],
    store: [
      t(hashSlot(stored.statements[0]!.toSQL())),
      t(stored.statements[1]!.toSQL()),
      t(withEventSlot(stored.statements[2]!, stored.event.id)),
    ],
    triage: t(withEventSlot(triage.statement, triage.event.id)),
    deadline: { approaching: deadline(false), breached: deadline(true) },
    comment: t(withEventSlot(comment.statement, comment.event.id)),
    advisory: t(withEventSlot(advisory.statement, advisory.event.id)),
    delivery: t(delivery.toSQL()),
    markProcessed: t(
      bodies === "emptied"
        ? (markProcessed(builder, slot("eventId"), slot("now")) as unknown as Buildable).toSQL()
        : builder
            .update(events)
            .set({ processedAt: slot("now") })
            .where(and(eq(events.id, slot("eventId")), isNull(events.processedAt)))
            .toSQL(),
    ),
    emptyWritten: bodies === "emptied" ? t((emptyWrittenBodies(builder, [slot("eventId")]) as unknown as Buildable).toSQL()) : null,
    releaseReceipt: t(
      builder
        .update(notifications)
        .set({
          status: "sent",
          sentAt: slot("now"),
          attemptCount: 1,
          messageId: slot("messageId"),
          sealedLink: null,
          updatedAt: slot("now"),
        })
        .where(and(eq(notifications.vulnId, slot("vulnId")), eq(notifications.kind, "receipt")))
        .toSQL(),
    ),
    readVuln: t(
      builder
        .update(vulns)
        .set({ readAt: slot("now"), updatedAt: slot("now") })
        .where(eq(vulns.id, slot("vulnId")))
        .toSQL(),
    ),
    moveTriage: t(
      builder
        .update(vulns)
        .set({
          triageState: slot("state") as never,
          processingState: slot("processing") as never,
          acknowledgedAt: sql`coalesce(${vulns.acknowledgedAt}, ${slot("now")})`,
          closedAt: sql`CASE WHEN ${slot("processing")} = 'closed' THEN ${slot("now")} END`,
          closedBy: sql`CASE WHEN ${slot("processing")} = 'closed' THEN 'organization' END`,
          updatedAt: slot("now"),
        })
        .where(eq(vulns.id, slot("vulnId")))
        .toSQL(),
    ),
    disclose: t(
      builder
        .update(vulns)
        .set({ disclosedAt: slot("now"), updatedAt: slot("now") })
        .where(eq(vulns.id, slot("vulnId")))
        .toSQL(),
    ),
    assess: t(
      builder
        .update(vulns)
        .set({
          severity: "high",
          cvssVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
          cvssScore: 7.5,
          cvssVersion: "3.1",
          updatedAt: slot("now"),
        })
        .where(eq(vulns.id, slot("vulnId")))
        .toSQL(),
    ),
    revise: t(
      builder
        .update(advisories)
        .set({ revision: 2, description: slot("description"), updatedAt: slot("now") })
        .where(eq(advisories.id, slot("advisoryId")))
        .toSQL(),
    ),
  };
}
