import { env } from "cloudflare:workers";
import { normalizeVulnShortcode } from "../lib/ids";
import { loadKeyring, parseKeyring, seal, unseal } from "../lib/secret-box";

// What e-mails carry that someone may act on: a contact's confirmation link, a member's invitation
// link, a reporter's unsubscribe link and reply address. Each carries a MAC under EMAIL_LINK_KEY, so nobody can make one for a
// contact or a report they were not sent, and none needs a row of its own. The keys rotate like the
// webhook secrets' keyring: the first makes, every one listed checks. The MAC key is derived from each
// configured key (HKDF), never the key itself, which also seals the receipt's link in the outbox.

const SETTING = "EMAIL_LINK_KEY";
/** Bytes of HMAC-SHA256 kept: 120 bits, 24 characters of base32. */
const MAC_BYTES = 15;

type Purpose = "confirm" | "invite" | "unsubscribe" | "reply";

const macKeys = new Map<string, Promise<CryptoKey[]>>();

function keysFor(raw: string | undefined): Promise<CryptoKey[]> {
  const cached = raw === undefined ? undefined : macKeys.get(raw);
  if (cached) return cached;
  const loading = Promise.all(
    parseKeyring(raw, SETTING).map(async ({ key }) => {
      const base = await crypto.subtle.importKey("raw", key, "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("vdp e-mail link mac") },
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      );
    }),
  );
  if (macKeys.size >= 8) macKeys.clear();
  macKeys.set(raw!, loading);
  loading.catch(() => macKeys.delete(raw!));
  return loading;
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** RFC 4648 base32, lower case, unpadded: safe in a URL path and in an e-mail address's local part. */
function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

async function macWith(key: CryptoKey, purpose: Purpose, subject: string): Promise<string> {
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${purpose}\n${subject}`));
  return base32(new Uint8Array(sig).slice(0, MAC_BYTES));
}

/** The MAC of `subject` for `purpose`, under the first key. */
export async function mac(purpose: Purpose, subject: string, raw = env.EMAIL_LINK_KEY): Promise<string> {
  return macWith((await keysFor(raw))[0]!, purpose, subject);
}

/** Whether `given` is the MAC of `subject` for `purpose` under any configured key (compared in constant time). */
export async function macMatches(purpose: Purpose, subject: string, given: string, raw = env.EMAIL_LINK_KEY): Promise<boolean> {
  const encoder = new TextEncoder();
  for (const key of await keysFor(raw)) {
    const expected = encoder.encode(await macWith(key, purpose, subject));
    const actual = encoder.encode(given);
    if (expected.byteLength === actual.byteLength && crypto.subtle.timingSafeEqual(expected, actual)) return true;
  }
  return false;
}

// A link to an address (a contact's confirmation, a member's invitation) covers the address it was
// sent to: changing the address voids the old link.
const addressSubject = (id: string, email: string) => `${id}\n${email.toLowerCase()}`;
type AddressPurpose = Extract<Purpose, "confirm" | "invite">;

/** The token of a link sent to the address of a record (a contact, a member): `<record id>.<mac>`. */
export async function addressToken(purpose: AddressPurpose, id: string, email: string): Promise<string> {
  return `${id}.${await mac(purpose, addressSubject(id, email))}`;
}

/** The record an address link's token names, or null if it cannot be one. Check it with addressMatches. */
export function recordOfToken(token: string): { id: string; given: string } | null {
  const m = /^([0-9a-f-]{36})\.([a-z2-7]{24})$/.exec(token);
  return m ? { id: m[1]!, given: m[2]! } : null;
}

/** Whether `given` is the MAC of a link for `purpose` sent to `email` for the record `id`. */
export const addressMatches = (purpose: AddressPurpose, id: string, email: string, given: string) =>
  macMatches(purpose, addressSubject(id, email), given);

/** The token of a report's unsubscribe link: `<vuln id>.<mac>`. */
export async function unsubscribeToken(vulnId: string): Promise<string> {
  return `${vulnId}.${await mac("unsubscribe", vulnId)}`;
}

/** The report an unsubscribe token stands for, once its MAC is checked; null otherwise. */
export async function vulnOfUnsubscribeToken(token: string): Promise<string | null> {
  const m = /^([0-9a-f-]{36})\.([a-z2-7]{24})$/.exec(token);
  if (!m || !(await macMatches("unsubscribe", m[1]!, m[2]!))) return null;
  return m[1]!;
}

/**
 * The address a reporter answers a notice at: `r+<report shortcode>.<mac>@<INBOUND_EMAIL_DOMAIN>`, in
 * lower case (mail systems may fold it). The MAC covers the report's id, so the shortcode alone does not
 * make an address.
 */
export async function replyAddress(vulnId: string, shortcode: string, domain = env.INBOUND_EMAIL_DOMAIN): Promise<string> {
  return `r+${shortcode.toLowerCase()}.${await mac("reply", vulnId)}@${domain.toLowerCase()}`;
}

/** What a reply address says: the report's shortcode and the MAC to check (against its id), or null. */
export function parseReplyAddress(address: string, domain = env.INBOUND_EMAIL_DOMAIN): { shortcode: string; given: string } | null {
  const m = /^r\+([0-9a-z-]{14})\.([a-z2-7]{24})@(.+)$/.exec(address.trim().toLowerCase());
  if (!m || m[3] !== domain.toLowerCase()) return null;
  const shortcode = normalizeVulnShortcode(m[1]!);
  return shortcode ? { shortcode, given: m[2]! } : null;
}

export const replyMatches = (vulnId: string, given: string) => macMatches("reply", vulnId, given);

// The receipt's link holds the reporter's token, which is otherwise never stored: it waits in the
// outbox sealed, opens only for that e-mail's row, and is cleared once sent.
const linkContext = (notificationId: string) => `notifications/${notificationId}`;

export async function sealLink(notificationId: string, link: string): Promise<string> {
  return seal(await loadKeyring(env.EMAIL_LINK_KEY, SETTING), link, linkContext(notificationId));
}

export async function openLink(notificationId: string, sealed: string): Promise<string> {
  return unseal(await loadKeyring(env.EMAIL_LINK_KEY, SETTING), sealed, linkContext(notificationId));
}
