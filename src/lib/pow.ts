import { createChallenge, extractParams, verifySolution } from "altcha-lib/v1";
import { toBase64, toHex } from "./crypto";
import { LIMITS } from "./limits";
import { parseKeyring } from "./secret-box";

// The proof of work a public submission may carry (ALTCHA v1, SHA-256): the server signs a challenge
// (hash of a random salt and a secret number up to `maxnumber`), the page finds the number, and the
// submission sends it back. Nothing is stored when a challenge is issued: the salt carries the brief and
// the expiry, the HMAC covers them, and the one-use rule is the database's (gate_marks.pow_nonce).
// A solution that does not check out never refuses a report; it only leaves it unverified.

/** One HMAC key of POW_HMAC_KEY. altcha-lib takes its key as text: the key's base64 is that text. */
export interface PowKey {
  readonly kid: string;
  readonly hmacKey: string;
}

/** What the page is given to solve, exactly as an ALTCHA v1 client reads it. */
export interface PowChallenge {
  algorithm: "SHA-256";
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

/** Why a solution does not count, in the order they are checked. */
export type PowRefusal = "malformed" | "algorithm" | "signature" | "expired" | "brief";
export type PowCheck = { ok: true; nonce: string } | { ok: false; reason: PowRefusal };

/** How long a challenge may be solved and sent: longer than the slowest solve, short enough to be useless stockpiled. */
export const POW_VALIDITY_MS = LIMITS.powChallengeMinutes * 60_000;

const HEX64 = /^[0-9a-f]{64}$/;
const MAX_SALT_LENGTH = 500;

const parsed = new Map<string, PowKey[]>();

/** The keys of POW_HMAC_KEY (`kid:base64[,kid:base64]`, newest first: the first signs, all verify). Throws KeyringError. */
export function parsePowKeys(raw: string | undefined): PowKey[] {
  const cached = raw === undefined ? undefined : parsed.get(raw);
  if (cached) return cached;
  const keys = parseKeyring(raw, "POW_HMAC_KEY").map(({ kid, key }) => ({ kid, hmacKey: toBase64(key) }));
  if (parsed.size >= 8) parsed.clear();
  parsed.set(raw!, keys);
  return keys;
}

/**
 * How hard the next challenge is: 10 times harder for each `expectedHourly` the brief already took in
 * the last hour (up to 100 times), and 10 times more for an address that sent powAddressBurst or more,
 * within LIMITS' ceiling (a few seconds on a phone).
 */
export function powDifficulty({
  briefHour,
  expectedHourly,
  addressHour,
}: {
  briefHour: number;
  expectedHourly: number;
  addressHour: number;
}): number {
  const steps = Math.min(2, Math.floor(briefHour / Math.max(1, expectedHourly))) + (addressHour >= LIMITS.powAddressBurst ? 1 : 0);
  return Math.min(LIMITS.powMaxMaxnumber, LIMITS.powBaseMaxnumber * 10 ** steps);
}

/** A challenge for `shortcode`, signed by the first key, solvable until `now` + 10 minutes. */
export async function issueChallenge({
  keys,
  shortcode,
  maxnumber,
  now,
}: {
  keys: readonly PowKey[];
  shortcode: string;
  maxnumber: number;
  now: number;
}): Promise<PowChallenge> {
  const c = await createChallenge({
    algorithm: "SHA-256",
    hmacKey: keys[0]!.hmacKey,
    maxnumber,
    expires: new Date(now + POW_VALIDITY_MS),
    params: { brief: shortcode },
  });
  return { algorithm: "SHA-256", challenge: c.challenge, maxnumber, salt: c.salt, signature: c.signature };
}

interface Solution {
  algorithm: string;
  challenge: string;
  number: number;
  salt: string;
  signature: string;
}

function decode(payload: string): Solution | null {
  if (payload.length > LIMITS.powSolutionLength) return null;
  let value: unknown;
  try {
    value = JSON.parse(atob(payload.trim()));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const s = value as Record<string, unknown>;
  const ok =
    typeof s.algorithm === "string" &&
    typeof s.challenge === "string" &&
    HEX64.test(s.challenge) &&
    typeof s.signature === "string" &&
    HEX64.test(s.signature) &&
    typeof s.salt === "string" &&
    s.salt.length <= MAX_SALT_LENGTH &&
    Number.isSafeInteger(s.number) &&
    (s.number as number) >= 0;
  return ok
    ? {
        algorithm: s.algorithm as string,
        challenge: s.challenge as string,
        number: s.number as number,
        salt: s.salt as string,
        signature: s.signature as string,
      }
    : null;
}

/**
 * Whether `payload` (base64 JSON `{algorithm, challenge, number, salt, signature, took?}`) solves a
 * challenge one of `keys` signed for this brief and not yet expired at `now`. The nonce is the solved
 * challenge's hash: what makes a solution single-use when stored under a unique index.
 */
export async function checkSolution({
  keys,
  payload,
  shortcode,
  now,
}: {
  keys: readonly PowKey[];
  payload: string;
  shortcode: string;
  now: number;
}): Promise<PowCheck> {
  const solution = decode(payload);
  if (!solution) return { ok: false, reason: "malformed" };
  if (solution.algorithm !== "SHA-256") return { ok: false, reason: "algorithm" };
  let signed = false;
  for (const key of keys) {
    // Expiry is checked below against `now`, not against altcha-lib's own clock.
    if (await verifySolution({ ...solution, algorithm: "SHA-256" }, key.hmacKey, false)) {
      signed = true;
      break;
    }
  }
  if (!signed) return { ok: false, reason: "signature" };
  const params = extractParams({ ...solution, algorithm: "SHA-256" });
  const expires = /^\d{1,12}$/.test(params.expires ?? "") ? Number(params.expires) * 1000 : 0;
  if (!(expires > now)) return { ok: false, reason: "expired" };
  if (params.brief !== shortcode) return { ok: false, reason: "brief" };
  return { ok: true, nonce: solution.challenge };
}

const salts = new Map<string, Promise<Uint8Array>>();

/**
 * A submitter's address as a tag that lives with the gate's marks (2 hours): the first 32 hex of
 * SHA-256(salt ‖ ip), with salt = HMAC(first key, "address"), so the tag says nothing about the
 * address to anyone without the key, and changes when the key rotates.
 */
export async function addressTag(keys: readonly PowKey[], ip: string): Promise<string> {
  const first = keys[0]!.hmacKey;
  let salt = salts.get(first);
  if (!salt) {
    salt = (async () => {
      const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(first), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("address")));
    })();
    if (salts.size >= 8) salts.clear();
    salts.set(first, salt);
    salt.catch(() => salts.delete(first));
  }
  const address = new TextEncoder().encode(ip);
  const bytes = new Uint8Array((await salt).length + address.length);
  bytes.set(await salt);
  bytes.set(address, (await salt).length);
  return toHex(await crypto.subtle.digest("SHA-256", bytes)).slice(0, 32);
}
