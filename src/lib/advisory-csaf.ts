import { type AdvisoryDocument, type AdvisoryLinks, type AffectedVersion, csafTrackingId, cweName, purlAt } from "./advisory";
import { isWebUrl } from "./urls";

// An advisory as a CSAF 2.0 document of the profile csaf_security_advisory (OASIS CSAF 2.0): the
// product tree from the affected products (vendor, product, then each version or range, with its
// package URL), one vulnerability with its CVE, CWE, CVSS 3.x score, credits and remediation, and the
// revision history. CSAF 2.0 knows no CVSS 4.0: a 4.0 vector is given in a note instead. Public
// advisories only, labelled TLP WHITE (CSAF 2.0's name for TLP 2.0's CLEAR).

const TLP_URL = "https://www.first.org/tlp/";

/** The version part of a product tree leaf: one version, or a range in the vers syntax. */
function versionBranch(v: AffectedVersion): { category: "product_version" | "product_version_range"; name: string } {
  if ("version" in v) return { category: "product_version", name: v.version };
  const { introduced, fixed } = v.range;
  return { category: "product_version_range", name: `vers:generic/>=${introduced}${fixed ? `|<${fixed}` : ""}` };
}

export function csafDocument(doc: AdvisoryDocument, links: AdvisoryLinks, generator: string) {
  const leaves: { id: string; status: AffectedVersion["status"] }[] = [];
  const vendors = new Map<string, { category: "vendor"; name: string; branches: unknown[] }>();
  doc.affected.forEach((product, p) => {
    const vendor = vendors.get(product.vendor) ?? { category: "vendor" as const, name: product.vendor, branches: [] };
    vendors.set(product.vendor, vendor);
    vendor.branches.push({
      category: "product_name",
      name: product.product,
      branches: product.versions.map((v, i) => {
        const id = `CSAFPID-${p + 1}-${i + 1}`;
        leaves.push({ id, status: v.status });
        const branch = versionBranch(v);
        return {
          ...branch,
          product: {
            product_id: id,
            name: `${product.vendor} ${product.product} ${"version" in v ? v.version : branch.name}`,
            ...(product.purl ? { product_identification_helper: { purl: purlAt(product.purl, v) } } : {}),
          },
        };
      }),
    });
  });
  const ids = (status: AffectedVersion["status"]) => leaves.filter((l) => l.status === status).map((l) => l.id);
  const [affected, fixed, unaffected] = [ids("affected"), ids("fixed"), ids("unaffected")];
  const productStatus = {
    ...(affected.length ? { known_affected: affected } : {}),
    ...(fixed.length ? { fixed } : {}),
    ...(unaffected.length ? { known_not_affected: unaffected } : {}),
  };
  const [cwe, ...moreCwes] = doc.cwe_ids;
  const cvss3 = doc.cvss && doc.cvss.version !== "4.0" ? doc.cvss : null;
  const notes = [
    { category: "description", title: "Description", text: doc.description ?? doc.summary },
    ...(moreCwes.length
      ? [{ category: "other", title: "More weaknesses", text: doc.cwe_ids.map((id) => `${id} ${cweName(id) ?? ""}`.trim()).join("\n") }]
      : []),
    ...(doc.cvss && !cvss3
      ? [{ category: "other", title: "CVSS 4.0", text: `${doc.cvss.vector} (score ${doc.cvss.score}, ${doc.cvss.severity})` }]
      : []),
  ];
  const withdrawn = doc.state === "withdrawn";
  return {
    document: {
      category: "csaf_security_advisory",
      csaf_version: "2.0",
      distribution: { tlp: { label: "WHITE", url: TLP_URL } },
      lang: "en",
      notes: [
        { category: "summary", title: "Summary", text: doc.summary },
        ...(withdrawn
          ? [{ category: "general", title: "Withdrawn", text: `This advisory was withdrawn: ${doc.history.at(-1)!.note}` }]
          : []),
      ],
      publisher: {
        category: "vendor",
        name: doc.publisher.name,
        // A website kept before addresses had to be RFC 3986 URIs may not be one: the platform's page then.
        namespace:
          doc.publisher.website_url && isWebUrl(doc.publisher.website_url)
            ? doc.publisher.website_url
            : `${links.origin}/o/${doc.publisher.slug}`,
      },
      references: [
        { category: "self", summary: "This advisory as CSAF", url: links.csaf },
        { category: "external", summary: "This advisory for people", url: links.page },
        ...doc.references.map((url) => ({ category: "external", summary: "Reference", url })),
      ],
      title: doc.title,
      tracking: {
        current_release_date: doc.updated_at,
        generator: { date: doc.updated_at, engine: { name: generator } },
        id: csafTrackingId(doc),
        initial_release_date: doc.published_at,
        revision_history: doc.history.map((r) => ({ date: r.date, number: String(r.number), summary: r.note })),
        status: "final",
        version: String(doc.revision),
      },
    },
    product_tree: { branches: [...vendors.values()] },
    vulnerabilities: [
      {
        ...(doc.cve_id ? { cve: doc.cve_id } : {}),
        ...(cwe && cweName(cwe) ? { cwe: { id: cwe, name: cweName(cwe) } } : {}),
        title: doc.title,
        notes,
        ...(doc.credits.length ? { acknowledgments: doc.credits.map((c) => ({ names: [c.name], summary: c.type })) } : {}),
        product_status: productStatus,
        ...(doc.remediation && (affected.length || fixed.length)
          ? { remediations: [{ category: "vendor_fix", details: doc.remediation, product_ids: [...affected, ...fixed] }] }
          : {}),
        ...(cvss3 && affected.length
          ? {
              scores: [
                {
                  cvss_v3: {
                    version: cvss3.version,
                    vectorString: cvss3.vector,
                    baseScore: cvss3.score,
                    baseSeverity: cvss3.severity.toUpperCase(),
                  },
                  products: affected,
                },
              ],
            }
          : {}),
        ...(doc.references.length
          ? { references: doc.references.map((url) => ({ category: "external", summary: "Reference", url })) }
          : {}),
      },
    ],
  };
}
