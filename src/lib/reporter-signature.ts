import type { AiUse, Evidence } from "../db/schema";
import { canonicalJson } from "./canonical-json";
import { fromBase64, sha256Hex, toBase64 } from "./crypto";
import { LIMITS } from "./limits";
import { keptEvidence } from "./submission-requirements";

// A pseudonymous reporter key: a browser (or a script) keeps an Ed25519 key and signs what it submits,
// so an organization can see that reports came from one key, and how that key's earlier reports ended,
// without learning who holds it. The signature is a JWS with a detached payload (RFC 7515 appendix F):
//   <b64url(protected)>..<b64url(signature)>, signed over ASCII(b64url(protected) + "." + b64url(payload)),
//   protected = {"alg":"EdDSA","typ":"vdp-report+jws","jwk":{"crv":"Ed25519","kty":"OKP","x":…},"aud":"/b/<CODE>","iat":<s>}.
// The key travels in the header, so nothing is registered first; the key id a request names is the
// RFC 7638 thumbprint of that public key, which the header's key must match. WebCrypto only: this runs
// in the Worker, and the tests hold it to an independent JOSE library (jose).

/** The protected header's `typ`: a signature made for another purpose is never taken for a report's. */
export const REPORTER_JWS_TYPE = "vdp-report+jws";

// RFC 8037 names the algorithm EdDSA; RFC 9864 adds the fully specified Ed25519. Either means the same here.
const ALGORITHMS = new Set(["EdDSA", "Ed25519"]);
const B64URL = /^[A-Za-z0-9_-]+$/;
/** A reporter key's RFC 7638 thumbprint: base64url of a SHA-256 (and the 32-byte key's x has the same length). */
export const THUMBPRINT_PATTERN = /^[A-Za-z0-9_-]{43}$/;
// A conforming signature is about 300 characters (a Chromium key's extra members included); anything
// far longer is refused before it is decoded.

const encoder = new TextEncoder();

/** The members of an Ed25519 public JWK that identify it. */
export interface ReporterJwk {
  crv: string;
  kty: string;
  x: string;
}

/**
 * RFC 7638 thumbprint: b64url(SHA-256) of the required members only, in order, with no white space, so
 * the extra members a browser exports (`alg`, `ext`, `key_ops`) never change a key's id.
 */
export async function reporterKeyThumbprint(jwk: ReporterJwk): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(canonicalJson({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })));
  return toBase64(new Uint8Array(digest), "base64url");
}

export type SignatureCheck = { ok: true; thumbprint: string; signatureSha256: string } | { ok: false; detail: string };

export interface SignedSubmission {
  /** The key's thumbprint as the request names it (`X-Reporter-Key`, or the form's `reporter_key`). */
  keyHeader: string;
  /** The detached JWS (`X-Reporter-Signature`, or the form's `reporter_signature`). */
  signatureHeader: string;
  /** What was signed: the request body's exact bytes, or the page payload's (pagePayloadBytes). */
  payload: Uint8Array;
  /** The brief's page path, `/b/<SHORTCODE>`: a signature made for one brief is no good for another. */
  audience: string;
  /** Epoch milliseconds. */
  now: number;
}

const refuse = (detail: string): SignatureCheck => ({ ok: false, detail });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks a reporter's signature over `payload`. Every refusal says what is wrong in words a client can
 * act on; `signatureSha256` (hex) identifies the signature so a replay can be refused by a UNIQUE index.
 */
