import type { AdvisoryDocument, AdvisoryLinks } from "./advisory";
import { csafDocument } from "./advisory-csaf";
import { cveContainer } from "./advisory-cve";
import { osvDocument } from "./advisory-osv";

// The documents the world's tools read, by name: what the public reads serve and the console previews
// show are made by this one choice, so a preview is what publication will serve.

export const ADVISORY_RENDERINGS = ["csaf", "osv", "cve"] as const;
export type AdvisoryRendering = (typeof ADVISORY_RENDERINGS)[number];

/** An advisory's revision as CSAF 2.0, OSV or a CVE JSON 5.1 CNA container. */
export function renderAdvisory(
  doc: AdvisoryDocument,
  format: AdvisoryRendering,
  links: AdvisoryLinks,
  generator: string,
): Promise<unknown> {
  if (format === "csaf") return Promise.resolve(csafDocument(doc, links, generator));
  if (format === "osv") return Promise.resolve(osvDocument(doc, links));
  return cveContainer(doc, links);
}
