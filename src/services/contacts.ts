import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db";
import { contacts, notifications, organizations, type ContactRole, type ContactRow } from "../db/schema";
import { isUniqueViolation, where, whenRefused, subquery } from "../db/queries";
import { Conflict, Invalid, NotFound, attribute } from "../lib/domain-errors";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import { publishNotifications } from "../lib/queue";
import { addressMatches, recordOfToken } from "../notifications/links";
import { newNotification } from "../notifications/rows";
import { readersOf, owningOrganization, tenantFilter, type ServiceContext } from "./context";
import { listPage, type ListQuery } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { sentMembers } from "./audit";
import { mayChange } from "./access";
import { named, withNames } from "./catalog";

// The organization's people the platform e-mails (src/notifications). A new address, and every
// changed one, gets one confirmation e-mail; only a confirmed contact hears of anything else. The
// organization's own key writes them; operators read them.

export interface ContactInput {
  name?: string;
  email?: string;
  role?: ContactRole;
}

const notFound = () => new NotFound("contact", "No contact has that id.");
const full = () =>
  Invalid.at(attribute("email"), `The organization has ${LIMITS.contactsPerOrganization} contacts, as many as it may; delete one first.`);

/** Addresses are kept and compared in lower case: one person, one contact. */
const normalized = (email: string) => email.trim().toLowerCase();

async function uniqueGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "contacts."))
      throw Invalid.at(attribute("email"), "The organization already has a contact with this address.");
    throw err;
  }
}

export function listContacts(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { role?: ContactRole; confirmed?: boolean }) {
  const filter = where(
    tenantFilter(ctx, contacts.organizationId),
    filters.role ? eq(contacts.role, filters.role) : undefined,
    filters.confirmed === undefined
      ? undefined
      : filters.confirmed
        ? sql`${contacts.confirmedAt} IS NOT NULL`
        : isNull(contacts.confirmedAt),
  );
  return listPage(readersOf(ctx), contacts, { filter, sort, page });
}

export async function getContact(ctx: ServiceContext, id: string): Promise<ContactRow> {
  const row = await ctx.db
    .select()
    .from(contacts)
    .where(where(eq(contacts.id, id), tenantFilter(ctx, contacts.organizationId)))
    .get();
  if (!row) throw notFound();
  return row;
}

/** The confirmation e-mail of `contact`'s address, for the batch that sets the address. */
function confirmationFor(contact: ContactRow, organization: string | null, now: string) {
  return newNotification(
    {
      organizationId: contact.organizationId,
      vulnId: null,
      contactId: contact.id,
      eventId: null,
      recipient: "contact",
      to: contact.email,
      params: { kind: "contact_confirmation", organization: organization ?? "Your organization", name: contact.name, role: contact.role },
    },
    now,
  );
}

const organizationName = (ctx: ServiceContext, organizationId: string) =>
  ctx.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId));

/**
 * Adds a contact, unconfirmed, with its confirmation e-mail in the same batch. The limit is counted
 * again inside the insert (an organization_id that comes out NULL refuses it), so two concurrent adds
 * cannot pass it.
 */
