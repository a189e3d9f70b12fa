import { toBase64 } from "./crypto";
import { KeyringError } from "./secret-box";

// What the platform signs for others to check (the reporter's receipt): compact JWS (RFC 7515) with
// EdDSA over Ed25519 (RFC 8037), signed by WebCrypto. The keys come from a Worker secret as private
// JWKs, each with a `kid`; the first signs, and every one's public half is published, so what an older
// key signed still verifies after a rotation.

export const SIGNING_KEY_FORMAT =
  'an Ed25519 private JWK with a "kid" ({"kid":"k1","kty":"OKP","crv":"Ed25519","x":"...","d":"..."}), or a JSON array of them, newest first';

/** An Ed25519 private key as a JWK, with its key id. */
export interface SigningJwk {
  kid: string;
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d: string;
}

/** The public half of a signing key, as a JWKS publishes it. */
export interface PublicJwk {
  kid: string;
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  alg: "EdDSA";
  use: "sig";
}

const BASE64URL = /^[A-Za-z0-9_-]{43}$/;
/** A key id: what a JWS header names, so letters, digits and . _ : - only. */
export const KID_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

/** The keys `raw` holds, newest first; throws KeyringError naming `name` and the form expected. */
export function parseSigningKeys(raw: string | undefined, name: string): SigningJwk[] {
  if (!raw?.trim()) throw new KeyringError(`${name} is not set. Expected ${SIGNING_KEY_FORMAT}.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new KeyringError(`${name} is not JSON. Expected ${SIGNING_KEY_FORMAT}.`);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) throw new KeyringError(`${name} holds no key. Expected ${SIGNING_KEY_FORMAT}.`);
  const seen = new Set<string>();
  return list.map((k: Partial<SigningJwk> | null, i) => {
    const at = `${name}: key ${i + 1}`;
    if (!k || typeof k !== "object" || k.kty !== "OKP" || k.crv !== "Ed25519") throw new KeyringError(`${at} is not an Ed25519 JWK.`);
    if (typeof k.kid !== "string" || !k.kid.trim()) throw new KeyringError(`${at} has no "kid".`);
    if (!KID_PATTERN.test(k.kid)) throw new KeyringError(`${at}: its "kid" takes 1 to 100 letters, digits, ".", "_", ":" or "-".`);
    if (typeof k.x !== "string" || !BASE64URL.test(k.x) || typeof k.d !== "string" || !BASE64URL.test(k.d)) {
      throw new KeyringError(`${at} ("${k.kid}") needs "x" and "d", each 32 bytes in base64url.`);
    }
    if (seen.has(k.kid)) throw new KeyringError(`${name}: key id "${k.kid}" appears twice.`);
    seen.add(k.kid);
    return { kid: k.kid, kty: "OKP", crv: "Ed25519", x: k.x, d: k.d };
  });
}

/** Every key's public half, for `/.well-known/vdp-keys.json`. */
export const publicJwks = (keys: SigningJwk[]): { keys: PublicJwk[] } => ({
  keys: keys.map(({ kid, kty, crv, x }) => ({ kid, kty, crv, x, alg: "EdDSA", use: "sig" })),
});

const encoder = new TextEncoder();
const part = (value: unknown) => toBase64(encoder.encode(JSON.stringify(value)), "base64url");

/** `payload` as a compact JWS of type `typ`, signed by `key` (header: alg EdDSA, typ, kid). */
export async function signCompact(payload: unknown, typ: string, key: SigningJwk): Promise<string> {
  const privateKey = await crypto.subtle.importKey("jwk", { ...key }, { name: "Ed25519" }, false, ["sign"]);
  const input = `${part({ alg: "EdDSA", typ, kid: key.kid })}.${part(payload)}`;
  const signature = await crypto.subtle.sign({ name: "Ed25519" }, privateKey, encoder.encode(input));
  return `${input}.${toBase64(new Uint8Array(signature), "base64url")}`;
}
