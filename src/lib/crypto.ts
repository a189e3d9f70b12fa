const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * `prefix` and 43 base62 characters (~256 bits). Rejection sampling keeps every character equally
 * likely: bytes 248..255 would favour the first eight characters, so they are drawn again.
 */
export function generateToken(prefix: string): string {
  let out = prefix;
  const length = prefix.length + 43;
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(64))) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/** An organization's or operator's API key: `vdp_` and 43 base62 characters. */
export const generateApiKey = () => generateToken("vdp_");

/** A reporter's follow-up token: `vdpr_` and 43 base62 characters. It acts on one report only. */
export const generateReporterToken = () => generateToken("vdpr_");

export const API_KEY_PATTERN = /^vdp_[0-9A-Za-z]{40,}$/;
export const REPORTER_TOKEN_PATTERN = /^vdpr_[0-9A-Za-z]{40,}$/;

/** Bytes as lowercase hex, two digits a byte. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(input: string | ArrayBuffer | Uint8Array): Promise<string> {
  const data = typeof input === "string" ? new TextEncoder().encode(input) : input;
  return toHex(await crypto.subtle.digest("SHA-256", data));
}

/** Standard base64 (with padding), or base64url (no padding) where the text goes into a dotted token. */
export function toBase64(bytes: Uint8Array, alphabet: "base64" | "base64url" = "base64"): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  const text = btoa(s);
  return alphabet === "base64" ? text : text.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Either alphabet, padding optional; null for anything else. Stricter than atob, which skips
 * whitespace and ignores the spare bits of the last character: here one text decodes to one value
 * and one value has one text, so a key or token that differs by a character never means the same.
 */
export function fromBase64(text: string): Uint8Array | null {
  if (!/^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/.test(text)) return null;
  if ((text.endsWith("=") && text.length % 4 !== 0) || text.replace(/=+$/, "").length % 4 === 1) return null;
  const standard = text.replaceAll("-", "+").replaceAll("_", "/").replace(/=+$/, "");
  const bytes = Uint8Array.from(atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
  return toBase64(bytes).replace(/=+$/, "") === standard ? bytes : null;
}

/** 256 random bits as base64url (43 characters): a session's cookie, a browser's sign-in cookie. */
export function randomSecret(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(32)), "base64url");
}

/** The form of randomSecret's output, checked before anything looks one up. */
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A signed-in browser's form token: HMAC-SHA-256 keyed by its session secret. Only the holder of the
 * session's cookie (and the page the Worker renders for it) knows it; the database keeps neither the
 * secret nor this, so a leaked database makes no form token. Pages put it in their forms and the
 * console's script sends it as X-CSRF-Token; another site can read neither.
 */
export async function formTokenOf(sessionSecret: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(sessionSecret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("vdp console form token"));
  return toBase64(new Uint8Array(mac), "base64url");
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}
