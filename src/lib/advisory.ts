import type { AdvisoryDocument, AdvisoryRow, Credit, RevisionEntry } from "../db/schema";
import { baseCvss, severityOf } from "./cvss";
import { CWE_NAMES } from "./cwe-names";

// The model's types live beside the tables that keep it (src/db/schema/advisories.ts).
export {
  type AdvisoryCvss,
  type AdvisoryDocument,
  type AffectedProduct,
  type AffectedVersion,
  CREDIT_TYPES,
  type Credit,
  type CreditType,
  type RevisionEntry,
  VERSION_STATUSES,
  type VersionStatus,
} from "../db/schema";

// An advisory as published: one model, frozen in each revision, from which every rendering is made
// (the JSON:API read, CSAF 2.0, OSV, CVE JSON 5.1 and the page), so they cannot disagree.

/** Where the renderings of an advisory are published, on the deployment's public origin. */
export interface AdvisoryLinks {
  origin: string;
  page: string;
  json: string;
  csaf: string;
  osv: string;
  cve: string;
}

export function advisoryLinks(origin: string, id: string): AdvisoryLinks {
  const json = `${origin}/v1/p/advisories/${id}`;
  return { origin, page: `${origin}/a/${id}`, json, csaf: `${json}/csaf`, osv: `${json}/osv`, cve: `${json}/cve` };
}

/** A CWE id's name (CWE-79 → "Improper Neutralization of ..."), or null for a number MITRE does not list. */
export function cweName(id: string): string | null {
  return CWE_NAMES[Number(id.replace(/^CWE-/, ""))] ?? null;
}

/** The tracking id CSAF files are named by: the advisory's own, lower case. */
export function csafTrackingId(doc: Pick<AdvisoryDocument, "id">): string {
  return `vdp-${doc.id}`;
}

/** A credit type as words (remediation_developer → "remediation developer"), as CVE records spell them. */
export const creditWords = (type: import("../db/schema").CreditType) => type.replace(/_/g, " ");

/** The organization an advisory is published by, as a revision names it. */
export type AdvisoryPublisher = { id: string; name: string; slug: string; websiteUrl: string | null };

/** The advisory as a revision freezes it: the row, its publisher, its credits as resolved, its history to date. */
export function advisoryDocument(
  row: AdvisoryRow,
  publisher: AdvisoryPublisher,
  credits: Credit[],
  history: RevisionEntry[],
): AdvisoryDocument {
  const rated = row.cvssVector ? baseCvss(row.cvssVector) : null;
  return {
    id: row.id,
    publisher: { name: publisher.name, slug: publisher.slug, website_url: publisher.websiteUrl, organization_id: publisher.id },
    title: row.title,
    summary: row.summary ?? "",
    description: row.description,
    affected: row.affected,
    remediation: row.remediation,
    references: row.references,
    cve_id: row.cveId,
    cvss: rated && { vector: rated.vector, version: rated.version, score: rated.score, severity: severityOf(rated.score) },
    cwe_ids: row.cweIds,
    credits,
    state: row.state === "withdrawn" ? "withdrawn" : "published",
    revision: row.revision,
    published_at: row.publishedAt!,
    updated_at: history.at(-1)!.date,
    withdrawn_at: row.withdrawnAt,
    history,
  };
}
