// Workers freeze the clock between I/O, so many ids share a millisecond. RFC 9562 method 1: the 12
// rand_a bits count within a millisecond (from a random start), so ids made later sort later and
// lists ordered by (created_at, id) follow creation order.
let lastMs = 0;
let counter = 0;

/** A time-ordered UUID (version 7), monotonic within an isolate. */
export function uuidv7(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = crypto.getRandomValues(new Uint16Array(1))[0]! & 0x7ff;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const ms = BigInt(lastMs);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Crockford's base32 without I, L, O and U: no two characters sound or look alike when read aloud.
const SHORTCODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A short public code, e.g. `7KQ2-M9XD`: 8 characters of a 32-letter alphabet (40 bits) so it is
 * unguessable enough to share and short enough to read aloud. 256 divides by 32, so there is no modulo bias.
 */
export function shortcode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const chars = Array.from(bytes, (b) => SHORTCODE_ALPHABET[b % 32]);
  return `${chars.slice(0, 4).join("")}-${chars.slice(4).join("")}`;
}

export const SHORTCODE_PATTERN = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

/**
 * A brief's shortcode as a person may type it after hearing it: any case, with Crockford's
 * look-alikes (I and L for 1, O for 0). Null when it cannot be a shortcode at all, so the caller
 * can answer 404 without asking the database.
 */
export function normalizeShortcode(input: string): string | null {
  const code = input.toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0");
  return SHORTCODE_PATTERN.test(code) ? code : null;
}

/** A vuln's code, e.g. `7KQ2-M9XD-4TRA`: 60 bits, still short enough to read aloud on a call. */
export function vulnShortcode(): string {
  return `${shortcode()}-${shortcode().slice(0, 4)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
