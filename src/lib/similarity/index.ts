// Near duplicates: what a report's text and files say, reduced to a signature that finds its look-alikes
// in a bounded number of index seeks (src/intake/similarity.ts stores and looks them up).

import { fingerprints } from "./fingerprints";
import { bandKeys, minhash } from "./minhash";
import { SCORE_OPTIONS, type ScoreOptions, type Signature, similarity } from "./score";
import { shingles, tokens } from "./tokens";

export { fileFingerprint, fingerprintKey, fingerprints, kindOf, lookupFingerprints, WEIGHTS } from "./fingerprints";
export { BANDS, bandKeys, decodeSignature, encodeSignature, estimateJaccard, HASHES, minhash, SIMILARITY_VERSION } from "./minhash";
export {
  DUPLICATE_THRESHOLD,
  SCORE_OPTIONS,
  type ScoreOptions,
  SIMILAR_LIMIT,
  SIMILAR_MIN_SCORE,
  type Signature,
  type Similarity,
  similarity,
} from "./score";
export { pathTemplate, shingles, tokens } from "./tokens";

export interface ReportSignature extends Signature {
  bands: number[];
}

/** Everything a report's text gives for the lookup: its MinHash, its band keys and its fingerprints. */
export function signatureOf(title: string, description: string): ReportSignature {
  const sig = minhash(shingles(tokens(title, description)));
  return { minhash: sig, bands: bandKeys(sig), fingerprints: fingerprints(title, description) };
}

/** The best candidate scoring above the threshold, if any. */
export function bestMatch<T extends Signature>(of: Signature, candidates: readonly T[], options: ScoreOptions = SCORE_OPTIONS) {
  let best: { candidate: T; score: number; reasons: string[] } | null = null;
  for (const c of candidates) {
    const s = similarity(of, c, options);
    if (!best || s.score > best.score) best = { candidate: c, ...s };
  }
  return best;
}
