import { eq } from "drizzle-orm";
import type { Db } from "../db";
import { briefs, organizations, vulns } from "../db/schema";
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
 * The one query behind every reporter request, by the follow-up token's SHA-256 (hex). It reads the
 * whole report, so `GET /v1/p/report` costs this query and nothing more. A deleted vuln takes its
 * token's hash with it: its token is then unknown like any other.
 */
export async function findReport(db: Db, tokenHash: string): Promise<Report | null> {
  const row = await db
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
      briefName: briefs.name,
      organizationName: organizations.name,
    })
    .from(vulns)
    .innerJoin(organizations, eq(organizations.id, vulns.organizationId))
    .leftJoin(briefs, eq(briefs.id, vulns.briefId))
    .where(eq(vulns.followUpTokenHash, tokenHash))
    .get();
  return row ?? null;
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
