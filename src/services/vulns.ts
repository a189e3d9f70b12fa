import { and, eq, getTableColumns, gte, isNull, lte, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { assets, briefs, vulnAssets, vulnCounts, vulns, type ProcessingState, type Submission, type VulnRow } from "../db/schema";
import { vulnEvent } from "../events/outbox";
import { ApiError, invalid } from "../http/errors";
import type { Page } from "../http/jsonapi";
import { nowIso, uuidv7, vulnShortcode } from "../lib/ids";
import { isPublished } from "../lib/maturity";
import { tenantFilter, type ServiceContext } from "./context";
import { inList, listPage, where, whenRefused, type Sort } from "./listing";
import { changedRows, commit, Plan, readBatch, type Responder } from "./unit-of-work";

export interface VulnInput {
  title: string;
  description: string;
  contact_email?: string | null;
  domains?: string[];
  tags?: string[];
}

export interface VulnFilters {
  processingState?: string;
  inboxState?: string;
  briefId?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** A vuln with the values of its domain assets. */
export type VulnRecord = VulnRow & { domains: string[] };

const notFound = () => new ApiError("vuln_not_found", { detail: "No vuln has that id." });

// See policies.ts: name the outer column in full inside a correlated subquery.
const domainsColumn = {
  domainsJson: sql<string>`(select json_group_array(${assets.value}) from ${vulnAssets} join ${assets} on ${assets.id} = ${vulnAssets.assetId} where ${vulnAssets.vulnId} = ${sql.raw(`"vulns"."id"`)})`,
};

function toRecord(row: VulnRow & { domainsJson: string }): VulnRecord {
  const { domainsJson, ...vuln } = row;
  return { ...vuln, domains: (JSON.parse(domainsJson) as string[]).sort() };
}

export async function listVulns(ctx: ServiceContext, page: Page, sort: Sort | undefined, f: VulnFilters) {
  const filter = where(
    tenantFilter(ctx, vulns.organizationId),
    f.processingState ? eq(vulns.processingState, f.processingState as ProcessingState) : undefined,
    f.inboxState ? eq(vulns.inboxState, f.inboxState as VulnRow["inboxState"]) : undefined,
    f.briefId ? eq(vulns.briefId, f.briefId) : undefined,
    f.createdFrom ? gte(vulns.createdAt, f.createdFrom) : undefined,
    f.createdTo ? lte(vulns.createdAt, f.createdTo) : undefined,
  );
  const { rows, total } = await listPage(ctx.db, vulns, filter, sort, page, domainsColumn, countedTotal(ctx, f));
  return { rows: rows.map(toRecord), total };
}

/**
 * The list's total from vuln_counts (one row) when the filters are at most one state; other filters
 * (a brief, a time range) count the matching rows on their index.
 */
function countedTotal(ctx: ServiceContext, f: VulnFilters) {
  if (f.briefId || f.createdFrom || f.createdTo || (f.processingState && f.inboxState)) return undefined;
  if (ctx.caller.kind === "public") return undefined;
  const bucket = f.processingState ? `processing_state:${f.processingState}` : f.inboxState ? `inbox_state:${f.inboxState}` : "all";
  const organizationId = ctx.caller.kind === "operator" ? "*" : ctx.caller.organizationId!;
  return ctx.db
    .select({ total: vulnCounts.count })
    .from(vulnCounts)
    .where(and(eq(vulnCounts.organizationId, organizationId), eq(vulnCounts.bucket, bucket)));
}

/**
 * Shows a vuln. The organization's first read (a GET: a HEAD reads nothing for a person, and some
 * clients and proxies send them on their own) sets `read_at` and fires Vuln::Read, in the same
 * batch as the read itself: a conditional UPDATE, the event only if it changed a row, then the SELECT.
 */
export async function showVuln(ctx: ServiceContext, id: string, opts: { markRead: boolean } = { markRead: true }): Promise<VulnRecord> {
  const scoped = where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId));
  const select = ctx.db.select({ ...getTableColumns(vulns), ...domainsColumn }).from(vulns).where(scoped);
  if (ctx.caller.kind !== "organization" || !opts.markRead) {
    const row = await select.get();
    if (!row) throw notFound();
    return toRecord(row);
  }
  const now = nowIso();
  const read = vulnEvent(ctx.db, "Vuln::Read", id, now, { ifPreviousChanged: true, organizationId: ctx.caller.organizationId! });
  const p = new Plan(null)
    .add(ctx.db.update(vulns).set({ readAt: now }).where(and(scoped, isNull(vulns.readAt))))
    .add(read.statement, read.event)
    .add(select);
  const { results } = await commit(ctx, p);
  const row = (results[2] as (VulnRow & { domainsJson: string })[])[0];
  if (!row) throw notFound();
  return toRecord(row);
}

