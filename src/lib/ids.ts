// Imported by the scripts Node runs directly (operator-key, seed), which resolve no extensionless
// import: this file imports nothing.

// Workers freeze the clock between I/O, so many ids share a millisecond. RFC 9562 method 1: the 12
// rand_a bits count within a millisecond (from a random start), so ids made later sort later and
// lists ordered by (created_at, id) follow creation order.
let lastMs = 0;
let counter = 0;

/**
 * A time-ordered UUID (version 7), monotonic within an isolate: 48 bits of milliseconds, the version,
 * 12 bits of counter, then the variant and 62 random bits, taken from crypto.randomUUID (whose last
 * 17 characters are exactly that) rather than built byte by byte (a delivery makes two of these, and
 * the BigInt arithmetic was a tenth of the consumer's time).
 */
export function uuidv7(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // A random start in the lower half leaves room to count up within the millisecond.
    counter = Math.floor(Math.random() * 0x800);
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const ms = lastMs.toString(16).padStart(12, "0");
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${counter.toString(16).padStart(3, "0")}-${crypto.randomUUID().slice(19)}`;
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

/** A slug: lowercase letters, digits and inner hyphens, 1 to 64 characters. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export const SHORTCODE_PATTERN = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

/**
 * A brief's shortcode as a person may type it after hearing it: any case, with Crockford's
 * look-alikes (I and L for 1, O for 0). Null when it cannot be a shortcode at all, so the caller
 * can answer 404 without asking the database.
 */
export function normalizeShortcode(input: string): string | null {
  const code = asHeard(input);
  return SHORTCODE_PATTERN.test(code) ? code : null;
}

export const VULN_SHORTCODE_PATTERN = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

// What a person may type for a code, as the normalizers below read it: any case, every letter but U
// (I, L and O are heard as 1, 1 and 0). Anything else names no code at all. For the document's patterns.
const HEARD = "[0-9A-TV-Za-tv-z]{4}";
export const SHORTCODE_AS_HEARD = `^${HEARD}-${HEARD}$`;
export const VULN_SHORTCODE_AS_HEARD = `^${HEARD}-${HEARD}-${HEARD}$`;
/** A UUID in any case (ids are written in lowercase). */
export const UUID_PATTERN = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$";
const UUID = new RegExp(UUID_PATTERN);

/** A UUID as given, in lower case (how ids are stored), or null for anything that is not one. */
export function normalizeUuid(input: string): string | null {
  return UUID.test(input) ? input.toLowerCase() : null;
}

/** A vuln's shortcode as a researcher quotes it, read the same way as a brief's; null when it cannot be one. */
export function normalizeVulnShortcode(input: string): string | null {
  const code = asHeard(input);
  return VULN_SHORTCODE_PATTERN.test(code) ? code : null;
}

const asHeard = (input: string) => input.toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0");

/** A vuln's code, e.g. `7KQ2-M9XD-4TRA`: 60 bits, still short enough to read aloud on a call. */
export function vulnShortcode(): string {
  return `${shortcode()}-${shortcode().slice(0, 4)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
