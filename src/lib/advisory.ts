import type { CvssVersion, Severity } from "../db/schema";
import { CWE_NAMES } from "./cwe-names";

// An advisory as published: one model, frozen in each revision, from which every rendering is made
// (the JSON:API read, CSAF 2.0, OSV, CVE JSON 5.1 and the page), so they cannot disagree.

export const CREDIT_TYPES = [
  "finder",
  "reporter",
  "analyst",
  "coordinator",
  "remediation_developer",
  "remediation_reviewer",
  "remediation_verifier",
  "tool",
  "sponsor",
  "other",
] as const;
export type CreditType = (typeof CREDIT_TYPES)[number];

export const VERSION_STATUSES = ["affected", "fixed", "unaffected"] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export type AffectedVersion =
  | { version: string; status: VersionStatus }
  | { range: { introduced: string; fixed: string | null }; status: VersionStatus };

export interface AffectedProduct {
  vendor: string;
  product: string;
  purl: string | null;
  versions: AffectedVersion[];
}

export interface Credit {
  name: string;
  type: CreditType;
}

export interface AdvisoryCvss {
  /** The base vector, its metrics in the specification's order. */
  vector: string;
  version: CvssVersion;
  score: number;
  severity: Severity;
}

export interface RevisionEntry {
  number: number;
  date: string;
  note: string;
}

/** What one revision of a published advisory says, whole. */
export interface AdvisoryDocument {
  id: string;
  publisher: { name: string; slug: string; website_url: string | null; organization_id: string };
  title: string;
  summary: string;
  description: string | null;
  affected: AffectedProduct[];
  remediation: string | null;
  references: string[];
  cve_id: string | null;
  cvss: AdvisoryCvss | null;
  cwe_ids: string[];
  credits: Credit[];
  state: "published" | "withdrawn";
  revision: number;
  published_at: string;
  updated_at: string;
  withdrawn_at: string | null;
  /** Every revision so far, the first first; the last is this one. */
  history: RevisionEntry[];
}

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
export const creditWords = (type: CreditType) => type.replace(/_/g, " ");