/**
 * The statements that make the vuln's domains exactly `domains`: domain assets made as needed, then
 * linked. With a guard (updates), none of them changes anything unless the vuln is still at the
 * revision the request read, so a PATCH that loses a race writes nothing at all.
 */
function domainStatements(ctx: ServiceContext, vulnId: string, organizationId: string, domains: string[], now: string, guard?: number): BatchItem<"sqlite">[] {
  const unchanged = guard === undefined ? sql`1` : sql`EXISTS (SELECT 1 FROM vulns WHERE id = ${vulnId} AND revision = ${guard})`;
  const statements: BatchItem<"sqlite">[] = [];
  if (guard !== undefined) statements.push(ctx.db.delete(vulnAssets).where(and(eq(vulnAssets.vulnId, vulnId), unchanged)));
  if (domains.length) {
    // The new assets come from one JSON parameter (ids made here), so 50 domains bind 5 values.
    const pairs = JSON.stringify(domains.map((value) => [uuidv7(), value]));
    statements.push(
      ctx.db
        .insert(assets)
        .select(
          ctx.db
            .select({
              id: sql<string>`json_extract(value, '$[0]')`.as("id"),
              organizationId: sql<string>`${organizationId}`.as("organization_id"),
              kind: sql<string>`'domain'`.as("kind"),
              value: sql<string>`json_extract(value, '$[1]')`.as("value"),
              shortDescription: sql<null>`null`.as("short_description"),
              createdAt: sql<string>`${now}`.as("created_at"),
              updatedAt: sql<string>`${now}`.as("updated_at"),
            })
            .from(sql`json_each(${pairs})`)
            .where(unchanged),
        )
        .onConflictDoNothing(),
    );
    statements.push(
      ctx.db
        .insert(vulnAssets)
        .select(
          ctx.db
            .select({ vulnId: sql<string>`${vulnId}`.as("vuln_id"), assetId: assets.id })
            .from(assets)
            .where(and(eq(assets.organizationId, organizationId), eq(assets.kind, "domain"), inList(assets.value, domains), unchanged)),
        )
        .onConflictDoNothing(),
    );
  }
  return statements;
}

function unique(values: string[] | undefined): string[] {
  return [...new Set(values ?? [])];
}

/**
 * Creates a vuln through a brief: the vuln (inbox dispatching, processing open), its domain assets,
 * and Vuln::Created, all in one batch. The submission is kept as received for the intake record.
 * `brief` is checked to be the caller's and published (API) or found by its public shortcode.
 */
export async function createVuln(
  ctx: ServiceContext,
  input: VulnInput,
  brief: { id: string } | { shortcode: string },
  raw: Omit<Submission, "received_at">,
  respond: Responder<VulnRecord>,
): Promise<VulnRecord> {
  const now = nowIso();
  const byId = "id" in brief;
  const [found] = await readBatch(ctx, [
    ctx.db
      .select({ id: briefs.id, organizationId: briefs.organizationId, publishedAt: briefs.publishedAt })
      .from(briefs)
      .where(byId ? where(eq(briefs.id, brief.id), tenantFilter(ctx, briefs.organizationId)) : eq(briefs.shortcode, brief.shortcode)),
  ]);
  const row = found[0];
  if (!row || !isPublished(row.publishedAt, now)) {
    if (!byId) throw new ApiError("brief_not_found", { detail: "No published brief has that shortcode." });
    throw invalid("/data/relationships/brief/data/id", row ? "brief is not published." : "brief does not exist.");
  }
  const domains = unique(input.domains);
  const vuln: VulnRow = {
    revision: 0,
    id: uuidv7(),
    organizationId: row.organizationId,
    briefId: row.id,
    shortcode: vulnShortcode(),
    title: input.title,
    description: input.description,
    contactEmail: input.contact_email ?? null,
    tags: unique(input.tags),
    inboxState: "dispatching",
    processingState: "open",
    readAt: null,
    submission: { ...raw, received_at: now },
    createdAt: now,
    updatedAt: now,
  };
  const record: VulnRecord = { ...vuln, domains: [...domains].sort() };
  const created = vulnEvent(ctx.db, "Vuln::Created", vuln.id, now);
  const p = new Plan(record).add(ctx.db.insert(vulns).values(vuln));
  for (const s of domainStatements(ctx, vuln.id, vuln.organizationId, domains, now)) p.add(s);
  p.add(created.statement, created.event);
  // The brief was read in the first batch; if it is deleted before this one, its foreign key
  // refuses the vuln, and with it the events and the Idempotency-Key's response.
  await whenRefused(
    () => commit(ctx, p, respond),
    () => {
      if (!byId) throw new ApiError("brief_not_found", { detail: "No published brief has that shortcode." });
      throw invalid("/data/relationships/brief/data/id", "brief does not exist.");
    },
  );
  return record;
}