export async function createContact(
  ctx: ServiceContext,
  input: Required<ContactInput>,
  requestedOrganization: string | undefined,
): Promise<ContactRow> {
  mayChange(ctx, "settings");
  // The organization's own key only (the route refuses operators): naming another organization is a 422.
  const organizationId = owningOrganization(ctx, requestedOrganization, undefined);
  const now = nowIso();
  const row: ContactRow = {
    id: uuidv7(),
    organizationId,
    name: input.name,
    email: normalized(input.email),
    role: input.role,
    confirmedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const [org] = await readBatch(ctx, [organizationName(ctx, organizationId)]);
  const confirmation = confirmationFor(row, org[0]?.name ?? null, now);
  const insert = ctx.db.insert(contacts).select(
    ctx.db
      .select({
        id: sql<string>`${row.id}`.as("id"),
        organizationId: sql<string>`CASE WHEN count(*) < ${LIMITS.contactsPerOrganization} THEN ${organizationId} END`.as(
          "organization_id",
        ),
        name: sql<string>`${row.name}`.as("name"),
        email: sql<string>`${row.email}`.as("email"),
        role: sql<string>`${row.role}`.as("role"),
        confirmedAt: sql<null>`null`.as("confirmed_at"),
        createdAt: sql<string>`${now}`.as("created_at"),
        updatedAt: sql<string>`${now}`.as("updated_at"),
      })
      .from(contacts)
      .where(eq(contacts.organizationId, organizationId)),
  );
  const p = new Plan(row)
    .add(insert)
    .add(ctx.db.insert(notifications).values(confirmation))
    .audits({ action: "contact.create", target: { type: "contact", id: row.id }, organizationId });
  // Its confirmation link names the contact: a sharded deployment's catalog finds its shard by it.
  await uniqueGuard(() =>
    whenRefused(
      () => withNames(ctx, { organizationId, names: [named.contact(row.id)] }, () => commit(ctx, p, ctx.respond)),
      async () => {
        const [n] = await readBatch(ctx, [ctx.db.select({ n: count() }).from(contacts).where(eq(contacts.organizationId, organizationId))]);
        if ((n[0]?.n ?? 0) >= LIMITS.contactsPerOrganization) throw full();
        throw new Conflict("The organization changed while this request ran; retry.");
      },
    ),
  );
  ctx.defer(publishNotifications(ctx.queue, [confirmation.id]));
  return row;
}

/** Changes a contact; a new address is unconfirmed again and gets its own confirmation e-mail. */
export async function updateContact(ctx: ServiceContext, id: string, input: ContactInput): Promise<ContactRow> {
  mayChange(ctx, "settings");
  const [found, org] = await readBatch(ctx, [
    ctx.db
      .select()
      .from(contacts)
      .where(where(eq(contacts.id, id), tenantFilter(ctx, contacts.organizationId))),
    ctx.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, subquery`(SELECT organization_id FROM contacts WHERE id = ${id})`)),
  ]);
  const existing = found[0];
  if (!existing) throw notFound();
  const now = nowIso();
  const email = input.email === undefined ? existing.email : normalized(input.email);
  const readdressed = email !== existing.email;
  const next: ContactRow = {
    ...existing,
    name: input.name ?? existing.name,
    role: input.role ?? existing.role,
    email,
    confirmedAt: readdressed ? null : existing.confirmedAt,
    updatedAt: now,
  };
  // Only if the address is still the one read: a concurrent change of it makes this one a conflict.
  const p = new Plan(next);
  const update = p.track<D1Result>(
    ctx.db
      .update(contacts)
      .set({ name: next.name, role: next.role, email: next.email, confirmedAt: next.confirmedAt, updatedAt: now })
      .where(and(eq(contacts.id, id), eq(contacts.email, existing.email))),
  );
  p.audits(
    { action: "contact.update", target: { type: "contact", id }, changed: sentMembers(input), organizationId: existing.organizationId },
    { ifChanged: update },
  );
  const confirmation = readdressed ? confirmationFor(next, org[0]?.name ?? null, now) : null;
  if (confirmation) p.add(ctx.db.insert(notifications).values(confirmation));
  const { results } = await uniqueGuard(() => commit(ctx, p));
  if ((update.of(results)?.meta?.changes ?? 0) === 0) {
    throw new Conflict("The contact changed while this request ran; read it again and retry.");
  }
  if (confirmation) ctx.defer(publishNotifications(ctx.queue, [confirmation.id]));
  return next;
}

export async function deleteContact(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "settings");
  const p = new Plan(null);
  const deleted = p.track<{ id: string }[]>(
    ctx.db
      .delete(contacts)
      .where(where(eq(contacts.id, id), tenantFilter(ctx, contacts.organizationId)))
      .returning({ id: contacts.id }),
  );
  const { results } = await commit(ctx, p.audits({ action: "contact.delete", target: { type: "contact", id } }, { ifChanged: deleted }));
  const gone = deleted.of(results)[0];
  if (!gone) throw notFound();
  await ctx.catalog?.release([named.contact(gone.id)]);
}

/** A contact a confirmation link names, if its MAC holds for the contact's address as it is now. */
export interface ConfirmationTarget {
  contact: ContactRow;
  organization: string;
}

export async function findConfirmation(db: Db, token: string): Promise<ConfirmationTarget | null> {
  const named = recordOfToken(token);
  if (!named) return null;
  const row = await db
    .select({ contact: contacts, organization: organizations.name })
    .from(contacts)
    .innerJoin(organizations, eq(organizations.id, contacts.organizationId))
    .where(eq(contacts.id, named.id))
    .get();
  if (!row || !(await addressMatches("confirm", row.contact.id, row.contact.email, named.given))) return null;
  return row;
}

/** Confirms the address the link was sent to (not one set since); true if this confirmed it. */
export async function confirmContact(ctx: ServiceContext, target: ConfirmationTarget): Promise<boolean> {
  const now = nowIso();
  const p = new Plan(null);
  const done = p.track<{ id: string }[]>(
    ctx.db
      .update(contacts)
      .set({ confirmedAt: now, updatedAt: now })
      .where(and(eq(contacts.id, target.contact.id), eq(contacts.email, target.contact.email), isNull(contacts.confirmedAt)))
      .returning({ id: contacts.id }),
  );
  // Whoever holds the address followed the link the platform sent it: the platform stands for it.
  p.audits(
    {
      action: "contact.confirm",
      target: { type: "contact", id: target.contact.id },
      changed: ["confirmed_at"],
      organizationId: target.contact.organizationId,
      actor: { type: "system", id: null, name: null },
    },
    { ifChanged: done },
  );
  const { results } = await commit(ctx, p);
  return done.of(results).length > 0;
}
