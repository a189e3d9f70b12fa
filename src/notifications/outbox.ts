import { and, eq, isNotNull, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db, Statement } from "../db";
import {
  advisories,
  briefs,
  contacts,
  events,
  members,
  notifications,
  organizations,
  vulns,
  type ContactRole,
  type NotificationKind,
} from "../db/schema";
import { uuidv7 } from "../lib/ids";
import { subquery } from "../db/queries";
import { CRA_KINDS, type DeadlineKind } from "../lib/deadlines";
import { publishNotifications, type QueueMessage } from "../lib/queue";
import { SUBJECT_LENGTH, SUBJECTS, type SubjectPart } from "./templates";

// Who is told what, by e-mail. Every e-mail is written to the outbox in the same D1 batch as the change
// that causes it: each outbox event a change writes brings the INSERT ... SELECTs of the notices it
// makes (emailsOfEvent, appended to the change's batch by the unit of work and by the intake), which
// read the event's row as the batch wrote it, the report, and the organization's confirmed contacts,
// so nothing is written for an event that was not, nor for a contact not confirmed when the change
// committed. A unique index on (event, address, kind) keeps an event from e-mailing anyone twice. The
// rows a service writes itself (a contact's confirmation, a report's receipt) are in rows.ts.

/**
 * Notices about a report wait this long after the last one to the same address about it, so that what
 * one action (or a few in a row) changes goes as one e-mail; never longer than GATHER_BOUND_MS after
 * the first. The receipt, a contact's confirmation and a sign-in link never wait.
 */
export const GATHER_MS = 30_000;
export const GATHER_BOUND_MS = 120_000;
export const SENT_ALONE: readonly NotificationKind[] = ["receipt", "contact_confirmation", "member_invitation", "sign_in_link"];

/** A written notice, as its INSERT returns it: enough to hand it to the queue. */
export interface WrittenNotice {
  id: string;
  kind: NotificationKind;
}

/** Hands written notices to the queue, each when it is due: a notice that gathers others, once its wait is over. */
export async function publishNotices(queue: Queue<QueueMessage>, notices: readonly WrittenNotice[]): Promise<void> {
  const alone = notices.filter((n) => SENT_ALONE.includes(n.kind)).map((n) => n.id);
  const gathering = notices.filter((n) => !SENT_ALONE.includes(n.kind)).map((n) => n.id);
  if (alone.length) await publishNotifications(queue, alone);
  if (gathering.length) await publishNotifications(queue, gathering, GATHER_MS / 1000 + 1);
}

/** The notices among a batch's results (each an INSERT's returned rows). */
export function noticesIn(results: readonly unknown[]): WrittenNotice[] {
  return results.flatMap((rows) => (Array.isArray(rows) ? (rows as WrittenNotice[]) : []));
}

// --- SQL: the values a notice is made of, from the rows the batch left --------------------------------

/** A constant of the code as an SQL literal (never a value from outside: those are bound). */
const literal = (text: string) => sql.raw(`'${text.replaceAll("'", "''")}'`);

// What oneLine (templates.ts) folds to a space, by code point: SQLite has no regular expressions.
const FOLDED = [
  ...Array(32).keys(),
  0x7f,
  0xa0,
  0x1680,
  ...Array.from({ length: 11 }, (_, i) => 0x2000 + i),
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000,
  0xfeff,
];

/**
 * oneLine in SQL: each folded character a space, runs of spaces one (ten halvings fold any run a
 * subject can hold, under 1,024 characters), trimmed, and cut to SUBJECT_LENGTH characters with an ellipsis.
 */
function oneLineSql(text: SQL): SQL {
  let folded = text;
  for (const code of FOLDED) folded = sql`replace(${folded}, char(${sql.raw(String(code))}), ' ')`;
  for (let i = 0; i < 10; i++) folded = sql`replace(${folded}, '  ', ' ')`;
  return subquery`(SELECT CASE WHEN length(s) > ${sql.raw(String(SUBJECT_LENGTH))} THEN substr(s, 1,
    ${sql.raw(String(SUBJECT_LENGTH - 1))}) || '…' ELSE s END FROM (SELECT trim(${folded}) AS s))`;
}