export interface VulnUpdate extends VulnInput {
  briefId: string;
  processing_state?: ProcessingState;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join("\u0000") === [...b].sort().join("\u0000");

/**
 * Updates a vuln: one read (the vuln and the named brief), then one batch. Every statement is guarded
 * by the revision it read (which only edits bump, not intake), and the events are chained on
 * changes(), so a concurrent edit makes this one a 409 that wrote nothing, rather than a lost update.
 */
export async function updateVuln(ctx: ServiceContext, id: string, input: VulnUpdate): Promise<VulnRecord> {
  const [vulnRows, briefRows] = await readBatch(ctx, [
    ctx.db.select({ ...getTableColumns(vulns), ...domainsColumn }).from(vulns).where(where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId))),
    ctx.db.select({ organizationId: briefs.organizationId }).from(briefs).where(eq(briefs.id, input.briefId)),
  ]);
  const existing = vulnRows[0] ? toRecord(vulnRows[0]) : null;
  if (!existing) throw notFound();
  if (briefRows[0]?.organizationId !== existing.organizationId) throw invalid("/data/relationships/brief/data/id", "brief does not exist.");

  const next: VulnRecord = {
    ...existing,
    title: input.title,
    description: input.description,
    briefId: input.briefId,
    contactEmail: input.contact_email === undefined ? existing.contactEmail : input.contact_email,
    tags: input.tags === undefined ? existing.tags : unique(input.tags),
    processingState: input.processing_state ?? existing.processingState,
    domains: input.domains === undefined ? existing.domains : unique(input.domains).sort(),
  };
  const domainsChanged = !sameSet(next.domains, existing.domains);
  const changed =
    domainsChanged ||
    next.title !== existing.title ||
    next.description !== existing.description ||
    next.briefId !== existing.briefId ||
    next.contactEmail !== existing.contactEmail ||
    next.processingState !== existing.processingState ||
    JSON.stringify(next.tags) !== JSON.stringify(existing.tags);
  if (!changed) return existing;

  const now = nowIso();
  next.updatedAt = now;
  const p = new Plan(next);
  next.revision = existing.revision + 1;
  if (domainsChanged) for (const s of domainStatements(ctx, id, existing.organizationId, next.domains, now, existing.revision)) p.add(s);
  p.add(
    ctx.db
      .update(vulns)
      .set({
        title: next.title,
        description: next.description,
        briefId: next.briefId,
        contactEmail: next.contactEmail,
        tags: next.tags,
        processingState: next.processingState,
        revision: next.revision,
        updatedAt: now,
      })
      .where(and(eq(vulns.id, id), eq(vulns.revision, existing.revision))),
  );
  const guard = p.statements.length - 1;
  const updated = vulnEvent(ctx.db, "Vuln::Updated", id, now, { ifPreviousChanged: true });
  p.add(updated.statement, updated.event);
  if (next.processingState !== existing.processingState) {
    const type = next.processingState === "closed" ? "Vuln::Processing::Closed" : "Vuln::Processing::Reopened";
    const transition = vulnEvent(ctx.db, type, id, now, { ifPreviousChanged: true });
    p.add(transition.statement, transition.event);
  }
  // As in createVuln: a brief deleted since the read makes its foreign key refuse the whole batch.
  const { results } = await whenRefused(
    () => commit(ctx, p),
    () => {
      throw invalid("/data/relationships/brief/data/id", "brief does not exist.");
    },
  );
  if (changedRows(results[guard]) === 0) throw new ApiError("conflict", { detail: "The vuln changed while this request ran; read it again and retry." });
  return next;
}

/** Deletes a vuln; Vuln::Destroyed is written first in the same batch, from the row about to go. */
export async function deleteVuln(ctx: ServiceContext, id: string): Promise<void> {
  const now = nowIso();
  const scoped = where(eq(vulns.id, id), tenantFilter(ctx, vulns.organizationId));
  const destroyed = vulnEvent(ctx.db, "Vuln::Destroyed", id, now, { organizationId: ctx.caller.organizationId ?? undefined });
  const p = new Plan(null).add(destroyed.statement, destroyed.event).add(ctx.db.delete(vulns).where(scoped));
  const { results } = await commit(ctx, p);
  if (changedRows(results[1]) === 0) throw notFound();
}

/**
 * Vulns whose data changed through something else (a linked domain asset edited or deleted): their
 * revision and updated_at move and each gets Vuln::Updated, for the same batch as that change and
 * placed after it, so the payloads show the vulns as the change left them.
 */
export function touchVulns(ctx: ServiceContext, vulnIds: string[], now: string, p: Plan<unknown>): void {
  if (vulnIds.length === 0) return;
  p.add(ctx.db.update(vulns).set({ revision: sql`${vulns.revision} + 1`, updatedAt: now }).where(inList(vulns.id, vulnIds)));
  for (const id of vulnIds) {
    const updated = vulnEvent(ctx.db, "Vuln::Updated", id, now);
    p.add(updated.statement, updated.event);
  }
}
