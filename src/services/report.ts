import { eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { briefs, deletedReportTokens, organizations, vulns } from "../db/schema";
import { nowIso } from "../lib/ids";
import type { Caller, ServiceContext } from "./context";
import type { Plan } from "./unit-of-work";
import { touchVulns } from "./vulns";

/**
 * A report as its reporter may see it: its state, and the names the reporter already saw on the
 * brief's public page. Nothing else of the organization's (no triage notes, no keys, no tags).
 */
export interface Report {
  id: string;
  organizationId: string;
  shortcode: string;
  title: string;
  inboxState: string;
  processingState: string;
  severity: string | null;
  createdAt: string;
  updatedAt: string;
  briefName: string | null;
  organizationName: string;
}

/**
 * The one round trip behind every reporter request, by the follow-up token's SHA-256 (hex): the whole
 * report (so `GET /v1/p/report` costs this and nothing more), and in the same batch whether the token
 * was a deleted report's. Returns the report, "deleted", or null for a token nobody was given.
 */
export async function findReport(db: Db, tokenHash: string): Promise<Report | "deleted" | null> {
  const [rows, deleted] = await db.batch([
    db
      .select({
        id: vulns.id,
        organizationId: vulns.organizationId,
        shortcode: vulns.shortcode,
        title: vulns.title,
        inboxState: vulns.inboxState,
        processingState: vulns.processingState,
        severity: vulns.severity,
        createdAt: vulns.createdAt,
        updatedAt: vulns.updatedAt,
        // Aliased: rows of a D1 batch are keyed by column name, and both tables call theirs "name".
        briefName: sql<string | null>`${briefs.name}`.as("brief_name"),
        organizationName: sql<string>`${organizations.name}`.as("organization_name"),
      })
      .from(vulns)
      .innerJoin(organizations, eq(organizations.id, vulns.organizationId))
      .leftJoin(briefs, eq(briefs.id, vulns.briefId))
      .where(eq(vulns.followUpTokenHash, tokenHash)),
    db.select({ tokenHash: deletedReportTokens.tokenHash }).from(deletedReportTokens).where(eq(deletedReportTokens.tokenHash, tokenHash)),
  ]);
  return rows[0] ?? (deleted.length ? "deleted" : null);
}

/**
 * The caller a reporter's request runs as. It is no key: its id only scopes the request's
 * Idempotency-Key to the report, and tenancy lets it see nothing organization-owned.
 */
export function reporterCaller(report: Pick<Report, "id">): Caller {
  return { keyId: `report:${report.id}`, kind: "public", organizationId: null };
}

/**
 * For the attachment service, which scopes by organization: the report's own organization, used only
 * with the report's own vuln id, so the reporter reaches that vuln's files and nothing else.
 */
export function reportScopedCaller(report: Pick<Report, "id" | "organizationId">): Caller {
  return { keyId: `report:${report.id}`, kind: "organization", organizationId: report.organizationId };
}

/**
 * A file from the reporter is news to the organization: the vuln's updated_at moves and its webhooks
 * get Vuln::Updated at once (files the organization attaches itself change nothing), in the file
 * row's own batch.
 */
export function reporterUploaded(ctx: ServiceContext, vulnId: string) {
  return (p: Plan<unknown>) => touchVulns(ctx, [vulnId], nowIso(), p);
}
