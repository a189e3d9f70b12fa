import type { AdvisoryDocument } from "../db/schema";
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
