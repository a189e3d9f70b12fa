import { and, eq, sql } from "drizzle-orm";
import { briefs, vulns } from "../../db/schema";
import { changedRows, inList, subquery, whenRefused } from "../../db/queries";
import { triageEvent, vulnEvent } from "../../events/outbox";
import { dueColumns, dueOf } from "../../lib/deadlines";
import { Conflict, Invalid, NotFound, relationship, resource } from "../../lib/domain-errors";
import { nowIso } from "../../lib/ids";
import type { ServiceContext } from "../context";
import { commit, type Handle, Plan, readBatch } from "../unit-of-work";
import { sentMembers } from "../audit";
import { domainStatements } from "./domains";
import { placed } from "./members";
import { nextVuln, type VulnChangeEvent, type VulnDecision } from "./next";
import { notFound, toRecord, vulnsRead } from "./read";
import { resolveDuplicates } from "./triage";
import type { VulnRecord, VulnUpdate } from "./types";
import { mayChange } from "../access";
import { assignable, assigneeGone, assigneesRead, firstRefusedAssignee, joinedOf, refusedAssignee } from "./assignee";
import { assignedNotice } from "../../notifications/outbox";

/** One vuln's update as planned into a batch: the vuln as it will be, and its guarded UPDATE (none when nothing changes). */
export interface PlannedUpdate {
  next: VulnRecord;
  guard?: Handle<unknown>;
}

/** The UPDATE of a decided change, guarded by the revision the vuln was read at. */
function updateStatement(ctx: ServiceContext, existing: VulnRecord, { next, answered, now }: VulnDecision & { now: string }) {
  return ctx.db
    .update(vulns)
    .set({
      title: next.title,
      description: next.description,
      briefId: next.briefId,
      assigneeId: next.assigneeId,
      contactEmail: next.contactEmail,
      tags: next.tags,
      processingState: next.processingState,
      triageState: next.triageState,
      // The original as it stands when the batch runs: deleted since the read, none (see the trigger of 0019).
      duplicateOfId:
        next.duplicateOfId === existing.duplicateOfId || next.duplicateOfId === null
          ? next.duplicateOfId
          : subquery`(SELECT "original"."id" FROM "vulns" AS "original" WHERE "original"."id" = ${next.duplicateOfId})`,
      infoRequestedFrom: next.infoRequestedFrom,
      infoRequestedAt: next.infoRequestedAt,
      // A comment's trigger may have acknowledged the report since it was read: the first time stays.
      acknowledgedAt: sql`coalesce(${vulns.acknowledgedAt}, ${next.acknowledgedAt})`,
      triagedAt: next.triagedAt,
      closedAt: next.closedAt,
      closedBy: next.closedBy,
      ...dueColumns(dueOf(next)),
      pausedMs: next.pausedMs,
      activelyExploited: next.activelyExploited,
      exploitationKnownAt: next.exploitationKnownAt,
      nextAlertMs: next.nextAlertMs,
      overdue: next.overdue,
      severity: next.severity,
      cvssVector: next.cvssVector,
      cvssScore: next.cvssScore,
      cvssVersion: next.cvssVersion,
      cweIds: next.cweIds,
      revision: next.revision,
      updatedAt: now,
      ...(answered ? { activityAt: now, activityBy: "organization" as const } : {}),
    })
    .where(and(eq(vulns.id, existing.id), eq(vulns.revision, existing.revision), assignable(existing, next)));
}

/**
 * A decided event's statement, chained on the UPDATE before it. `strict` (a bulk update): a concurrent
 * edit makes Vuln::Updated unwritable, which refuses the whole batch; otherwise the events skip.
 */
function eventStatement(ctx: ServiceContext, event: VulnChangeEvent, { id, now, strict }: { id: string; now: string; strict: boolean }) {
  if (event.type === "Vuln::Triage::Changed") return triageEvent(ctx.db, id, event.previous, now);
  const chained = strict && event.type === "Vuln::Updated" ? { requirePreviousChanged: true } : { ifPreviousChanged: true };
  return vulnEvent(ctx.db, event.type, id, now, chained);
}

