import { type AdvisoryDocument, type AdvisoryLinks, type AffectedProduct, cweName } from "./advisory";

// An advisory in the OSV format (schema 1.6). Its id is in the "x_" space OSV keeps for databases it
// does not list; a product with a package URL of a known ecosystem becomes a package, any other is
// named in database_specific. OSV lists what is affected: a version as such, a range as ECOSYSTEM
// events (introduced, then fixed), a version fixed alone as fixed since the start.

export const OSV_SCHEMA_VERSION = "1.6.0";

// Package URL types and the OSV ecosystem each names.
const ECOSYSTEMS: Record<string, string> = {
  npm: "npm",
  pypi: "PyPI",
  maven: "Maven",
  gem: "RubyGems",
  golang: "Go",
  cargo: "crates.io",
  nuget: "NuGet",
  composer: "Packagist",
  hex: "Hex",
  pub: "Pub",
  hackage: "Hackage",
  cran: "CRAN",
  conan: "ConanCenter",
  swift: "SwiftURL",
};

/** The OSV package a purl names: its ecosystem and the name as that ecosystem spells it, or null. */
export function osvPackage(purl: string): { ecosystem: string; name: string; purl: string } | null {
  const m = /^pkg:([a-zA-Z.+-]+)\/([^@?#]+)/.exec(purl);
  const ecosystem = m && ECOSYSTEMS[m[1]!.toLowerCase()];
  if (!m || !ecosystem) return null;
  const parts = m[2]!.split("/").map(decodeURIComponent);
  const name = ecosystem === "Maven" ? parts.join(":") : parts.join("/");
  // The package's purl without a version or qualifiers, as OSV asks.
  return { ecosystem, name, purl: `pkg:${m[1]}/${m[2]}` };
}

function osvAffected(product: AffectedProduct) {
  const pkg = product.purl ? osvPackage(product.purl) : null;
  const versions = product.versions.flatMap((v) => ("version" in v && v.status === "affected" ? [v.version] : []));
  const events = product.versions.flatMap((v) => {
    if ("range" in v && v.status === "affected")
      return [{ introduced: v.range.introduced }, ...(v.range.fixed ? [{ fixed: v.range.fixed }] : [])];
    if ("version" in v && v.status === "fixed") return [{ introduced: "0" }, { fixed: v.version }];
    return [];
  });
  return {
    ...(pkg ? { package: pkg } : {}),
    ...(events.length ? { ranges: [{ type: "ECOSYSTEM", events }] } : {}),
    ...(versions.length ? { versions } : {}),
    database_specific: { vendor: product.vendor, product: product.product, ...(product.purl && !pkg ? { purl: product.purl } : {}) },
  };
}

export function osvDocument(doc: AdvisoryDocument, links: AdvisoryLinks) {
  const cvss = doc.cvss && { type: doc.cvss.version === "4.0" ? "CVSS_V4" : "CVSS_V3", score: doc.cvss.vector };
  return {
    schema_version: OSV_SCHEMA_VERSION,
    id: `x_VDP-${doc.id}`,
    modified: doc.updated_at,
    published: doc.published_at,
    ...(doc.withdrawn_at ? { withdrawn: doc.withdrawn_at } : {}),
    ...(doc.cve_id ? { aliases: [doc.cve_id] } : {}),
    summary: doc.title,
    details: [doc.summary, doc.description, doc.remediation && `Remediation: ${doc.remediation}`].filter(Boolean).join("\n\n"),
    ...(cvss ? { severity: [cvss] } : {}),
    affected: doc.affected.map(osvAffected),
    references: [
      { type: "ADVISORY", url: links.page },
      { type: "ADVISORY", url: links.csaf },
      ...doc.references.map((url) => ({ type: "WEB", url })),
    ],
    ...(doc.credits.length ? { credits: doc.credits.map((c) => ({ name: c.name, type: c.type.toUpperCase() })) } : {}),
    database_specific: {
      cwe_ids: doc.cwe_ids,
      cwe_names: doc.cwe_ids.map((id) => cweName(id)),
      ...(doc.cvss ? { cvss_score: doc.cvss.score, severity: doc.cvss.severity } : {}),
      revision: doc.revision,
      revision_history: doc.history,
      publisher: doc.publisher.name,
    },
  };
}
