import { eq } from "drizzle-orm";
import { vulns } from "../../db/schema";
import { changedRows, where } from "../../db/queries";
import { vulnEvent } from "../../events/outbox";
import { nowIso } from "../../lib/ids";
import { deleteObjectsLater, vulnObjectKeys } from "../attachments";
import { tenantFilter, type ServiceContext } from "../context";
import { commit, Plan } from "../unit-of-work";
import { notFound } from "./read";
import { mayChange } from "../access";

/**
 * Deletes a vuln; Vuln::Destroyed is written first in the same batch, from the row about to go, and
 * its attachments' rows go with it (cascade). Their objects, read in the same batch, are deleted after
 * the answer; unreadable from the moment the rows are gone, any left behind are the cron's to purge.
 */
export async function deleteVuln(ctx: ServiceContext, id: string, objects: R2Bucket): Promise<void> {
  mayChange(ctx, "vulns");
  const now = nowIso();
  const scoped = where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId));
  const destroyed = vulnEvent(ctx.db, "Vuln::Destroyed", id, now, { organizationId: ctx.caller.organizationId ?? undefined });
  const p = new Plan(null);
  const keys = p.track<{ objectKey: string }[]>(vulnObjectKeys(ctx, id));
  p.add(destroyed.statement, destroyed.event);
  const deleted = p.track(ctx.db.delete(vulns).where(scoped));
  p.audits({ action: "vuln.delete", target: { type: "vuln", id } }, { ifChanged: deleted });
  const { results } = await commit(ctx, p);
  if (changedRows(deleted.of(results)) === 0) throw notFound();
  deleteObjectsLater(
    ctx,
    objects,
    keys.of(results).map((r) => r.objectKey),
  );
}
