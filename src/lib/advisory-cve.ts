import { type AdvisoryDocument, type AdvisoryLinks, type AffectedVersion, creditWords, cweName } from "./advisory";

// An advisory as a CVE JSON 5.1 CNA container (the part of a CVE record a CNA writes), ready for CVE
// Services. CVE JSON 5.1 has no field for a package URL (the JSON rendering and OSV carry it). Its
// providerMetadata.orgId is a UUID made from the organization's id: CVE Services sets the
// CNA's own on submission. The revision history is its timeline.

/** A stable version-4-form UUID for the organization (CVE's schema takes only that form). */
export async function cveOrgId(organizationId: string): Promise<string> {
  const b = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`cve-org:${organizationId}`))).slice(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The longest text CVE JSON 5 takes in a description. */
const CVE_TEXT_LENGTH = 4096;
const clip = (text: string, max: number) => ([...text].length > max ? `${[...text].slice(0, max - 1).join("")}…` : text);

function cveVersion(v: AffectedVersion) {
  if ("version" in v) return { version: v.version, status: v.status === "fixed" ? "unaffected" : v.status };
  return {
    version: v.range.introduced,
    lessThan: v.range.fixed ?? "*",
    versionType: "custom",
    status: v.status === "fixed" ? "unaffected" : v.status,
  };
}

export async function cveContainer(doc: AdvisoryDocument, links: AdvisoryLinks) {
  const metric =
    doc.cvss &&
    {
      "3.0": {
        cvssV3_0: {
          version: "3.0",
          vectorString: doc.cvss.vector,
          baseScore: doc.cvss.score,
          baseSeverity: doc.cvss.severity.toUpperCase(),
        },
      },
      "3.1": {
        cvssV3_1: {
          version: "3.1",
          vectorString: doc.cvss.vector,
          baseScore: doc.cvss.score,
          baseSeverity: doc.cvss.severity.toUpperCase(),
        },
      },
      "4.0": {
        cvssV4_0: {
          version: "4.0",
          vectorString: doc.cvss.vector,
          baseScore: doc.cvss.score,
          baseSeverity: doc.cvss.severity.toUpperCase(),
        },
      },
    }[doc.cvss.version];
  return {
    providerMetadata: {
      orgId: await cveOrgId(doc.publisher.organization_id),
      // CVE's short names are 2 to 32 characters; a one-character slug is left out (orgId is what counts).
      ...(doc.publisher.slug.length >= 2 ? { shortName: doc.publisher.slug.slice(0, 32) } : {}),
      dateUpdated: doc.updated_at,
    },
    datePublic: doc.published_at,
    title: doc.title.slice(0, 256),
    descriptions: [{ lang: "en", value: doc.summary }],
    affected: doc.affected.map((p) => ({
      vendor: p.vendor,
      product: p.product,
      versions: p.versions.map(cveVersion),
      defaultStatus: "unknown",
    })),
    ...(doc.cwe_ids.length
      ? {
          problemTypes: [
            {
              descriptions: doc.cwe_ids.map((id) => ({
                lang: "en",
                type: "CWE",
                cweId: id,
                description: `${id} ${cweName(id) ?? ""}`.trim(),
              })),
            },
          ],
        }
      : {}),
    references: [{ url: links.page, tags: ["vendor-advisory"] }, ...doc.references.map((url) => ({ url }))],
    ...(metric ? { metrics: [{ format: "CVSS", scenarios: [{ lang: "en", value: "GENERAL" }], ...metric }] } : {}),
    // Within CVE's 4,096 characters: the API takes no longer remediation, but one kept before may be.
    ...(doc.remediation ? { solutions: [{ lang: "en", value: clip(doc.remediation, CVE_TEXT_LENGTH) }] } : {}),
    ...(doc.credits.length ? { credits: doc.credits.map((c) => ({ lang: "en", value: c.name, type: creditWords(c.type) })) } : {}),
    timeline: doc.history.map((r) => ({ time: r.date, lang: "en", value: `Revision ${r.number}: ${r.note}` })),
    source: { discovery: "EXTERNAL" },
  };
}