export async function verifyReporterSignature(s: SignedSubmission): Promise<SignatureCheck> {
  if (!THUMBPRINT_PATTERN.test(s.keyHeader))
    return refuse("The reporter key must be its key's RFC 7638 thumbprint: 43 base64url characters.");
  if (s.signatureHeader.length > LIMITS.reporterSignatureLength)
    return refuse(`The reporter signature is over ${LIMITS.reporterSignatureLength} characters.`);
  const parts = s.signatureHeader.split(".");
  if (parts.length !== 3 || parts[1] !== "" || !B64URL.test(parts[0]!) || !B64URL.test(parts[2]!)) {
    return refuse("The reporter signature must be a JWS with a detached payload: <base64url header>..<base64url signature>.");
  }
  const [protectedPart, , signaturePart] = parts as [string, string, string];
  const headerBytes = fromBase64(protectedPart);
  let header: unknown;
  try {
    header = headerBytes && JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(headerBytes));
  } catch {
    header = undefined;
  }
  if (!isObject(header)) return refuse("The reporter signature's header is not a JSON object in base64url.");
  if (typeof header.alg !== "string" || !ALGORITHMS.has(header.alg)) return refuse('The reporter signature\'s "alg" must be "EdDSA".');
  if (header.typ !== REPORTER_JWS_TYPE) return refuse(`The reporter signature's "typ" must be "${REPORTER_JWS_TYPE}".`);
  // Nothing here understands an extension (RFC 7515 §4.1.11), nor an unencoded payload (RFC 7797).
  if (header.crit !== undefined || (header.b64 !== undefined && header.b64 !== true)) {
    return refuse('The reporter signature\'s header must not use "crit" or "b64".');
  }
  const jwk = header.jwk;
  if (!isObject(jwk) || jwk.kty !== "OKP" || jwk.crv !== "Ed25519") {
    return refuse('The reporter signature\'s "jwk" must be an Ed25519 public key ({"crv":"Ed25519","kty":"OKP","x":"…"}).');
  }
  if (jwk.d !== undefined) return refuse('The reporter signature\'s "jwk" holds a private key ("d"): send only the public key.');
  if (typeof jwk.x !== "string" || !THUMBPRINT_PATTERN.test(jwk.x) || fromBase64(jwk.x)?.length !== 32) {
    return refuse('The reporter signature\'s "jwk" needs "x": 32 bytes in base64url (43 characters).');
  }
  const key = { crv: "Ed25519", kty: "OKP", x: jwk.x };
  const thumbprint = await reporterKeyThumbprint(key);
  if (thumbprint !== s.keyHeader) return refuse("The reporter key is not the thumbprint of the key in the reporter signature.");
  if (header.aud !== s.audience) return refuse(`The reporter signature's "aud" must be "${s.audience}", this brief's page.`);
  const skew = LIMITS.reporterSignatureSkewSeconds;
  if (typeof header.iat !== "number" || !Number.isFinite(header.iat))
    return refuse('The reporter signature needs "iat" (seconds since 1970).');
  if (Math.abs(header.iat * 1000 - s.now) > skew * 1000) {
    return refuse(`The reporter signature's "iat" must be within ${skew} seconds of the server's clock.`);
  }
  const signature = fromBase64(signaturePart);
  if (signature?.length !== 64) return refuse("The reporter signature's signature must be 64 bytes in base64url.");
  let publicKey: CryptoKey;
  try {
    publicKey = await crypto.subtle.importKey("jwk", key, { name: "Ed25519" }, false, ["verify"]);
  } catch {
    return refuse('The reporter signature\'s "jwk" is not a usable Ed25519 public key.');
  }
  const input = encoder.encode(`${protectedPart}.${toBase64(s.payload, "base64url")}`);
  let good = false;
  try {
    good = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, signature, input);
  } catch {
    good = false;
  }
  if (!good) return refuse("The reporter signature does not match what was sent (for the API, the exact request body).");
  return { ok: true, thumbprint, signatureSha256: await sha256Hex(signature) };
}

/** What a brief's page form holds, as its reader has it (text as typed). */
export interface PageFields {
  title: string;
  description: string;
  contact_email: string | null;
  /** The form's domain lines, in order, as the form reader splits them. */
  domains: readonly string[];
  evidence?: Evidence;
  ai_use?: AiUse | null;
  /** Each chosen file's SHA-256, in the form's order. */
  files: readonly string[];
}

/** The object a page signs: one definition for the page script's rule (docs/researchers.md) and the server's. */
export interface PagePayload {
  title: string;
  description: string;
  contact_email: string | null;
  domains: string[];
  evidence: Evidence;
  ai_use: AiUse | null;
  files: string[];
}

const lf = (text: string) => text.replaceAll("\r\n", "\n");

/**
 * The page's signed payload: text with CRLF as LF; the contact trimmed (null when blank); the domains
 * trimmed, blank ones dropped, in order; only the evidence fields filled; the files' hashes in lowercase.
 * The page script builds the same object from the same form, so its signature checks against the
 * values the server reads.
 */
export function pagePayload(f: PageFields): PagePayload {
  const contact = f.contact_email === null ? "" : lf(f.contact_email).trim();
  return {
    title: lf(f.title),
    description: lf(f.description),
    contact_email: contact === "" ? null : contact,
    domains: f.domains.map((d) => d.trim()).filter((d) => d !== ""),
    evidence: keptEvidence(f.evidence),
    ai_use: f.ai_use ? { level: f.ai_use.level, tools: lf(f.ai_use.tools), verified_by_reporter: f.ai_use.verified_by_reporter } : null,
    files: f.files.map((h) => h.toLowerCase()),
  };
}

/** The bytes a page signs: RFC 8785 canonical JSON of pagePayload, in UTF-8. */
export const pagePayloadBytes = (f: PageFields): Uint8Array => encoder.encode(canonicalJson(pagePayload(f)));
