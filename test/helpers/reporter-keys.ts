import { toBase64 } from "../../src/lib/crypto";
import { REPORTER_JWS_TYPE, reporterKeyThumbprint } from "../../src/lib/reporter-signature";
import { api } from "./api";
import { nextIp } from "./reporter";

// A reporter's key as a script or a browser keeps it, and the signature it sends (the rule in
// docs/researchers.md), made with WebCrypto alone so the tests sign as a client would.

export interface ReporterKey {
  privateKey: CryptoKey;
  /** The public key as the signature's header carries it. */
  jwk: { crv: "Ed25519"; kty: "OKP"; x: string };
  /** Its RFC 7638 thumbprint: what X-Reporter-Key names. */
  thumbprint: string;
}

export async function newReporterKey(): Promise<ReporterKey> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const exported = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const jwk = { crv: "Ed25519", kty: "OKP", x: exported.x! } as const;
  return { privateKey: pair.privateKey, jwk, thumbprint: await reporterKeyThumbprint(jwk) };
}

/** The thumbprint of a key's public JWK (only crv, kty and x count). */
export const thumbprint = (jwk: { crv: string; kty: string; x: string }) => reporterKeyThumbprint(jwk);

const encoder = new TextEncoder();
const b64url = (bytes: Uint8Array) => toBase64(bytes, "base64url");

export interface SignOptions {
  key: ReporterKey;
  /** The brief's page path, `/b/<SHORTCODE>`. */
  aud: string;
  /** Seconds; now (the test's clock) by default. */
  iat?: number;
  /** Members to set (or, as undefined, to leave out) in the protected header: how a forgery is made. */
  header?: Record<string, unknown>;
}

/** The detached JWS over `payload`: `<b64url(protected)>..<b64url(signature)>`. */
export async function signDetached(payload: string | Uint8Array, o: SignOptions): Promise<string> {
  const bytes = typeof payload === "string" ? encoder.encode(payload) : payload;
  const header = {
    alg: "EdDSA",
    typ: REPORTER_JWS_TYPE,
    jwk: o.key.jwk,
    aud: o.aud,
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    ...o.header,
  };
  const protectedPart = b64url(encoder.encode(JSON.stringify(header)));
  const input = encoder.encode(`${protectedPart}.${b64url(bytes)}`);
  const signature = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, o.key.privateKey, input));
  return `${protectedPart}..${b64url(signature)}`;
}

/** The headers of an API submission signed over its exact body. */
export async function signSubmission(body: string | Uint8Array, o: SignOptions): Promise<Record<string, string>> {
  return { "X-Reporter-Key": o.key.thumbprint, "X-Reporter-Signature": await signDetached(body, o) };
}

/**
 * A report signed with `key` through the brief's public door (POST /v1/p/briefs/{code}/vulns), from an
 * address of its own: its id and shortcode. Another body each time, since the same body signed in the
 * same second is the same signature (a replay, 409).
 */
export async function signedVuln(shortcode: string, key: ReporterKey, attributes: Record<string, unknown> = {}) {
  const body = JSON.stringify({
    data: { type: "vuln", attributes: { title: `Signed report ${++signedCount}`, description: "Steps to reproduce", ...attributes } },
  });
  const res = await api("POST", `/v1/p/briefs/${shortcode}/vulns`, {
    rawBody: body,
    contentType: "application/json",
    headers: { "CF-Connecting-IP": nextIp(), ...(await signSubmission(body, { key, aud: `/b/${shortcode}` })) },
  });
  if (res.status !== 201) throw new Error(`signed report: ${res.status} ${res.text}`);
  return { id: res.body.data.id as string, shortcode: res.body.data.attributes.shortcode as string };
}
let signedCount = 0;
