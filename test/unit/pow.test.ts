import { createChallenge, solveChallenge, verifySolution } from "altcha-lib/v1";
import { describe, expect, it } from "vitest";
import { addressTag, checkSolution, issueChallenge, parsePowKeys, POW_VALIDITY_MS, powDifficulty } from "../../src/lib/pow";
import { KeyringError } from "../../src/lib/secret-box";
import { powHeader, solvePow } from "../helpers/pow";

const K1 = `k1:${btoa("1".repeat(32))}`;
const K2 = `k2:${btoa("2".repeat(32))}`;
const NOW = Date.UTC(2026, 10, 27, 10, 0, 0);
const CODE = "7KQ2M9XD";

const keys = parsePowKeys(K1);
const encode = (value: unknown) => btoa(JSON.stringify(value));

async function solved(options: { keys?: typeof keys; shortcode?: string; now?: number } = {}) {
  const challenge = await issueChallenge({
    keys: options.keys ?? keys,
    shortcode: options.shortcode ?? CODE,
    maxnumber: 2_000,
    now: options.now ?? NOW,
  });
  return { challenge, payload: powHeader(solvePow(challenge)) };
}

describe("issueChallenge and checkSolution", () => {
  it("issues an ALTCHA v1 challenge that altcha-lib's own solver solves and verifier accepts, and that checks once solved", async () => {
    const challenge = await issueChallenge({ keys, shortcode: CODE, maxnumber: 500, now: NOW });
    expect(challenge).toEqual({
      algorithm: "SHA-256",
      challenge: expect.stringMatching(/^[0-9a-f]{64}$/),
      maxnumber: 500,
      salt: expect.stringMatching(new RegExp(`^[0-9a-f]{24}\\?brief=${CODE}&expires=${Math.floor((NOW + POW_VALIDITY_MS) / 1000)}&$`)),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const found = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
    expect(found).not.toBeNull();
    expect(solvePow(challenge).number).toBe(found!.number);
    const payload = encode({ ...challenge, maxnumber: undefined, number: found!.number, took: found!.took });
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW + 1_000 })).toEqual({ ok: true, nonce: challenge.challenge });
    // Any ALTCHA v1 server holding the key's text accepts it too (its clock is the real one, so no expiry check).
    expect(await verifySolution(payload, keys[0]!.hmacKey, false)).toBe(true);
  });

  it("takes a challenge altcha-lib created with the key's text, with a known number", async () => {
    const challenge = await createChallenge({
      hmacKey: keys[0]!.hmacKey,
      number: 1234,
      expires: new Date(NOW + 60_000),
      params: { brief: CODE },
    });
    const payload = encode({ ...challenge, number: 1234 });
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW })).toEqual({ ok: true, nonce: challenge.challenge });
    expect(await checkSolution({ keys, payload: encode({ ...challenge, number: 1235 }), shortcode: CODE, now: NOW })).toEqual({
      ok: false,
      reason: "signature",
    });
  });

  it("expires 10 minutes after issue, against the injected now", async () => {
    const { payload } = await solved();
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW + POW_VALIDITY_MS - 1_000 })).toMatchObject({ ok: true });
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW + POW_VALIDITY_MS })).toEqual({ ok: false, reason: "expired" });
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW + 11 * 60_000 })).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a challenge without an expiry, though signed", async () => {
    const challenge = await createChallenge({ hmacKey: keys[0]!.hmacKey, number: 7, params: { brief: CODE } });
    expect(await checkSolution({ keys, payload: encode({ ...challenge, number: 7 }), shortcode: CODE, now: NOW })).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("refuses a solution of another brief's challenge", async () => {
    const { payload } = await solved({ shortcode: "AAAA2222" });
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW })).toEqual({ ok: false, reason: "brief" });
  });

  it("refuses a challenge another key signed, and keeps verifying the previous key after a rotation", async () => {
    const { payload } = await solved({ keys: parsePowKeys(K2) });
    expect(await checkSolution({ keys, payload, shortcode: CODE, now: NOW })).toEqual({ ok: false, reason: "signature" });
    const rotated = parsePowKeys(`${K2},${K1}`);
    expect(await checkSolution({ keys: rotated, payload, shortcode: CODE, now: NOW })).toMatchObject({ ok: true });
    const old = await solved();
    expect(await checkSolution({ keys: rotated, payload: old.payload, shortcode: CODE, now: NOW })).toMatchObject({ ok: true });
    const next = await issueChallenge({ keys: rotated, shortcode: CODE, maxnumber: 10, now: NOW });
    expect(await checkSolution({ keys, payload: powHeader(next), shortcode: CODE, now: NOW })).toEqual({ ok: false, reason: "signature" });
  });

  it("refuses what is not a solution, without throwing", async () => {
    const { challenge, payload } = await solved();
    const solution = JSON.parse(atob(payload));
    const cases: [string, string][] = [
      ["", "malformed"],
      ["not base64 !", "malformed"],
      [btoa("not json"), "malformed"],
      [encode(null), "malformed"],
      [encode([1, 2]), "malformed"],
      [encode({}), "malformed"],
      [encode({ ...solution, number: String(solution.number) }), "malformed"],
      [encode({ ...solution, number: -1 }), "malformed"],
      [encode({ ...solution, number: 1.5 }), "malformed"],
      [encode({ ...solution, challenge: challenge.challenge.toUpperCase() }), "malformed"],
      [encode({ ...solution, salt: `${challenge.salt}${"x".repeat(600)}` }), "malformed"],
      [encode({ ...solution, padding: "x".repeat(2_000) }), "malformed"],
      [encode({ ...solution, algorithm: "SHA-1" }), "algorithm"],
      [encode({ ...solution, signature: "0".repeat(64) }), "signature"],
      [encode({ ...solution, salt: challenge.salt.replace(CODE, "AAAA2222") }), "signature"],
      [encode({ ...solution, salt: challenge.salt.replace(/expires=\d+/, "expires=9999999999") }), "signature"],
    ];
    for (const [bad, reason] of cases) {
      expect(await checkSolution({ keys, payload: bad, shortcode: CODE, now: NOW }), bad.slice(0, 60)).toEqual({ ok: false, reason });
    }
  });
});

