const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `vdp_` and 43 base62 characters (~256 bits). Rejection sampling keeps every character equally likely. */
export function generateApiKey(): string {
  let out = "vdp_";
  while (out.length < 4 + 43) {
    for (const b of crypto.getRandomValues(new Uint8Array(64))) {
      if (b < 248 && out.length < 4 + 43) out += BASE62[b % 62];
    }
  }
  return out;
}

export const API_KEY_PATTERN = /^vdp_[0-9A-Za-z]{40,}$/;

export async function sha256Hex(input: string | ArrayBuffer | Uint8Array): Promise<string> {
  const data = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const digest = await crypto.subtle.digest("SHA-256", data);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
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
