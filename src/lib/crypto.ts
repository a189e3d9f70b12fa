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
