import { createHash } from "node:crypto";

// Solving a proof-of-work challenge in a test, the way a page would but fast: node:crypto's
// synchronous SHA-256 does 500k hashes in about half a second, where altcha-lib's solveChallenge
// (one awaited subtle.digest a try) takes seconds for 25k. Works in Node and in workerd (the
// Workers runtime serves node:crypto's createHash).

/** What GET /v1/p/briefs/{shortcode}/challenge answers. */
export interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

/** The ALTCHA v1 solution of `challenge`: the JSON the page base64-encodes into its `pow` field. */
export function solvePow(challenge: Challenge): { algorithm: string; challenge: string; number: number; salt: string; signature: string } {
  for (let number = 0; number <= challenge.maxnumber; number++) {
    if (
      createHash("sha256")
        .update(challenge.salt + number)
        .digest("hex") === challenge.challenge
    ) {
      return {
        algorithm: challenge.algorithm,
        challenge: challenge.challenge,
        number,
        salt: challenge.salt,
        signature: challenge.signature,
      };
    }
  }
  throw new Error(`no number up to ${challenge.maxnumber} solves challenge ${challenge.challenge}`);
}

/** A solution as X-Pow-Solution (or the form's `pow` field) carries it: base64 of its JSON. */
export function powHeader(solution: ReturnType<typeof solvePow> | Challenge): string {
  const s = "number" in solution ? solution : solvePow(solution);
  return btoa(JSON.stringify(s));
}
