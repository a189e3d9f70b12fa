import { PackageURL } from "packageurl-js";
import type { AdvisoryDocument, AdvisoryRow, AffectedProduct, AffectedVersion, Credit, RevisionEntry } from "../db/schema";
import { baseCvss, severityOf } from "./cvss";
import { CWE_NAMES } from "./cwe-names";
import { LIMITS } from "./limits";
import { isWebUrl } from "./urls";

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
import { attribute, type Problem } from "./domain-errors";

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

// What the renderings need of the members, checked when the advisory is written (its request schema),
// so a publication never emits a document its format's validators refuse.

/**
 * Why a version is not one version, or null. CSAF 2.0's mandatory test 6.1.31 refuses a product version
 * that reads as a range: a comparison sign, or one of its words standing alone ("prior to 2.0", "all
 * versions"); a range is written as one (`range: {introduced, fixed}`). A "|" would split the range's
 * vers expression (vers:generic/>=1.0|<2.0).
 */
export function versionProblem(version: string): string | null {
  if (/[<>|]/.test(version)) return 'must be one version, without "<", ">" or "|": write a range as {"range": {"introduced", "fixed"}}';
  const word = version
    .toLowerCase()
    .split(/\s/)
    .find((w) => RANGE_WORDS.has(w));
  return word ? `must be one version, not words of a range such as "${word}": write a range as {"range": {"introduced", "fixed"}}` : null;
}
const RANGE_WORDS = new Set(["after", "all", "before", "earlier", "later", "prior", "versions"]);

/**
 * Why a package's purl does not take a version (CSAF names each version's package by the purl at that
 * version: a Go module's version that starts with "v" is semantic versioning, for one), or null.
 */
export function purlVersionProblem(purl: string, v: AffectedVersion): string | null {
  try {
    PackageURL.fromString(purlAt(purl, v));
    return null;
  } catch {
    return `must be a version the package URL's type takes (${purl.slice(0, purl.indexOf("/"))} packages)`;
  }
}

/**
 * What publishing needs of an advisory's members, as its request schema checks them: for a row written
 * before these checks, so a publication never emits a document a format's validator refuses.
 */
export function renderingProblems(row: Pick<AdvisoryRow, "affected" | "references" | "cweIds" | "remediation">): Problem[] {
  const at = (path: string) => ({ member: attribute(path) });
  const problems = row.references.flatMap((url, i) =>
    isWebUrl(url, "https")
      ? []
      : [{ source: at(`references.${i}`), detail: `references/${i} must be an https URL as RFC 3986 writes one.` }],
  );
  row.affected.forEach((p: AffectedProduct, i) => {
    p.versions.forEach((v, j) => {
      const versions =
        "version" in v
          ? [["version", v.version]]
          : [
              ["range/introduced", v.range.introduced],
              ["range/fixed", v.range.fixed],
            ];
      for (const [where, version] of versions) {
        if (!version) continue;
        const problem = versionProblem(version) ?? (p.purl && where === "version" ? purlVersionProblem(p.purl, v) : null);
        if (problem)
          problems.push({ source: at(`affected.${i}.versions.${j}.${`${where}`.replace("/", ".")}`), detail: `${where}: ${problem}` });
      }
    });
  });
  if (new Set(row.cweIds).size !== row.cweIds.length) problems.push({ source: at("cwe_ids"), detail: "cwe_ids names a CWE id twice." });
  if (row.remediation && row.remediation.length > LIMITS.advisoryRemediationLength)
    problems.push({ source: at("remediation"), detail: `remediation must be at most ${LIMITS.advisoryRemediationLength} characters.` });
  return problems;
}

/** A purl for one version: the version set unless the purl names one already (CSAF names each version's package so). */
export function purlAt(purl: string, v: AffectedVersion): string {
  if (!("version" in v) || /@[^/]*$/.test(purl.split(/[?#]/)[0]!)) return purl;
  const [head, ...rest] = purl.split(/(?=[?#])/);
  return `${head}@${encodeURIComponent(v.version)}${rest.join("")}`;
}