/**
 * Adds one vuln's update to `p`, as nextVuln decides it: its domain links, the UPDATE guarded by the
 * revision it was read at, and its events chained on that UPDATE. Adds nothing when nothing would
 * change; throws the change's first problem, placed at `where` in the request, before adding anything.
 */
export function planUpdate(
  ctx: ServiceContext,
  p: Plan<unknown>,
  {
    existing,
    input,
    now,
    strict,
    item,
  }: {
    existing: VulnRecord;
    input: VulnUpdate;
    now: string;
    strict: boolean;
    /** Which resource of the request this change is, for its errors (undefined: the request's one). */
    item?: number;
  },
): PlannedUpdate {
  const decision = nextVuln(existing, input, now);
  const [problem] = decision.problems;
  if (problem) throw Invalid.at(placed(problem.member, item), problem.detail);
  if (!decision.changed) return { next: existing };
  const { next } = decision;
  if (decision.domainsChanged)
    for (const s of domainStatements(ctx, existing, { domains: next.domains, now, guard: existing.revision })) p.add(s);
  const guard = p.track(updateStatement(ctx, existing, { ...decision, now }));
  const { closer: _closer, ...sent } = input;
  p.audits(
    {
      action: "vuln.update",
      target: { type: "vuln", id: existing.id },
      changed: sentMembers(sent),
      organizationId: existing.organizationId,
    },
    { ifChanged: guard },
  );
  // The new assignee hears of it (not who assigned the report to themself), if the event is written.
  const told = next.assigneeId !== existing.assigneeId && next.assigneeId !== null && next.assigneeId !== ctx.caller.member?.id;
  for (const event of decision.events) {
    const planned = eventStatement(ctx, event, { id: existing.id, now, strict });
    if (told && event.type === "Vuln::Updated") planned.event.emails.push(assignedNotice(ctx.db, planned.event.id, now));
    p.add(planned.statement, planned.event);
  }
  return { next, guard };
}

const briefsRead = (ctx: ServiceContext, ids: readonly string[]) =>
  ctx.db.select({ id: briefs.id, organizationId: briefs.organizationId }).from(briefs).where(inList(briefs.id, ids));

/**
 * Updates a vuln: one read (the vuln, and the brief if one is named), then one batch. Every statement
 * is guarded by the revision it read (which only edits bump, not intake), and the events are chained
 * on changes(), so a concurrent edit makes this one a 409 that wrote nothing, rather than a lost update.
 */
export async function updateVuln(ctx: ServiceContext, id: string, input: VulnUpdate): Promise<VulnRecord> {
  mayChange(ctx, "vulns");
  return (await updateVulns(ctx, [{ id, input }], { bulk: false }))[0]!;
}

type Change = { id: string; input: VulnUpdate };

/** The vulns and briefs the changes name, read in one batch; refuses a vuln the caller cannot see and a brief of another organization. */
async function readChanged(ctx: ServiceContext, changes: readonly Change[], { single }: { single: boolean }) {
  const briefIds = [...new Set(changes.flatMap((c) => (c.input.briefId === undefined ? [] : [c.input.briefId])))];
  const ids = changes.map((c) => c.id);
  // One round trip whatever the changes name (a list of none reads nothing).
  const [vulnRows, briefRows, memberRows] = await readBatch(ctx, [
    vulnsRead(ctx, ids),
    briefsRead(ctx, briefIds),
    assigneesRead(ctx, changes),
  ]);
  const found = new Map(vulnRows.map((r) => [r.id, toRecord(r)]));
  const briefOwner = new Map(briefRows.map((b) => [b.id, b.organizationId]));
  const missing = changes.findIndex((c) => !found.has(c.id));
  if (missing >= 0) {
    throw single
      ? notFound()
      : new NotFound("vuln", "No vuln has the id at {member}.", {
          member: resource({ id: true, item: missing }),
        });
  }
  const foreignBrief = changes.findIndex(
    (c) => c.input.briefId !== undefined && briefOwner.get(c.input.briefId) !== found.get(c.id)!.organizationId,
  );
  if (foreignBrief >= 0) throw Invalid.at(relationship("brief", { item: single ? undefined : foreignBrief }), "brief does not exist.");
  const refused = firstRefusedAssignee(changes, found, joinedOf(memberRows));
  if (refused >= 0) throw refusedAssignee(single ? undefined : refused);
  return found;
}

