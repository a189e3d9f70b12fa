import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { parseSigningKeys, publicJwks, signCompact, type SigningJwk } from "../../src/lib/jws";

// What the platform signs is checked by an independent JOSE library (jose), never by our own code:
// each check is first seen to reject what it must.

async function newKey(kid: string): Promise<SigningJwk> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return parseSigningKeys(JSON.stringify({ kid, kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }), "TEST_KEY")[0]!;
}

const payload = {
  report: "7KQ2-M9XD-4TRA",
  received_at: "2026-11-27T10:00:00.000Z",
  deadlines: { acknowledge: "2026-11-30T10:00:00.000Z" },
};
const TYP = "vdp-receipt+jwt";
const decoder = new TextDecoder();

describe("compact JWS signed with EdDSA", () => {
  it("verifies with jose against the published keys, with its alg, typ and kid", async () => {
    const key = await newKey("k1");
    const jws = await signCompact(payload, TYP, key);
    const verified = await compactVerify(jws, createLocalJWKSet(publicJwks([key])));
    expect(JSON.parse(decoder.decode(verified.payload))).toEqual(payload);
    expect(verified.protectedHeader).toEqual({ alg: "EdDSA", typ: TYP, kid: "k1" });
  });

  it("fails to verify once any byte changed: the payload, the header or the signature", async () => {
    const key = await newKey("k1");
    const jws = await signCompact(payload, TYP, key);
    const keys = createLocalJWKSet(publicJwks([key]));
    const [header, body, signature] = jws.split(".") as [string, string, string];
    const flip = (part: string, at: number) => part.slice(0, at) + (part[at] === "A" ? "B" : "A") + part.slice(at + 1);
    for (const changed of [
      `${header}.${flip(body, 10)}.${signature}`,
      `${flip(header, 5)}.${body}.${signature}`,
      `${header}.${body}.${flip(signature, 20)}`,
    ]) {
      await expect(compactVerify(changed, keys)).rejects.toThrow();
    }
    // Nor with another key of the same id.
    const impostor = await newKey("k1");
    await expect(compactVerify(jws, createLocalJWKSet(publicJwks([impostor])))).rejects.toThrow();
  });

  it("after a rotation, signs with the newest key and still verifies what the older one signed", async () => {
    const [older, newer] = [await newKey("2026-01"), await newKey("2026-11")];
    const before = await signCompact(payload, TYP, older);
    const keys = parseSigningKeys(JSON.stringify([newer, older]), "TEST_KEY");
    const after = await signCompact(payload, TYP, keys[0]!);
    expect(decodeProtectedHeader(after).kid).toBe("2026-11");
    const published = createLocalJWKSet(publicJwks(keys));
    for (const jws of [before, after]) await expect(compactVerify(jws, published)).resolves.toBeTruthy();
    // Dropping the older key from the set is what would break old receipts.
    await expect(compactVerify(before, createLocalJWKSet(publicJwks([newer])))).rejects.toThrow();
  });

  it("publishes the public halves only", async () => {
    const jwks = publicJwks([await newKey("k1")]);
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
  });
});

describe("the signing key setting", () => {
  it("names the setting and what is wrong, for each way it can be wrong", async () => {
    const good = await newKey("k1");
    for (const [raw, message] of [
      [undefined, /TEST_KEY is not set/],
      ["  ", /TEST_KEY is not set/],
      ["{", /TEST_KEY is not JSON/],
      ["[]", /TEST_KEY holds no key/],
      [JSON.stringify({ ...good, crv: "P-256" }), /key 1 is not an Ed25519 JWK/],
      [JSON.stringify({ ...good, kid: "" }), /key 1 has no "kid"/],
      [JSON.stringify({ ...good, kid: "k 1" }), /key 1: its "kid" takes 1 to 100 letters/],
      [JSON.stringify({ ...good, d: undefined }), /key 1 \("k1"\) needs "x" and "d"/],
      [JSON.stringify([good, good]), /key id "k1" appears twice/],
    ] as const) {
      expect(() => parseSigningKeys(raw, "TEST_KEY")).toThrow(message);
    }
  });
});
