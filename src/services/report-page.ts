import { and, asc, desc, eq, getTableColumns, isNotNull } from "drizzle-orm";
import {
  advisories,
  advisoryVulns,
  attachments,
  auditEvents,
  briefs,
  cannedResponses,
  policies,
  comments,
  members,
  regulatoryReports,
  vulnRecords,
  vulns,
  vulnSimilarities,
  type AdvisoryRow,
  type AttachmentRow,
  type AuditEventRow,
  type CommentRow,
  type RegulatoryReportRow,
  type SubmissionRequirements,
} from "../db/schema";
import { batchOf, subquery } from "../db/queries";
import { NotFound } from "../lib/domain-errors";
import { normalizeVulnShortcode } from "../lib/ids";
import { type ServiceContext, tenantFilter } from "./context";
import { type EarlierReport, earlierReportsQuery } from "./reporter-keys";
import { recordColumns, toRecord, type VulnReadRow } from "./vulns/read";
import type { VulnRecord } from "./vulns/types";

// Everything the console's page of one report shows, read in one batch: the report, its record as
// received, the conversation, its files, its regulatory filings, the advisories naming it, its
// history from the audit log, the organization's members (for the assignee), and what the gate saw
// (the brief's requirements, the reporter key's other reports, the possible duplicate and the similar
// reports). Every statement after the first finds the report through the same scoped subquery, so a
// shortcode of another organization reads nothing at all.

/** The conversation and history shown at most (the newest); the API's lists page through the rest. */
export const REPORT_PAGE_ITEMS = 200;
/** The similar reports shown, by score (GET /v1/vulns/{id}/similar lists as many). */
export const SIMILAR_SHOWN = 10;

/** Another report of the organization as the page links it. */
export interface ReportLink {
  shortcode: string;
  title: string;
}

export interface ReportPageData {
  vuln: VulnRecord;
  record: typeof vulnRecords.$inferSelect | null;
  comments: CommentRow[];
  files: AttachmentRow[];
  filings: RegulatoryReportRow[];
  advisories: Pick<AdvisoryRow, "id" | "title" | "state" | "publishedAt" | "withdrawnAt">[];
  history: AuditEventRow[];
  members: { id: string; name: string | null; email: string }[];
  /** The original's shortcode, for a duplicate. */
  duplicateOf: string | null;
  /** The organization's canned responses, by name. */
  canned: { id: string; name: string; body: string; visibility: "internal" | "reporter" }[];
  /** The shortcode of the policy the report came in under (its brief's), for {{policy_url}}. */
  policyShortcode: string | null;
  /** What its brief asks of a report now (null: no brief found). */
  requirements: SubmissionRequirements | null;
  /** The reporter key's other reports to the organization, newest first (none when unsigned). */
  keyReports: EarlierReport[];
  /** The report possible_duplicate_of names. */
  possibleDuplicate: ReportLink | null;
  /** The most similar reports, by score, with the reasons. */
  similar: (ReportLink & { score: number; reasons: string[] })[];
}

