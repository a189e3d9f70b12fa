import { and, count, desc, eq, getTableColumns, ne, sql } from "drizzle-orm";
import {
  advisories,
  advisoryVulns,
  organizations,
  regulatoryReports,
  vulns,
  type RegulatoryReportKind,
  type RegulatoryReportRow,
} from "../db/schema";
import type { Page } from "../db/pagination";
import { batchOf, where, whenRefused, subquery } from "../db/queries";
import { alertsAt, type CraKind, type Deadline, deadlinesAt, dueOf, metOf, nextLookMs } from "../lib/deadlines";
import { Invalid, NotFound, attribute } from "../lib/domain-errors";
import { nowIso, uuidv7 } from "../lib/ids";
import { regulatoryDraft, type RegulatoryDraft } from "../lib/regulatory-draft";
import { tenantFilter, type ServiceContext } from "./context";
import { pageStatements, type Ordering } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { sentMembers } from "./audit";
import { alertView } from "./vulns/next";
import { recordColumns, toRecord } from "./vulns/read";
import type { VulnRecord } from "./vulns/types";
import { mayChange } from "./access";

export interface RegulatoryReportInput {
  kind: RegulatoryReportKind;
  submitted_at: string;
  reference?: string | null;
  body: string;
}

/** The vuln's deadline each kind of filing meets, and the column that keeps when it was first met. */
const MEETS = {
  early_warning: { deadline: "cra_early_warning", key: "craEarlyWarningMetAt" },
  notification: { deadline: "cra_notification", key: "craNotificationMetAt" },
  final_report: { deadline: "cra_final_report", key: "craFinalReportMetAt" },
} as const satisfies Record<RegulatoryReportKind, { deadline: CraKind; key: keyof typeof vulns.$inferSelect }>;

const vulnNotFound = () => new NotFound("vuln", "No vuln has that id.");

/** Whether the caller may see the vuln: its id, or no row (for a batch beside the read that needs it). */
const vulnSeen = (ctx: ServiceContext, vulnId: string) =>
  ctx.db
    .select({ id: vulns.id })
    .from(vulns)
    .where(where(eq(vulns.id, vulnId), tenantFilter(ctx, vulns.organizationId)));

/** The vuln as the caller may see it, with its organization's name. */
function vulnRead(ctx: ServiceContext, vulnId: string) {
  return ctx.db
    .select({
      ...getTableColumns(vulns),
      ...recordColumns,
      organizationName:
        subquery<string>`(SELECT ${organizations.name} FROM ${organizations} WHERE ${organizations.id} = ${vulns.organizationId})`.as(
          "organization_name",
        ),
    })
    .from(vulns)
    .where(where(eq(vulns.id, vulnId), tenantFilter(ctx, vulns.organizationId)));
}

async function readVuln(ctx: ServiceContext, vulnId: string): Promise<VulnRecord & { organizationName: string }> {
  const [rows] = await readBatch(ctx, [vulnRead(ctx, vulnId)]);
  return vulnOf(rows);
}

function vulnOf(rows: Awaited<ReturnType<typeof vulnRead>>): VulnRecord & { organizationName: string } {
  const row = rows[0];
  if (!row) throw vulnNotFound();
  const { organizationName, ...vuln } = row;
  return { ...toRecord(vuln), organizationName };
}

/** The affected products of the vuln's advisory: the draft being written first, else the latest published (never a withdrawn one). */
const advisoryAffected = (ctx: ServiceContext, vulnId: string) =>
  ctx.db
    .select({ affected: advisories.affected })
    .from(advisories)
    .innerJoin(advisoryVulns, eq(advisoryVulns.advisoryId, advisories.id))
    .where(where(eq(advisoryVulns.vulnId, vulnId), ne(advisories.state, "withdrawn"), tenantFilter(ctx, advisories.organizationId)))
    .orderBy(desc(sql`${advisories.state} = 'draft'`), desc(advisories.updatedAt))
    .limit(1);

/**
 * Records what the organization filed with an authority, and meets the vuln's deadline of its kind
 * (the first filing's submitted_at is when it was met). One read, then one batch: the filing, guarded
 * to a vuln that is still the organization's, and the vuln's met time, overdue flag and next look.
 */
