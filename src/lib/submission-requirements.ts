import { type AiUse, EVIDENCE_FIELDS, type Evidence, type EvidenceField, type SubmissionRequirements } from "../db/schema";

// One rule for both doors: the API refuses a submission missing what its brief requires (422 at the
// member), and the page runs the same rule to put each message beside its field.

const LABELS: Record<EvidenceField, string> = {
  steps_to_reproduce: "Steps to reproduce",
  proof_of_concept: "Proof of concept",
  affected_version: "Affected version",
  expected_result: "Expected result",
  actual_result: "Actual result",
  impact: "Impact",
};

/** How a form and a message name an evidence field. */
export const evidenceLabel = (field: EvidenceField): string => LABELS[field];

/** The evidence fields a brief lists (required or optional), in the form's order. */
export const listedEvidence = (req: SubmissionRequirements): EvidenceField[] => EVIDENCE_FIELDS.filter((f) => req.evidence[f]);

const filled = (value: string | undefined): boolean => value !== undefined && value.trim().length > 0;

export interface MissingRequirement {
  /** The attribute's path: `evidence.<field>` or `ai_use`. */
  member: string;
  detail: string;
}

/**
 * What a submission lacks of its brief's requirements: a required evidence field absent or blank, and
 * the AI-use disclosure when the brief requires it. `hasFile` says a proof of concept came as a file
 * (the page's door), which satisfies a required proof of concept.
 */
export function missingRequirements(
  req: SubmissionRequirements,
  input: { evidence?: Evidence; ai_use?: AiUse | null },
  { hasFile = false }: { hasFile?: boolean } = {},
): MissingRequirement[] {
  const missing: MissingRequirement[] = [];
  for (const field of EVIDENCE_FIELDS) {
    if (req.evidence[field] !== "required" || filled(input.evidence?.[field])) continue;
    if (field === "proof_of_concept" && hasFile) continue;
    missing.push({ member: `evidence.${field}`, detail: `${LABELS[field]} is required by this brief.` });
  }
  if (req.ai_disclosure === "required" && !input.ai_use) {
    missing.push({ member: "ai_use", detail: "This brief asks how AI was used (ai_use), even if not at all (level none)." });
  }
  return missing;
}

/** Every evidence field the brief lists, required or optional, was filled (true when it lists none). */
export const evidenceComplete = (req: SubmissionRequirements, evidence: Evidence | undefined, { hasFile = false } = {}): boolean =>
  listedEvidence(req).every((f) => filled(evidence?.[f]) || (f === "proof_of_concept" && hasFile));

/** The evidence as kept on the vuln: the fields filled, blank ones dropped, line breaks as LF. */
export function keptEvidence(evidence: Evidence | undefined): Evidence {
  const kept: Evidence = {};
  for (const field of EVIDENCE_FIELDS) {
    const value = evidence?.[field];
    if (filled(value)) kept[field] = value!.replaceAll("\r\n", "\n");
  }
  return kept;
}
