import { z } from "@hono/zod-openapi";
import { AI_USE_LEVELS, EVIDENCE_FIELDS, type EvidenceField } from "../../../db/schema";
import { LIMITS } from "../../../lib/limits";
import { THUMBPRINT_PATTERN } from "../../../lib/reporter-signature";
import type { VulnRecord } from "../../../services/vulns/types";

// What a report brings to its brief's gate (evidence, AI use) and what the gate tells the triager of
// its reporter key: the members the submission takes and the vuln shows.

const evidenceText = (max: number) => z.string().max(max, `must be at most ${max} characters`);
export const EvidenceSchema = z
  .strictObject(
    Object.fromEntries(
      EVIDENCE_FIELDS.map((f) => [
        f,
        evidenceText(f === "proof_of_concept" ? LIMITS.proofOfConceptLength : LIMITS.evidenceFieldLength).optional(),
      ]),
    ) as Record<EvidenceField, z.ZodOptional<z.ZodString>>,
  )
  .openapi("Evidence", {
    description:
      "The evidence the brief's submission_requirements ask for, by field. A field the brief requires must be present and not blank.",
  });
export const AiUseSchema = z
  .strictObject({
    level: z.enum(AI_USE_LEVELS).openapi({
      description: "none; writing (AI helped write the report); discovery (AI helped find the issue); generated (AI wrote the finding).",
    }),
    tools: z
      .string()
      .trim()
      .max(LIMITS.aiToolsLength, `must be at most ${LIMITS.aiToolsLength} characters`)
      .default("")
      .openapi({ description: "The models or tools used, in the reporter's words.", example: "Claude Opus 4.5, Burp Suite AI" }),
    verified_by_reporter: z.boolean().default(false).openapi({ description: "The reporter reproduced the finding themselves." }),
  })
  .openapi("AiUse");

const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

export const ReporterKeySchema = z
  .object({
    thumbprint: z.string().max(43).regex(THUMBPRINT_PATTERN),
    record: z.object({ reports: count, valid: count, spam: count, not_applicable: count, duplicate: count }),
  })
  .nullable()
  .openapi({
    description:
      "Read-only: the reporter key the submission was signed with (its RFC 7638 thumbprint) and its record with this organization: " +
      "its reports and how they ended (valid: triaged, resolved or accepted_risk). Never who it is. null: not signed.",
  });

const NO_RECORD = { reports: 0, valid: 0, spam: 0, not_applicable: 0, duplicate: 0 };

/** The vuln's `reporter_key`: its thumbprint and the key's record, or null when not signed. */
export const reporterKeyOf = (row: Pick<VulnRecord, "reporterKey" | "keyRecord">) =>
  row.reporterKey === null ? null : { thumbprint: row.reporterKey, record: row.keyRecord ?? NO_RECORD };
