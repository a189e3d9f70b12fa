import { isNotNull } from "drizzle-orm";
import { inList, subquery, where } from "../../db/queries";
import { members, vulns } from "../../db/schema";
import { Invalid, relationship } from "../../lib/domain-errors";
import { tenantFilter, type ServiceContext } from "../context";
import { readBatch } from "../unit-of-work";
import { placed } from "./members";
import type { VulnRecord, VulnUpdate } from "./types";

// A report's assignee: a joined member of the report's own organization, or nobody. The check runs
// twice: read first, for a clear refusal at the relationship; then inside the UPDATE itself (assignable),
// so a member removed, or never joined, between that read and the write leaves the report unassigned
// to them: the write changes nothing, and the service tells why by reading again (refusalOf).

type Change = { id: string; input: VulnUpdate };

export const refusedAssignee = (item: number | undefined) =>
  Invalid.at(placed(relationship("assignee"), item), "assignee must be a member of the vuln's organization who has joined.");

/** The members the changes name as assignees, joined, as the caller may see them: id and organization. */
export function assigneesRead(ctx: ServiceContext, changes: readonly Change[]) {
  const ids = [...new Set(changes.flatMap((c) => (c.input.assigneeId ? [c.input.assigneeId] : [])))];
  return ctx.db
    .select({ id: members.id, organizationId: members.organizationId })
    .from(members)
    .where(where(inList(members.id, ids), tenantFilter(ctx, members.organizationId), isNotNull(members.joinedAt)));
}

export const joinedOf = (rows: readonly { id: string; organizationId: string }[]) => new Map(rows.map((r) => [r.id, r.organizationId]));

/** The index of the first change naming an assignee who is not a joined member of its vuln's organization (-1: none). */
export function firstRefusedAssignee(
  changes: readonly Change[],
  found: ReadonlyMap<string, VulnRecord>,
  joined: ReadonlyMap<string, string>,
) {
  return changes.findIndex((c) => c.input.assigneeId && joined.get(c.input.assigneeId) !== found.get(c.id)?.organizationId);
}

/**
 * The UPDATE's condition for a new assignee: still a joined member of the row's organization when the
 * batch runs. Undefined when the change names nobody new.
 */
export function assignable(existing: VulnRecord, next: VulnRecord) {
  if (!next.assigneeId || next.assigneeId === existing.assigneeId) return undefined;
  return subquery`EXISTS (SELECT 1 FROM ${members} m WHERE m.id = ${next.assigneeId} AND m.organization_id = ${vulns.organizationId}
    AND m.joined_at IS NOT NULL)`;
}

/** After a write refused or found nothing: the first change whose assignee is no longer assignable (-1: none). */
export async function assigneeGone(ctx: ServiceContext, changes: readonly Change[], found: ReadonlyMap<string, VulnRecord>) {
  const [rows] = await readBatch(ctx, [assigneesRead(ctx, changes)]);
  return firstRefusedAssignee(changes, found, joinedOf(rows));
}
