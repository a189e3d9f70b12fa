import { Cvss3P0, Cvss3P1, Cvss4P0 } from "ae-cvss-calculator";
import type { CvssVersion, Severity } from "../db/schema";

export interface CvssRating {
  /** The vector as given, without a trailing slash. */
  vector: string;
  version: CvssVersion;
  /** 0.0..10.0, one decimal. */
  score: number;
}

// The base metrics every vector of a version must give, each once and not as X ("not defined").
const BASE_METRICS: Record<CvssVersion, readonly string[]> = {
  "3.0": ["AV", "AC", "PR", "UI", "S", "C", "I", "A"],
  "3.1": ["AV", "AC", "PR", "UI", "S", "C", "I", "A"],
  "4.0": ["AV", "AC", "AT", "PR", "UI", "VC", "VI", "VA", "SC", "SI", "SA"],
};
const CALCULATORS = { "3.0": Cvss3P0, "3.1": Cvss3P1, "4.0": Cvss4P0 } as const;

/**
 * Parses and scores a CVSS 3.0, 3.1 or 4.0 vector, or says what is wrong with it. The library checks
 * metric names and values and computes the score; it also takes incomplete vectors (scoring them 0)
 * and repeated metrics (the last wins), so those are refused here first. The score is the vector's
 * own: the base score, or with temporal/threat and environmental metrics when the vector has them.
 */
export function rateCvss(input: string): { ok: true; rating: CvssRating } | { ok: false; reason: string } {
  const vector = input.trim().replace(/\/$/, "");
  const match = /^CVSS:(3\.0|3\.1|4\.0)\/(.+)$/.exec(vector);
  if (!match) return { ok: false, reason: "must be a CVSS 3.0, 3.1 or 4.0 vector such as CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" };
  const version = match[1] as CvssVersion;
  const metrics = new Map<string, string>();
  for (const part of match[2]!.split("/")) {
    const [name, value, ...rest] = part.split(":");
    if (!name || !value || rest.length) return { ok: false, reason: `has a malformed metric "${part}"` };
    if (metrics.has(name)) return { ok: false, reason: `names the metric ${name} twice` };
    metrics.set(name, value);
  }
  const missing = BASE_METRICS[version].filter((m) => !metrics.has(m) || metrics.get(m) === "X");
  if (missing.length) return { ok: false, reason: `lacks the base metric${missing.length > 1 ? "s" : ""} ${missing.join(", ")}` };
  let score: number;
  try {
    const scores = new CALCULATORS[version](vector).calculateScores() as { overall?: number };
    score = scores.overall ?? NaN;
  } catch (err) {
    // The library's messages name the metric ("Unknown component value Q for component AV").
    return { ok: false, reason: `is not valid CVSS ${version}: ${(err as Error).message}` };
  }
  if (!Number.isFinite(score) || score < 0 || score > 10) return { ok: false, reason: `could not be scored as CVSS ${version}` };
  return { ok: true, rating: { vector, version, score: Math.round(score * 10) / 10 } };
}

/** The qualitative rating of a score, as FIRST defines it for CVSS 3.x and 4.0. */
export function severityOf(score: number): Severity {
  if (score === 0) return "none";
  if (score < 4) return "low";
  if (score < 7) return "medium";
  if (score < 9) return "high";
  return "critical";
}
