import { CVSS30, CVSS31, CVSS40, InvalidMetricValue } from "@pandatix/js-cvss";
import type { CvssVersion, Severity } from "../db/schema";

export interface CvssRating {
  /** The vector as given, without a trailing slash. */
  vector: string;
  version: CvssVersion;
  /** 0.0..10.0, one decimal. */
  score: number;
}

/** A vector as the API keeps it: the version, then name:value metrics (4.0's supplemental values are words). */
export const CVSS_VECTOR_PATTERN = /^CVSS:(3\.0|3\.1|4\.0)(\/[A-Za-z]+:[A-Za-z]+)+$/;
/** A vector as the API takes it: the same, around whitespace and with a trailing slash allowed. */
export const CVSS_VECTOR_INPUT_PATTERN = "^\\s*CVSS:(3\\.0|3\\.1|4\\.0)(/[A-Za-z]+:[A-Za-z]+)+/?\\s*$";

// The base metrics every vector of a version must give, each once and not as X ("not defined").
const BASE_METRICS: Record<CvssVersion, readonly string[]> = {
  "3.0": ["AV", "AC", "PR", "UI", "S", "C", "I", "A"],
  "3.1": ["AV", "AC", "PR", "UI", "S", "C", "I", "A"],
  "4.0": ["AV", "AC", "AT", "PR", "UI", "VC", "VI", "VA", "SC", "SI", "SA"],
};
const TEMPORAL_3 = ["E", "RL", "RC"];
const ENVIRONMENTAL_3 = ["CR", "IR", "AR", "MAV", "MAC", "MPR", "MUI", "MS", "MC", "MI", "MA"];

// FIRST's calculators round as below; @pandatix/js-cvss 0.4.4 does not quite (its 3.1 Roundup tests
// the wrong digit, 3.0 gets 3.1's Roundup instead of a plain ceiling, 4.0 rounds without the
// epsilon), which moves one random 3.x score in about thirty-five and one 4.0 score in a few hundred
// by 0.1. Its methods call these statics by class name, so replacing them here fixes every score; the
// unit tests hold the result to another implementation on thousands of random vectors.
Object.assign(CVSS30, { roundup: (x: number) => Math.ceil(x * 10) / 10 });
Object.assign(CVSS31, {
  roundup: (x: number) => {
    const i = Math.round(x * 100_000);
    return i % 10_000 === 0 ? i / 100_000 : (Math.floor(i / 10_000) + 1) / 10;
  },
});
Object.assign(CVSS40, { roundup: (x: number) => Math.round((x + 1e-6) * 10) / 10 });

/**
 * Parses and scores a CVSS 3.0, 3.1 or 4.0 vector, or says what is wrong with it. The library knows
 * each version's metrics, their values and the formulas; it takes the metrics one by one (its own
 * parser wants 4.0 metrics in the specification's order, which vectors in the wild do not always
 * keep), so the checks for a complete vector without repeats are made here. The score is the
 * vector's own: for 3.x the environmental score when it sets any environmental metric, else the
 * temporal score when it sets any temporal one, else the base score; for 4.0 the one score of
 * whatever base, threat and environmental metrics it gives.
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

  const cvss = version === "4.0" ? new CVSS40() : version === "3.1" ? new CVSS31() : new CVSS30();
  for (const [name, value] of metrics) {
    try {
      cvss.Set(name, value);
    } catch (err) {
      // Anything else the library throws here is a name it does not know ("constructor" included).
      const problem = err instanceof InvalidMetricValue ? `unknown value ${value} for metric ${name}` : `unknown metric ${name}`;
      return { ok: false, reason: `is not valid CVSS ${version}: ${problem}` };
    }
  }
  const score = cvss instanceof CVSS40 ? cvss.Score() : overall3(cvss, metrics);
  if (!Number.isFinite(score) || score < 0 || score > 10) return { ok: false, reason: `could not be scored as CVSS ${version}` };
  return { ok: true, rating: { vector, version, score: Math.round(score * 10) / 10 } };
}

function overall3(cvss: CVSS30 | CVSS31, metrics: Map<string, string>): number {
  const defined = (names: string[]) => names.some((m) => (metrics.get(m) ?? "X") !== "X");
  if (defined(ENVIRONMENTAL_3)) {
    // The library weighs Modified Privileges Required by the base Scope, FIRST by the modified one;
    // the environmental score reads the base Scope for nothing else, so it may take the modified one.
    const modifiedScope = metrics.get("MS") ?? "X";
    if (modifiedScope !== "X") cvss.Set("S", modifiedScope);
    return cvss.EnvironmentalScore();
  }
  return defined(TEMPORAL_3) ? cvss.TemporalScore() : cvss.BaseScore();
}

/** The qualitative rating of a score, as FIRST defines it for CVSS 3.x and 4.0. */
export function severityOf(score: number): Severity {
  if (score === 0) return "none";
  if (score < 4) return "low";
  if (score < 7) return "medium";
  if (score < 9) return "high";
  return "critical";
}

/**
 * The base vector of a valid vector: its base metrics alone, in the specification's order (the form
 * advisories publish, which every format can carry and score alike), with its base score; null for a
 * vector that is not valid.
 */
export function baseCvss(input: string): CvssRating | null {
  const rated = rateCvss(input);
  if (!rated.ok) return null;
  const { version, vector } = rated.rating;
  const metrics = new Map(
    vector
      .split("/")
      .slice(1)
      .map((part) => part.split(":") as [string, string]),
  );
  const base = `CVSS:${version}/${BASE_METRICS[version].map((m) => `${m}:${metrics.get(m)}`).join("/")}`;
  const again = rateCvss(base);
  return again.ok ? again.rating : null;
}