export async function readReportPage(ctx: ServiceContext, shortcodeText: string): Promise<ReportPageData> {
  const shortcode = normalizeVulnShortcode(shortcodeText);
  if (!shortcode) throw new NotFound("vuln", "No report has that shortcode.");
  // The member's organization (tenantFilter also asks for the `read` scope); every column named qualified.
  const scoped = and(eq(vulns.shortcode, shortcode), tenantFilter(ctx, vulns.organizationId));
  const organizationId = ctx.caller.organizationId;
  if (!organizationId) throw new NotFound("vuln", "No report has that shortcode.");
  const inScope = subquery`${vulns.shortcode} = ${shortcode} AND ${vulns.organizationId} = ${organizationId}`;
  const id = subquery<string>`(SELECT ${vulns.id} FROM ${vulns} WHERE ${inScope})`;
  const read = (await batchOf(ctx.db, [
    ctx.db
      .select({ ...getTableColumns(vulns), ...recordColumns })
      .from(vulns)
      .where(scoped),
    ctx.db.select().from(vulnRecords).where(eq(vulnRecords.vulnId, id)),
    ctx.db
      .select()
      .from(comments)
      .where(eq(comments.vulnId, id))
      .orderBy(desc(comments.createdAt), desc(comments.id))
      .limit(REPORT_PAGE_ITEMS),
    ctx.db.select().from(attachments).where(eq(attachments.vulnId, id)).orderBy(asc(attachments.createdAt), asc(attachments.id)),
    ctx.db.select().from(regulatoryReports).where(eq(regulatoryReports.vulnId, id)).orderBy(asc(regulatoryReports.createdAt)),
    ctx.db
      .select({
        id: advisories.id,
        title: advisories.title,
        state: advisories.state,
        publishedAt: advisories.publishedAt,
        withdrawnAt: advisories.withdrawnAt,
      })
      .from(advisoryVulns)
      .innerJoin(advisories, eq(advisories.id, advisoryVulns.advisoryId))
      .where(eq(advisoryVulns.vulnId, id)),
    ctx.db
      .select()
      .from(auditEvents)
      // On the organization's target index: ids are time-ordered (UUIDv7), so the newest are last.
      .where(and(eq(auditEvents.organizationId, organizationId), eq(auditEvents.targetId, id)))
      .orderBy(desc(auditEvents.id))
      .limit(REPORT_PAGE_ITEMS),
    ctx.db
      .select({ id: members.id, name: members.name, email: members.email })
      .from(members)
      .where(and(tenantFilter(ctx, members.organizationId), isNotNull(members.joinedAt)))
      .orderBy(asc(members.createdAt)),
    ctx.db
      .select({ shortcode: vulns.shortcode })
      .from(vulns)
      .where(eq(vulns.id, subquery<string>`(SELECT ${vulns.duplicateOfId} FROM ${vulns} WHERE ${inScope})`)),
    ctx.db
      .select({ id: cannedResponses.id, name: cannedResponses.name, body: cannedResponses.body, visibility: cannedResponses.visibility })
      .from(cannedResponses)
      .where(tenantFilter(ctx, cannedResponses.organizationId))
      .orderBy(asc(cannedResponses.name))
      .limit(REPORT_PAGE_ITEMS),
    ctx.db
      .select({ shortcode: policies.shortcode, requirements: briefs.submissionRequirements })
      .from(briefs)
      .leftJoin(policies, eq(policies.id, briefs.policyId))
      .where(eq(briefs.id, subquery<string>`(SELECT ${vulns.briefId} FROM ${vulns} WHERE ${inScope})`)),
    earlierReportsQuery(ctx, subquery<string | null>`(SELECT ${vulns.reporterKey} FROM ${vulns} WHERE ${inScope})`, id),
    ctx.db
      .select({ shortcode: vulns.shortcode, title: vulns.title })
      .from(vulns)
      .where(
        and(
          eq(vulns.id, subquery<string>`(SELECT ${vulns.possibleDuplicateOfId} FROM ${vulns} WHERE ${inScope})`),
          tenantFilter(ctx, vulns.organizationId),
        ),
      ),
    // On vuln_similarities_score_idx (vuln_id, score), read in its order (no tie-break, which would sort every pair of a
    // much-resembled report): the best SIMILAR_SHOWN, each joined to its report by primary key.
    ctx.db
      .select({ shortcode: vulns.shortcode, title: vulns.title, score: vulnSimilarities.score, reasons: vulnSimilarities.reasons })
      .from(vulnSimilarities)
      .innerJoin(vulns, eq(vulns.id, vulnSimilarities.similarId))
      .where(and(eq(vulnSimilarities.vulnId, id), tenantFilter(ctx, vulnSimilarities.organizationId)))
      .orderBy(desc(vulnSimilarities.score))
      .limit(SIMILAR_SHOWN),
  ])) as [
    VulnReadRow[],
    (typeof vulnRecords.$inferSelect)[],
    CommentRow[],
    AttachmentRow[],
    RegulatoryReportRow[],
    ReportPageData["advisories"],
    AuditEventRow[],
    ReportPageData["members"],
    { shortcode: string }[],
    ReportPageData["canned"],
    { shortcode: string | null; requirements: SubmissionRequirements }[],
    EarlierReport[],
    ReportLink[],
    ReportPageData["similar"],
  ];
  const [rows, records, thread, files, filings, named, history, people, originals, canned, policy, keyReports, suggested, similar] = read;
  const row = rows[0];
  if (!row) throw new NotFound("vuln", "No report has that shortcode.");
  return {
    vuln: toRecord(row),
    record: records[0] ?? null,
    comments: thread.reverse(),
    files,
    filings,
    advisories: named,
    history: history.reverse(),
    members: people,
    duplicateOf: originals[0]?.shortcode ?? null,
    canned,
    policyShortcode: policy[0]?.shortcode ?? null,
    requirements: policy[0]?.requirements ?? null,
    keyReports,
    possibleDuplicate: suggested[0] ?? null,
    similar,
  };
}