/**
 * Updates up to 100 vulns at once, all or nothing: one read of every vuln and named brief, then one
 * batch holding each vuln's update as updateVuln plans it (its events included). A vuln that is not
 * the caller's, a brief that is not its organization's, or a concurrent edit of any of them refuses
 * the whole batch. Change `i` is the `i`-th resource of the request (its errors say so); `bulk: false`
 * is updateVuln's single change, whose path named the vuln.
 */
export async function updateVulns(
  ctx: ServiceContext,
  changes: readonly Change[],
  {
    bulk = true,
    also,
  }: {
    bulk?: boolean;
    /** More of the same change, in its batch (the console's bulk move keeps its reason as a note on each report). */
    also?: (p: Plan<null>, now: string) => void;
  } = {},
): Promise<VulnRecord[]> {
  mayChange(ctx, "vulns");
  const single = !bulk;
  const itemOf = (i: number) => (single ? undefined : i);
  const found = await readChanged(ctx, changes, { single });
  const originals = await resolveDuplicates(ctx, changes, { found, itemOf });

  const now = nowIso();
  const p = new Plan(null);
  // A refused member (exploitation_known_at) throws while planning, before anything is committed.
  const planned = changes.map((c, i) =>
    planUpdate(ctx, p, {
      existing: found.get(c.id)!,
      input: { ...c.input, duplicateOf: originals.get(c.id) ?? c.input.duplicateOf },
      now,
      strict: !single,
      item: itemOf(i),
    }),
  );
  if (planned.every((u) => !u.guard)) return planned.map((u) => u.next);
  also?.(p, now);
  // As in createVuln: a brief deleted since the read makes its foreign key refuse the whole batch. In
  // a bulk update a concurrent edit refuses it too (strict events); which one it was is read again.
  const { results } = await whenRefused(
    () => commit(ctx, p),
    async () => {
      const gone = await assigneeGone(ctx, changes, found);
      if (gone >= 0) throw refusedAssignee(itemOf(gone));
      if (!single) {
        const ids = changes.map((c) => c.id);
        const again = new Map((await vulnsRead(ctx, ids)).map((r) => [r.id, r.revision]));
        const moved = changes.findIndex((c) => again.get(c.id) !== found.get(c.id)!.revision);
        if (moved >= 0)
          throw new Conflict("The vuln at {member} changed while this request ran; read it again and retry.", {
            member: resource({ item: moved }),
          });
      }
      const named = changes.findIndex((c) => c.input.briefId !== undefined);
      throw Invalid.at(relationship("brief", { item: itemOf(Math.max(named, 0)) }), "brief does not exist.");
    },
  );
  if (planned.some((u) => u.guard && changedRows(u.guard.of(results)) === 0)) {
    // The assignee left (or was never joined) since the read: the guarded write changed nothing.
    const gone = await assigneeGone(ctx, changes, found);
    if (gone >= 0) throw refusedAssignee(itemOf(gone));
    throw new Conflict("The vuln changed while this request ran; read it again and retry.");
  }
  return planned.map((u) => u.next);
}

/**
 * Vulns whose data changed through something else (a linked domain asset edited or deleted): their
 * revision and updated_at move and each gets Vuln::Updated, for the same batch as that change and
 * placed after it, so the payloads show the vulns as the change left them.
 */
export function touchVulns(ctx: ServiceContext, p: Plan<unknown>, { vulnIds, now }: { vulnIds: string[]; now: string }): void {
  if (vulnIds.length === 0) return;
  p.add(
    ctx.db
      .update(vulns)
      .set({ revision: sql`${vulns.revision} + 1`, updatedAt: now })
      .where(inList(vulns.id, vulnIds)),
  );
  for (const id of vulnIds) {
    const updated = vulnEvent(ctx.db, "Vuln::Updated", id, now);
    p.add(updated.statement, updated.event);
  }
}
