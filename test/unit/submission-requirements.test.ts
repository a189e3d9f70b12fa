import { describe, expect, it } from "vitest";
import type { SubmissionRequirements } from "../../src/db/schema";
import { evidenceComplete, keptEvidence, missingRequirements } from "../../src/lib/submission-requirements";

const req: SubmissionRequirements = {
  evidence: { steps_to_reproduce: "required", proof_of_concept: "required", impact: "optional" },
  ai_disclosure: "required",
};

describe("submission requirements", () => {
  it("names each missing required field and the AI-use disclosure, a blank field counting as missing", () => {
    expect(missingRequirements(req, { evidence: { steps_to_reproduce: "  \n " } }).map((m) => m.member)).toEqual([
      "evidence.steps_to_reproduce",
      "evidence.proof_of_concept",
      "ai_use",
    ]);
  });

  it("takes a file for a required proof of concept, and asks nothing of a brief that asks nothing", () => {
    const ai = { level: "none" as const, tools: "", verified_by_reporter: false };
    expect(missingRequirements(req, { evidence: { steps_to_reproduce: "1. open" }, ai_use: ai }, { hasFile: true })).toEqual([]);
    expect(missingRequirements({ evidence: {}, ai_disclosure: "off" }, {})).toEqual([]);
    expect(missingRequirements({ evidence: {}, ai_disclosure: "optional" }, {})).toEqual([]);
  });

  it("is complete only when every listed field, optional ones too, is filled", () => {
    const full = { steps_to_reproduce: "a", proof_of_concept: "b", impact: "c" };
    expect(evidenceComplete(req, full)).toBe(true);
    expect(evidenceComplete(req, { steps_to_reproduce: "a", proof_of_concept: "b" })).toBe(false);
    expect(evidenceComplete({ evidence: {}, ai_disclosure: "off" }, undefined)).toBe(true);
  });

  it("keeps the filled fields with LF line breaks and drops blank ones", () => {
    expect(keptEvidence({ impact: "a\r\nb", actual_result: " " })).toEqual({ impact: "a\nb" });
  });
});
