// How alike two reports are, from 0 to 1, with the reasons a triager reads: the text's estimated Jaccard
// similarity Ĵ and the fingerprints they share, combined as independent evidence:
// score = 1 − (1 − t)·Π(1 − w) over the kinds shared (only the more specific of endpoint and path), where t
// is Ĵ above TEXT_FLOOR rescaled to 0..1: two reports of one reporter's template share that much text
// whatever they are about, so only what is beyond it counts.

import { type FingerprintKind, kindOf, WEIGHTS } from "./fingerprints";
import { estimateJaccard } from "./minhash";

/** A score above this makes the later report a possible duplicate of the earlier. */
export const DUPLICATE_THRESHOLD = 0.5;
/** The most similar reports kept per report, and the least score kept (an endpoint alone is 0.4; a class alone 0.2). */
export const SIMILAR_LIMIT = 10;
export const SIMILAR_MIN_SCORE = 0.3;
export const TEXT_FLOOR = 0.3;

export interface Signature {
  minhash: Uint32Array;
  fingerprints: readonly string[];
}

export interface Similarity {
  score: number;
  reasons: string[];
}

export interface ScoreOptions {
  weights: Readonly<Record<FingerprintKind, number>>;
  textFloor: number;
  /** When a shared route counts as an endpoint: when neither report names a parameter on it, or either. */
  routeAsEndpoint: "neither" | "either";
}

export const SCORE_OPTIONS: ScoreOptions = { weights: WEIGHTS, textFloor: TEXT_FLOOR, routeAsEndpoint: "neither" };

export function similarity(a: Signature, b: Signature, options: ScoreOptions = SCORE_OPTIONS): Similarity {
  const text = estimateJaccard(a.minhash, b.minhash);
  const theirs = new Set(b.fingerprints);
  const shared = [...new Set(a.fingerprints)].filter((f) => theirs.has(f));
  const first = (kind: string) => shared.find((f) => kindOf(f) === kind);
  const reasons: string[] = [];
  let apart = 1 - Math.max(0, (text - options.textFloor) / (1 - options.textFloor));
  const count = (kind: FingerprintKind, reason: string) => {
    apart *= 1 - options.weights[kind];
    reasons.push(reason);
  };
  if (text >= 0.05) reasons.push(`text ${text.toFixed(2)}`);
  const file = first("file");
  if (file) count("file", `same file ${file.slice(5, 13)}…`);
  const ep = first("ep");
  const path = first("path");
  if (ep) count("ep", `same endpoint ${ep.slice(3)}`);
  else if (path) {
    // One route, and no parameter that tells them apart (a CSRF, a CORS or an XXE finding has none): the
    // route is then as specific as the finding gets.
    const template = path.slice(5);
    const names = (fps: readonly string[]) => fps.filter((f) => f.startsWith(`ep:${template}?`)).length;
    const unnamed = [names(a.fingerprints), names(b.fingerprints)].filter((n) => n === 0).length;
    if (unnamed === 2 || (unnamed === 1 && options.routeAsEndpoint === "either")) count("ep", `same endpoint ${template}`);
    else count("path", `same path ${template}`);
  }
  const cwe = first("cwe");
  if (cwe) count("cwe", `CWE-${cwe.slice(4)}`);
  if (first("payload")) count("payload", "same payload");
  return { score: Math.round((1 - apart) * 1000) / 1000, reasons };
}
