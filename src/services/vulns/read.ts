import { actsForOrganization } from "../../lib/caller";
import { and, eq, getTableColumns, isNull } from "drizzle-orm";
import { assets, vulnAssets, vulns, type VulnRow } from "../../db/schema";
import { changedRows, inList, subquery, where } from "../../db/queries";
import { mayChange } from "../access";
import { vulnEvent } from "../../events/outbox";
import { NotFound } from "../../lib/domain-errors";
import { normalizeVulnShortcode, nowIso } from "../../lib/ids";
import { tenantFilter, type ServiceContext } from "../context";
import { commit, Plan } from "../unit-of-work";
import type { KeyRecord, VulnRecord } from "./types";

export const notFound = () => new NotFound("vuln", "No vuln has that id.");

// See policies.ts: name the outer column in full inside a correlated subquery.
/** What a record reads beside the vuln's own columns: its domains, and its reporter key's record with the organization (one primary-key seek, only for a signed report). */
export const recordColumns = {
  domainsJson: subquery<string>`(select json_group_array(${assets.value}) from ${vulnAssets} join ${assets} on ${assets.id} =
    ${vulnAssets.assetId} where ${vulnAssets.vulnId} = ${vulns.id})`,
  keyRecordJson: subquery<string | null>`(SELECT json_object('reports', reports, 'valid', valid, 'spam', spam,
    'not_applicable', not_applicable, 'duplicate', duplicate) FROM reporter_key_records
    WHERE reporter_key_records.organization_id = ${vulns.organizationId} AND reporter_key_records.thumbprint = ${vulns.reporterKey})`,
};

/** A vuln row as read with recordColumns. */
export type VulnReadRow = VulnRow & { domainsJson: string; keyRecordJson: string | null };

export function toRecord(row: VulnReadRow): VulnRecord {
  const {
    domainsJson,
    keyRecordJson,
    possibleDuplicate: _possible,
    cvssRankDesc: _desc,
    cvssRankAsc: _asc,
    severityRankDesc: _sdesc,
    severityRankAsc: _sasc,
    activityAt: _at,
    activityBy: _by,
    unread: _unread,
    nextDueMs: _next,
    nextDueAsc: _nextAsc,
    nextDueDesc: _nextDesc,
    ...vuln
  } = row;
  return {
    ...vuln,
    domains: (JSON.parse(domainsJson) as string[]).sort(),
    keyRecord: keyRecordJson ? (JSON.parse(keyRecordJson) as KeyRecord) : null,
  };
}

/** The vulns an update names, as the caller may see them, with their domains. */
export const vulnsRead = (ctx: ServiceContext, ids: readonly string[]) =>
  ctx.db
    .select({ ...getTableColumns(vulns), ...recordColumns })
    .from(vulns)
    .where(where(inList(vulns.id, ids), tenantFilter(ctx, vulns.organizationId)));

/**
 * The id of the vuln a path names, by id or by the shortcode a researcher quotes (in any case, with
 * Crockford's look-alikes), among the vulns the caller may see. An id is returned as it is, unread:
 * the operation's own query scopes it. A shortcode costs one read on its unique index.
 */
export async function vulnIdOf(ctx: ServiceContext, ref: string): Promise<string> {
  const code = normalizeVulnShortcode(ref);
  if (!code) return ref;
  const row = await ctx.db
    .select({ id: vulns.id })
    .from(vulns)
    .where(where(eq(vulns.shortcode, code), tenantFilter(ctx, vulns.organizationId)))
    .get();
  if (!row) throw new NotFound("vuln", "No vuln has that shortcode.");
  return row.id;
}

/**
 * Shows a vuln. The organization's first read (a GET: a HEAD reads nothing for a person, and some
 * clients and proxies send them on their own) sets `read_at` and fires Vuln::Read, in the same
 * batch as the read itself: a conditional UPDATE, the event only if it changed a row, then the SELECT.
 */
export async function showVuln(ctx: ServiceContext, id: string, opts: { markRead: boolean } = { markRead: true }): Promise<VulnRecord> {
  const scoped = where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId));
  const select = ctx.db
    .select({ ...getTableColumns(vulns), ...recordColumns })
    .from(vulns)
    .where(scoped);
  if (!actsForOrganization(ctx.caller) || !opts.markRead) {
    const row = await select.get();
    if (!row) throw notFound();
    return toRecord(row);
  }
  const now = nowIso();
  const read = vulnEvent(ctx.db, "Vuln::Read", id, now, { ifPreviousChanged: true, organizationId: ctx.caller.organizationId! });
  const p = new Plan(null).partOfRead();
  // The organization's first read is a change (Vuln::Read tells its webhooks): audited, once.
  const marked = p.track(
    ctx.db
      .update(vulns)
      .set({ readAt: now })
      .where(and(scoped, isNull(vulns.readAt))),
  );
  p.audits({ action: "vuln.read", target: { type: "vuln", id } }, { ifChanged: marked });
  p.add(read.statement, read.event);
  const rows = p.track<VulnReadRow[]>(select);
  const { results } = await commit(ctx, p);
  const row = rows.of(results)[0];
  if (!row) throw notFound();
  return toRecord(row);
}

/**
 * Marks the organization's reports among `ids` read, as its first GET of each would: each report's
 * conditional UPDATE, its audit row and its Vuln::Read only where it changed a row, all in one batch.
 * Reports already read, another organization's or gone are left as they are. Returns how many changed.
 * `opened`: a member opened the report's page, a read like the API's GET (any role may); else it is a
 * change asked for (the console's bulk "mark read"), which needs the `vulns` scope.
 */
export async function markVulnsRead(ctx: ServiceContext, ids: readonly string[], { opened = false } = {}): Promise<number> {
  if (!opened) mayChange(ctx, "vulns");
  if (!actsForOrganization(ctx.caller) || ids.length === 0) return 0;
  const now = nowIso();
  const p = new Plan(null);
  if (opened) p.partOfRead();
  const marks = ids.map((id) => {
    const marked = p.track(
      ctx.db
        .update(vulns)
        .set({ readAt: now })
        .where(and(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId), isNull(vulns.readAt))),
    );
    const read = vulnEvent(ctx.db, "Vuln::Read", id, now, { ifPreviousChanged: true, organizationId: ctx.caller.organizationId! });
    p.add(read.statement, read.event);
    p.audits({ action: "vuln.read", target: { type: "vuln", id } }, { ifChanged: marked });
    return marked;
  });
  const { results } = await commit(ctx, p);
  return marks.filter((m) => changedRows(m.of(results)) > 0).length;
}