export async function createRegulatoryReport(
  ctx: ServiceContext,
  vulnId: string,
  input: RegulatoryReportInput,
): Promise<RegulatoryReportRow> {
  mayChange(ctx, "vulns");
  const now = nowIso();
  if (Date.parse(input.submitted_at) > Date.parse(now)) throw Invalid.at(SUBMITTED_AT, "must not be in the future.");
  const vuln = await readVuln(ctx, vulnId);
  // A filing back-dated before the law's clock started would meet a deadline nobody could have met.
  if (vuln.exploitationKnownAt && filedBefore(input.submitted_at, vuln.exploitationKnownAt)) throw backDated(vuln.exploitationKnownAt);
  const record: RegulatoryReportRow = {
    id: uuidv7(),
    vulnId: vuln.id,
    organizationId: vuln.organizationId,
    kind: input.kind,
    submittedAt: input.submitted_at,
    reference: input.reference ?? null,
    body: input.body,
    createdAt: now,
  };
  const { deadline, key } = MEETS[input.kind];
  const column = vulns[key];
  const view = alertView(vuln);
  const metBefore = view.met.filed[deadline];
  const met = metBefore && metBefore <= input.submitted_at ? metBefore : input.submitted_at;
  const after = { ...view, met: { ...view.met, filed: { ...view.met.filed, [deadline]: met } } };
  // The organization of a vuln that is still there when the batch runs, and whose exploitation was not
  // known only after this filing (a change since the read may have moved it): else NULL, which refuses it.
  const guardedOrganization = subquery<string>`(SELECT ${vulns.organizationId} FROM ${vulns} WHERE ${vulns.id} = ${vuln.id} AND
    ${vulns.organizationId} = ${vuln.organizationId} AND (${vulns.exploitationKnownAt} IS NULL OR substr(${vulns.exploitationKnownAt},
    1, 19) <= ${input.submitted_at}))`;
  const p = new Plan(record).add(ctx.db.insert(regulatoryReports).values({ ...record, organizationId: guardedOrganization })).add(
    ctx.db
      .update(vulns)
      .set({
        // The earliest filing meets it, whatever order they are recorded in.
        [key]: sql`CASE WHEN ${column} IS NULL OR ${column} > ${input.submitted_at} THEN ${input.submitted_at} ELSE ${column} END`,
        overdue: alertsAt(after, new Set(), Date.parse(now)).overdue ? 1 : 0,
        nextAlertMs: nextLookMs(after),
      })
      .where(eq(vulns.id, vuln.id)),
  );
  p.audits({
    action: "regulatory_report.file",
    target: { type: "regulatory_report", id: record.id },
    changed: sentMembers(input),
    organizationId: vuln.organizationId,
  });
  await whenRefused(
    () => commit(ctx, p, ctx.respond),
    async () => {
      // Refused: say why from the vuln as it is now (gone, or known later than this filing).
      const [rows] = await readBatch(ctx, [vulnRead(ctx, vulnId)]);
      const known = rows[0]?.exploitationKnownAt;
      throw known && filedBefore(input.submitted_at, known) ? backDated(known) : vulnNotFound();
    },
  );
  return record;
}

const SUBMITTED_AT = attribute("submitted_at");
/**
 * Whether a filing's time is before the moment of knowledge, to the second: people write times to the
 * second ("$(date -u ...)" just after flagging), the platform keeps milliseconds. Both are UTC
 * ISO text, so the first 19 characters compare as the times do (the SQL guard says the same).
 */
const filedBefore = (submittedAt: string, knownAt: string) => submittedAt < knownAt.slice(0, 19);
const backDated = (knownAt: string) =>
  Invalid.at(SUBMITTED_AT, `must not be before the vuln's exploitation_known_at (${knownAt}), when the law's clock started.`);

const ORDERING: Ordering = {
  name: "created_at",
  column: regulatoryReports.createdAt,
  field: "createdAt",
  id: regulatoryReports.id,
  descending: false,
};

/** A page of a vuln's filings, oldest first, and their total, with the vuln's existence, in one round trip. */
export async function listRegulatoryReports(ctx: ServiceContext, vulnId: string, page: Page) {
  const ofVuln = and(eq(regulatoryReports.vulnId, vulnId), tenantFilter(ctx, regulatoryReports.organizationId));
  const spec = pageStatements<RegulatoryReportRow>({
    ordering: ORDERING,
    page,
    rows: ({ seek, order, limit, offset }) =>
      ctx.db
        .select()
        .from(regulatoryReports)
        .where(and(ofVuln, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => ctx.db.select({ id: regulatoryReports.id }).from(regulatoryReports).where(and(ofVuln, at)).limit(1),
    total: ctx.db.select({ total: count() }).from(regulatoryReports).where(ofVuln),
  });
  const [vulnRows, ...results] = await batchOf(ctx.db, [vulnSeen(ctx, vulnId), ...spec.statements]);
  if (!(vulnRows as unknown[]).length) throw vulnNotFound();
  return spec.read(results);
}

/** One filing of a vuln the caller can see: 404 vuln_not_found for the vuln, not_found for the filing. */
export async function getRegulatoryReport(ctx: ServiceContext, vulnId: string, id: string): Promise<RegulatoryReportRow> {
  const [found, rows] = await ctx.db.batch([
    vulnSeen(ctx, vulnId),
    ctx.db
      .select()
      .from(regulatoryReports)
      .where(and(eq(regulatoryReports.id, id), eq(regulatoryReports.vulnId, vulnId), tenantFilter(ctx, regulatoryReports.organizationId))),
  ]);
  if (!found.length) throw vulnNotFound();
  const row = rows[0];
  if (!row) throw new NotFound("regulatory_report", "The vuln has no regulatory report with that id.");
  return row;
}

/** The text to file for `kind`, filled from the vuln, with what the organization must still complete. */
export async function draftRegulatoryReport(
  ctx: ServiceContext,
  vulnId: string,
  kind: RegulatoryReportKind,
): Promise<RegulatoryDraft & { vuln: VulnRecord; deadline: Deadline }> {
  const [rows, advisory] = await readBatch(ctx, [vulnRead(ctx, vulnId), advisoryAffected(ctx, vulnId)]);
  const vuln = vulnOf(rows);
  const deadline = deadlinesAt(dueOf(vuln), metOf(vuln), vuln.triageState, Date.now(), vuln.activelyExploited)[MEETS[kind].deadline];
  const draft = regulatoryDraft(kind, {
    manufacturer: vuln.organizationName,
    shortcode: vuln.shortcode,
    title: vuln.title,
    severity: vuln.severity,
    cvssVector: vuln.cvssVector,
    cvssScore: vuln.cvssScore,
    cweIds: vuln.cweIds,
    triageState: vuln.triageState,
    createdAt: vuln.createdAt,
    closedAt: vuln.closedAt,
    exploitationKnownAt: vuln.exploitationKnownAt,
    dueAt: deadline?.due_at ?? null,
    affected: advisory[0]?.affected ?? null,
  });
  return { ...draft, vuln, deadline: deadline ?? { due_at: null, met_at: null, state: "none" } };
}
