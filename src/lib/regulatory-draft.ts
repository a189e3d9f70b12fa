import type { AffectedProduct, RegulatoryReportKind, Severity, TriageState } from "../db/schema";

/** What a draft is filled from: the vuln as the organization keeps it, and who makes the product. */
export interface DraftFacts {
  manufacturer: string;
  shortcode: string;
  title: string;
  severity: Severity | null;
  cvssVector: string | null;
  cvssScore: number | null;
  cweIds: string[];
  triageState: TriageState;
  createdAt: string;
  closedAt: string | null;
  exploitationKnownAt: string | null;
  /** The kind's deadline, if the clock runs. */
  dueAt: string | null;
  /** The products and versions of the report's advisory (its draft if it has one), or null without one. */
  affected: AffectedProduct[] | null;
}

/** One field of a filing: filled from the vuln (`value`), or left for the organization to complete. */
export interface DraftField {
  name: string;
  label: string;
  value: string | null;
}

export interface RegulatoryDraft {
  fields: DraftField[];
  /** The text to file, every field the organization must still complete marked as such. */
  body: string;
  /** The names of the fields to complete. */
  missing: string[];
}

const TITLES: Record<RegulatoryReportKind, string> = {
  early_warning: "Early warning of an actively exploited vulnerability (EU Cyber Resilience Act, Article 14(2)(a))",
  notification: "Vulnerability notification (EU Cyber Resilience Act, Article 14(2)(b))",
  final_report: "Final report (EU Cyber Resilience Act, Article 14(2)(c))",
};

const TO_COMPLETE = (label: string) => `[to complete: ${label.toLowerCase()}]`;

/**
 * The text an organization files with its CSIRT (through ENISA's single reporting platform) for a
 * vuln, per the Act's three stages: what the platform knows is filled in; what only the organization
 * knows (which Member States, the nature of the exploit, the measures users can take, how sensitive
 * it is) is listed as missing. Affected products and versions come from the report's advisory (the
 * draft being written, else the latest published); without one they are the organization's to complete.
 */
export function regulatoryDraft(kind: RegulatoryReportKind, f: DraftFacts): RegulatoryDraft {
  const fixed = f.triageState === "resolved" && f.closedAt ? f.closedAt : null;
  const cvss = f.cvssVector ? `${f.cvssScore?.toFixed(1)} (${f.cvssVector})` : null;
  const common: DraftField[] = [
    { name: "manufacturer", label: "Manufacturer", value: f.manufacturer },
    { name: "reference", label: "Manufacturer's reference", value: f.shortcode },
    { name: "vulnerability", label: "Vulnerability", value: f.title },
    { name: "exploitation_known_at", label: "Actively exploited, known since", value: f.exploitationKnownAt },
    { name: "received_at", label: "Report received", value: f.createdAt },
    { name: "affected_products", label: "Affected products and versions", value: f.affected?.length ? affectedText(f.affected) : null },
  ];
  const rating: DraftField[] = [
    { name: "severity", label: "Severity", value: f.severity },
    { name: "cvss", label: "CVSS", value: cvss },
    { name: "cwe_ids", label: "Weakness (CWE)", value: f.cweIds.length ? f.cweIds.join(", ") : null },
  ];
  const byKind: Record<RegulatoryReportKind, DraftField[]> = {
    early_warning: [
      { name: "suspected_malicious", label: "Suspected to be caused by unlawful or malicious acts", value: null },
      { name: "member_states", label: "Member States where the product is made available", value: null },
    ],
    notification: [
      ...rating,
      { name: "exploit_nature", label: "General nature of the exploit", value: null },
      {
        name: "corrective_measures",
        label: "Corrective or mitigating measures taken",
        value: fixed ? `A fix was made available on ${fixed}.` : null,
      },
      { name: "user_measures", label: "Corrective or mitigating measures users can take", value: null },
      { name: "sensitivity", label: "How sensitive the notified information is", value: null },
    ],
    final_report: [
      ...rating,
      { name: "impact", label: "Impact", value: null },
      { name: "fixed_at", label: "Security update made available", value: fixed },
      { name: "security_update", label: "Details of the security update or other corrective measures", value: null },
      { name: "malicious_actor", label: "Information on the malicious actor that exploited it, where available", value: null },
    ],
  };
  const fields = [...common, ...byKind[kind]];
  const lines = [
    TITLES[kind],
    ...(f.dueAt ? [`Due: ${f.dueAt}`] : []),
    "",
    ...fields.map((field) => `${field.label}: ${field.value ?? TO_COMPLETE(field.label)}`),
    "",
  ];
  return { fields, body: lines.join("\n"), missing: fields.filter((field) => field.value === null).map((field) => field.name) };
}

/** "Acme Widget (pkg:npm/widget): from 1.0.0 before 1.4.2 affected, 1.4.2 fixed; ...": the advisory's products, in words. */
export function affectedText(products: AffectedProduct[]): string {
  return products
    .map((p) => {
      const versions = p.versions.map((v) =>
        "version" in v
          ? `${v.version} ${v.status}`
          : `from ${v.range.introduced}${v.range.fixed ? ` before ${v.range.fixed}` : " on"} ${v.status}`,
      );
      return `${p.vendor} ${p.product}${p.purl ? ` (${p.purl})` : ""}: ${versions.join(", ")}`;
    })
    .join("; ");
}
