// How alike two reports are, from 0 to 1, with the reasons a triager reads: the text's estimated Jaccard
// similarity Ĵ and the fingerprints they share, combined as independent evidence:
// score = 1 − (1 − Ĵ)·Π(1 − w) over the kinds shared (only the more specific of endpoint and path).

import { kindOf, WEIGHTS } from "./fingerprints";
import { estimateJaccard } from "./minhash";

/** A score above this makes the later report a possible duplicate of the earlier. */
export const DUPLICATE_THRESHOLD = 0.5;
/** The most similar reports kept per report. */
export const SIMILAR_LIMIT = 10;

export interface Signature {
  minhash: Uint32Array;
  fingerprints: readonly string[];
}

export interface Similarity {
  score: number;
  reasons: string[];
}

export function similarity(a: Signature, b: Signature): Similarity {
  const text = estimateJaccard(a.minhash, b.minhash);
  const theirs = new Set(b.fingerprints);
  const shared = [...new Set(a.fingerprints)].filter((f) => theirs.has(f));
  const first = (kind: string) => shared.find((f) => kindOf(f) === kind);
  const reasons: string[] = [];
  let apart = 1 - text;
  const count = (kind: keyof typeof WEIGHTS, reason: string) => {
    apart *= 1 - WEIGHTS[kind];
    reasons.push(reason);
  };
  if (text >= 0.05) reasons.push(`text ${text.toFixed(2)}`);
  const file = first("file");
  if (file) count("file", `same file ${file.slice(5, 13)}…`);
  const ep = first("ep");
  const path = first("path");
  if (ep) count("ep", `same endpoint ${ep.slice(3)}`);
  else if (path) count("path", `same path ${path.slice(5)}`);
  const cwe = first("cwe");
  if (cwe) count("cwe", `CWE-${cwe.slice(4)}`);
  if (first("payload")) count("payload", "same payload");
  return { score: Math.round((1 - apart) * 1000) / 1000, reasons };
}