/** A notice's params, by path ("report.title"), as SQL values of the rows the batch left. */
type Fields = Record<string, SQL | SQLiteColumn>;

/** The subject of `kind`, in SQL, from the same parts as subjectOf. */
function subjectSql(kind: NotificationKind, fields: Fields): SQL {
  const value = (path: string) => {
    const field = fields[path];
    if (!field) throw new Error(`the subject of ${kind} names ${path}, which its notice does not have`);
    return sql`${field}`;
  };
  const said = SUBJECTS[kind].map((part: SubjectPart) => {
    if (typeof part === "string") return literal(part);
    if ("time" in part) return sql`(substr(${value(part.time)}, 1, 10) || ' ' || substr(${value(part.time)}, 12, 5) || ' UTC')`;
    if ("words" in part) {
      const cases = Object.entries(part.words).map(([key, words]) => sql`WHEN ${literal(key)} THEN ${literal(words)}`);
      return sql`(CASE ${value(part.param)} ${sql.join(cases, sql` `)} ELSE ${value(part.param)} END)`;
    }
    return sql`coalesce(${value(part.param)}, '')`;
  });
  // Only a name or a title can hold what oneLine folds: a subject of codes, words and times is one line as it is.
  const free = SUBJECTS[kind].some(
    (part) => typeof part === "object" && "param" in part && !("words" in part) && part.param !== "report.shortcode",
  );
  const subject = sql.join(said, sql` || `);
  return free ? oneLineSql(subject) : subject;
}

/** The params as JSON, nested by their paths. */
function paramsSql(kind: NotificationKind, fields: Fields): SQL {
  const tree = new Map<string, Map<string, SQL | SQLiteColumn>>();
  const top: SQL[] = [sql`'kind', ${literal(kind)}`];
  for (const [path, field] of Object.entries(fields)) {
    const [head, tail] = path.split(".") as [string, string | undefined];
    if (tail === undefined) top.push(sql`${literal(head)}, ${field}`);
    else tree.set(head, (tree.get(head) ?? new Map()).set(tail, field));
  }
  for (const [head, members] of tree) {
    const inner = [...members].map(([name, field]) => sql`${literal(name)}, ${field}`);
    top.push(sql`${literal(head)}, json_object(${sql.join(inner, sql`, `)})`);
  }
  return sql`json_object(${sql.join(top, sql`, `)})`;
}

/** What every notice about a report says of it (ReportParams), as the batch left the report. */
const REPORT_FIELDS: Fields = {
  "report.id": vulns.id,
  "report.shortcode": vulns.shortcode,
  "report.title": vulns.title,
  "report.brief": subquery`(SELECT b.name FROM ${briefs} b WHERE b.id = ${vulns.briefId})`,
  "report.organization": subquery`(SELECT o.name FROM ${organizations} o WHERE o.id = ${vulns.organizationId})`,
};

const payload = (path: string) => sql`json_extract(${events.payload}, ${literal(`$.${path}`)})`;

/** Who a notice goes to: the columns of its recipient in the select. */
interface Audience {
  recipient: "contact" | "reporter" | "member";
  contactId: SQL | SQLiteColumn;
  memberId?: SQLiteColumn;
  to: SQL | SQLiteColumn;
}

const REPORTER: Audience = { recipient: "reporter", contactId: sql`null`, to: vulns.contactEmail };
const CONTACT: Audience = { recipient: "contact", contactId: contacts.id, to: contacts.email };
const ASSIGNEE: Audience = { recipient: "member", contactId: sql`null`, memberId: members.id, to: members.email };

/**
 * The statement writing the notices of kind `kind` that event `eventId` makes, one per recipient: the
 * event's row joined to its report (and, for contacts, to the contacts told), filtered by `when`.
 * Refused quietly where the event made the notice already; returns the notices written.
 */
function insertNotices(
  db: Db,
  args: { eventId: string; kind: NotificationKind; audience: Audience; fields: Fields; nowIso: string },
  from: (select: ReturnType<typeof selectOf>) => unknown,
): Statement {
  return db
    .insert(notifications)
    .select(from(selectOf(db, args)) as never)
    .onConflictDoNothing()
    .returning({ id: notifications.id, kind: notifications.kind });
}

