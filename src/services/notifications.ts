import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db";
import { subquery, where } from "../db/queries";
import { notifications, organizations, vulns, type NotificationRow, type NotificationStatus } from "../db/schema";
import { NotFound } from "../lib/domain-errors";
import { nowIso } from "../lib/ids";
import { vulnOfUnsubscribeToken } from "../notifications/links";
import { readersOf, tenantFilter, type ServiceContext } from "./context";
import { listPage, type ListQuery } from "./list-pages";
import { commit, Plan } from "./unit-of-work";

// The e-mail log (the outbox's rows, never a body) and the reporter's way to stop e-mails.

export function listNotifications(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { status?: NotificationStatus }) {
  const filter = where(
    tenantFilter(ctx, notifications.organizationId),
    filters.status ? eq(notifications.status, filters.status) : undefined,
  );
  return listPage(readersOf(ctx), notifications, { filter, sort, page });
}

export async function getNotification(ctx: ServiceContext, id: string): Promise<NotificationRow> {
  const row = await ctx.db
    .select()
    .from(notifications)
    .where(where(eq(notifications.id, id), tenantFilter(ctx, notifications.organizationId)))
    .get();
  if (!row) throw new NotFound("notification", "No e-mail of the log has that id.");
  return row;
}

/** The report an unsubscribe link names, as its page shows it; null for a link that is not one (or a deleted report). */
export async function findUnsubscribe(db: Db, token: string) {
  const vulnId = await vulnOfUnsubscribeToken(token);
  if (!vulnId) return null;
  const row = await db
    .select({ id: vulns.id, shortcode: vulns.shortcode, notifyReporter: vulns.notifyReporter, organization: organizations.name })
    .from(vulns)
    .innerJoin(organizations, eq(organizations.id, vulns.organizationId))
    .where(eq(vulns.id, vulnId))
    .get();
  return row ? { ...row, notifyReporter: Boolean(row.notifyReporter) } : null;
}

/**
 * Stops the reporter's e-mails about one report: from now on, and those still waiting in the outbox,
 * in one batch. Doing it twice is harmless.
 */
export async function unsubscribeReporter(ctx: ServiceContext, vulnId: string): Promise<void> {
  const now = nowIso();
  const { db } = ctx;
  const p = new Plan(null);
  const stopped = p.track(
    db
      .update(vulns)
      .set({ notifyReporter: false, reporterUnsubscribedAt: now })
      .where(and(eq(vulns.id, vulnId), eq(vulns.notifyReporter, true))),
  );
  p.audits(
    {
      action: "vuln.unsubscribe",
      target: { type: "vuln", id: vulnId },
      changed: ["notify_me"],
      organizationId: subquery<string>`(SELECT ${vulns.organizationId} FROM ${vulns} WHERE ${vulns.id} = ${vulnId})`,
      actor: { type: "reporter", id: vulnId, name: null },
    },
    { ifChanged: stopped },
  );
  p.add(
    db
      .update(notifications)
      .set({
        status: "cancelled",
        lastError: "the reporter asked for no more e-mail",
        sealedLink: null,
        nextAttemptAt: null,
        updatedAt: now,
      })
      .where(
        and(
          eq(notifications.vulnId, vulnId),
          eq(notifications.recipient, "reporter"),
          inArray(notifications.status, ["held", "pending", "delayed"]),
        ),
      ),
  );
  await commit(ctx, p);
}