describe("powDifficulty", () => {
  it("multiplies by 10 for each expected hour the brief took (up to 100) and for a busy address, capped at 5M", () => {
    const table: [number, number, number, number][] = [
      // briefHour, expectedHourly, addressHour, maxnumber
      [0, 10, 0, 50_000],
      [9, 10, 2, 50_000],
      [10, 10, 0, 500_000],
      [19, 10, 0, 500_000],
      [20, 10, 0, 5_000_000],
      [2_000, 10, 0, 5_000_000],
      [0, 10, 3, 500_000],
      [10, 10, 3, 5_000_000],
      [20, 10, 3, 5_000_000],
      [5, 1, 0, 5_000_000],
      [999, 1_000, 0, 50_000],
      [1, 0, 0, 500_000],
    ];
    for (const [briefHour, expectedHourly, addressHour, maxnumber] of table) {
      expect(powDifficulty({ briefHour, expectedHourly, addressHour }), `${briefHour}/${expectedHourly}/${addressHour}`).toBe(maxnumber);
    }
  });
});

describe("addressTag and the keyring", () => {
  it("tags an address with 32 hex that depend on the address and the first key only", async () => {
    const tag = await addressTag(keys, "203.0.113.7");
    expect(tag).toMatch(/^[0-9a-f]{32}$/);
    expect(await addressTag(keys, "203.0.113.7")).toBe(tag);
    expect(await addressTag(keys, "203.0.113.8")).not.toBe(tag);
    expect(await addressTag(parsePowKeys(`${K1},${K2}`), "203.0.113.7")).toBe(tag);
    expect(await addressTag(parsePowKeys(K2), "203.0.113.7")).not.toBe(tag);
  });

  it("names POW_HMAC_KEY when it is missing or malformed", () => {
    for (const raw of [undefined, "", "nokey", `k1:${btoa("short")}`, `${K1},${K1}`]) {
      expect(() => parsePowKeys(raw)).toThrow(KeyringError);
      expect(() => parsePowKeys(raw)).toThrow(/POW_HMAC_KEY/);
    }
  });
});