function selectOf(
  db: Db,
  { kind, audience, fields, nowIso }: { kind: NotificationKind; audience: Audience; fields: Fields; nowIso: string },
) {
  // A uuidv7's time and counter from here, its random part from SQLite: one statement may write many rows.
  const prefix = uuidv7().slice(0, 19);
  // (Made by SQLite from the time bound, as the outbox sweep makes its times.)
  const due = SENT_ALONE.includes(kind)
    ? sql`${nowIso}`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${nowIso}, '+${sql.raw(String(GATHER_MS / 1000))} seconds')`;
  return db.select({
    id: sql<string>`${prefix} || lower(substr('89ab', 1 + (random() & 3), 1) || substr(hex(randomblob(2)), 2) || '-' ||
      hex(randomblob(6)))`.as("id"),
    organizationId: events.organizationId,
    vulnId: vulns.id,
    contactId: sql<string | null>`${audience.contactId}`.as("contact_id"),
    memberId: sql<string | null>`${audience.memberId ?? sql`null`}`.as("member_id"),
    eventId: events.id,
    kind: sql<string>`${literal(kind)}`.as("kind"),
    recipient: sql<string>`${literal(audience.recipient)}`.as("recipient"),
    to: sql<string>`${audience.to}`.as("to"),
    subject: sql<string>`${subjectSql(kind, fields)}`.as("subject"),
    params: sql<string>`${paramsSql(kind, fields)}`.as("params"),
    sealedLink: sql<null>`null`.as("sealed_link"),
    status: sql<string>`'pending'`.as("status"),
    attemptCount: sql<number>`0`.as("attempt_count"),
    lastError: sql<null>`null`.as("last_error"),
    nextAttemptAt: sql<string>`${due}`.as("next_attempt_at"),
    leaseUntil: sql<null>`null`.as("lease_until"),
    sentAt: sql<null>`null`.as("sent_at"),
    reservedAt: sql<null>`null`.as("reserved_at"),
    messageId: sql<null>`null`.as("message_id"),
    createdAt: sql<string>`${nowIso}`.as("created_at"),
    updatedAt: sql<string>`${nowIso}`.as("updated_at"),
  });
}

/**
 * The contacts told: those of `role`, or, with none of that role confirmed, every confirmed contact (a
 * report nobody is told about is the failure this exists to prevent). Addresses are unique in an organization.
 */
function toldContacts(role: ContactRole): SQL {
  return subquery`${contacts.organizationId} = ${events.organizationId} AND ${contacts.confirmedAt} IS NOT NULL AND (${contacts.role}
    = ${literal(role)} OR NOT EXISTS (SELECT 1 FROM ${contacts} c WHERE c.organization_id = ${events.organizationId} AND
    c.confirmed_at IS NOT NULL AND c.role = ${literal(role)}))`;
}

/** A notice of the event's report, to its contacts of `role` or to its reporter (if they asked for e-mail). */
function aboutReport(
  db: Db,
  eventId: string,
  nowIso: string,
  notice: { kind: NotificationKind; to: ContactRole | "reporter"; fields?: Fields; when?: SQL; role?: boolean },
): Statement {
  const fields = { ...REPORT_FIELDS, ...notice.fields, ...(notice.role ? { role: contacts.role } : {}) };
  const audience = notice.to === "reporter" ? REPORTER : CONTACT;
  const role = notice.to === "reporter" ? null : notice.to;
  return insertNotices(db, { eventId, kind: notice.kind, audience, fields, nowIso }, (select) => {
    const base = select.from(events).innerJoin(vulns, eq(vulns.id, events.vulnId));
    const joined = role ? base.innerJoin(contacts, toldContacts(role)) : base;
    return joined.where(
      and(eq(events.id, eventId), role ? undefined : and(eq(vulns.notifyReporter, true), isNotNull(vulns.contactEmail)), notice.when),
    );
  });
}

// A breach escalates for the promises that say someone is reading (acknowledge, triage) and the law's (CRA).
const ESCALATED: readonly DeadlineKind[] = ["acknowledge", "triage", ...CRA_KINDS];
const DEADLINE_FIELDS: Fields = { deadline: payload("deadline.kind"), due_at: payload("deadline.due_at") };

/**
 * A reporter credited in an advisory just published (or revised): told once per advisory and address,
 * if they consented to the credit, named themselves and asked for e-mail about their report.
 */
function creditedReporters(db: Db, eventId: string, nowIso: string): Statement {
  const fields: Fields = {
    ...REPORT_FIELDS,
    "advisory.id": advisories.id,
    "advisory.title": advisories.title,
    credit_name: vulns.creditName,
  };
  return insertNotices(db, { eventId, kind: "advisory_published", audience: REPORTER, fields, nowIso }, (select) =>
    select
      .from(events)
      .innerJoin(advisories, eq(advisories.id, payload("advisory.id")))
      .innerJoin(
        vulns,
        subquery`${vulns.organizationId} = ${events.organizationId} AND ${vulns.id} IN (SELECT json_extract(c.value, '$.reporter_of')
          FROM json_each(${advisories.credits}) c)`,
      )
      .where(
        and(
          eq(events.id, eventId),
          eq(vulns.creditConsent, true),
          isNotNull(vulns.creditName),
          eq(vulns.notifyReporter, true),
          isNotNull(vulns.contactEmail),
          subquery`NOT EXISTS (SELECT 1 FROM ${notifications} n WHERE n."to" = ${vulns.contactEmail} AND n.organization_id =
            ${events.organizationId} AND n.kind = 'advisory_published' AND json_extract(n.params, '$.advisory.id') =
            ${advisories.id})`,
        ),
      ),
  );
}

/**
 * The e-mail to the member a report was just assigned to, for the Vuln::Updated event `eventId` of that
 * change (the service adds it to the event's notices only when the assignee changed to someone other than
 * the caller): written only if the event was, to the member the report names as the batch left it,
 * still joined and of its organization.
 */
export function assignedNotice(db: Db, eventId: string, nowIso: string): Statement {
  return insertNotices(db, { eventId, kind: "vuln_assigned", audience: ASSIGNEE, fields: REPORT_FIELDS, nowIso }, (select) =>
    select
      .from(events)
      .innerJoin(vulns, eq(vulns.id, events.vulnId))
      .innerJoin(
        members,
        and(eq(members.id, vulns.assigneeId), eq(members.organizationId, vulns.organizationId), isNotNull(members.joinedAt)),
      )
      .where(eq(events.id, eventId)),
  );
}

/**
 * The statements writing the notices an outbox event makes, for the batch that writes the event and
 * after it (they read its row, so an event the batch did not write makes none). Only the outbox
 * builders (src/events/outbox.ts) call this, for every event they plan.
 */
export function emailsOfEvent(db: Db, event: { id: string; type: string }, nowIso: string): Statement[] {
  const about = (notice: Parameters<typeof aboutReport>[3]) => aboutReport(db, event.id, nowIso, notice);
  switch (event.type) {
    case "Vuln::Inbox::Stored":
      return [about({ kind: "report_received", to: "responder" })];
    case "Vuln::Comment::Created":
      return [
        about({ kind: "reporter_commented", to: "responder", when: sql`${payload("comment.author")} = 'reporter'` }),
        about({
          kind: "organization_commented",
          to: "reporter",
          when: sql`${payload("comment.author")} = 'organization' AND ${payload("comment.visibility")} = 'reporter'`,
        }),
      ];
    case "Vuln::Triage::Changed":
      // A duplicate given another original moves nowhere the reporter can see.
      return [
        about({
          kind: "triage_changed",
          to: "reporter",
          fields: { triage_state: payload("vuln.triage_state"), previous_triage_state: payload("vuln.previous_triage_state") },
          when: sql`${payload("vuln.triage_state")} IS NOT ${payload("vuln.previous_triage_state")}`,
        }),
      ];
    case "Vuln::Deadline::Approaching":
      return [about({ kind: "deadline_approaching", to: "responder", fields: DEADLINE_FIELDS })];
    case "Vuln::Deadline::Breached":
      return [
        about({
          kind: "deadline_breached",
          to: "escalation",
          fields: DEADLINE_FIELDS,
          role: true,
          when: sql`${payload("deadline.kind")} IN (${sql.join(ESCALATED.map(literal), sql`, `)})`,
        }),
      ];
    case "Advisory::Published":
      return [creditedReporters(db, event.id, nowIso)];
    default:
      return [];
  }
}
