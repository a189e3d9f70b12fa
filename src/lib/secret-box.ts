import { fromBase64, toBase64 } from "./crypto";

// Secrets at rest: AES-256-GCM under a key from a Worker secret, so a copy of the database (a backup,
// an export, a leaked read) holds nothing that signs. A sealed value describes itself:
//
//   v1.<kid>.<base64url 12-byte IV>.<base64url ciphertext and 16-byte tag>
//
// The kid names the key that sealed it, so keys rotate: the configuration lists several, the first
// seals, all open. The additional authenticated data is the header (`v1.<kid>`) and a context the
// caller names (the record the value belongs to): a value copied to another record, or relabelled
// with another kid, does not open.

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,32}$/;

export const KEYRING_FORMAT =
  "kid:base64key[,kid:base64key...], newest first; each key 32 random bytes in base64 (openssl rand -base64 32)";

/** The keys of one configuration: `current` seals; every key opens what it sealed. */
export interface Keyring {
  readonly current: string;
  readonly keys: ReadonlyMap<string, CryptoKey>;
}

/** The configuration is missing or malformed: an operator's mistake, said plainly, never with key material. */
export class KeyringError extends Error {
  override name = "KeyringError";
}

/** A sealed value that does not open: malformed, sealed under a key not configured, or altered. */
export class UnsealError extends Error {
  override name = "UnsealError";
}

/** Checks a configuration and returns its raw keys, newest first. */
export function parseKeyring(raw: string | undefined, name: string): { kid: string; key: Uint8Array }[] {
  if (!raw?.trim()) throw new KeyringError(`${name} is not set. Expected ${KEYRING_FORMAT}.`);
  const entries = raw.split(",").map((entry, i) => {
    const at = entry.indexOf(":");
    const kid = entry.slice(0, at).trim();
    const key = fromBase64(entry.slice(at + 1).trim());
    if (at < 0 || !KID.test(kid))
      throw new KeyringError(
        `${name}: entry ${i + 1} does not start with a key id (1 to 32 letters, digits, _ or -) and a colon. Expected ${KEYRING_FORMAT}.`,
      );
    if (!key || key.length !== KEY_BYTES)
      throw new KeyringError(
        `${name}: key "${kid}" is not the base64 of ${KEY_BYTES} bytes (AES-256). Make one with openssl rand -base64 32.`,
      );
    return { kid, key };
  });
  const seen = new Set<string>();
  for (const { kid } of entries) {
    if (seen.has(kid)) throw new KeyringError(`${name}: key id "${kid}" appears twice.`);
    seen.add(kid);
  }
  return entries;
}

// Importing keys costs more than sealing with them: one import per configuration per isolate. A
// deployment has one configuration at a time, so a small cache keeps the few an isolate has seen.
const cache = new Map<string, Promise<Keyring>>();

/** The keyring for a configuration value, imported once per isolate. Throws KeyringError if malformed. */
export function loadKeyring(raw: string | undefined, name: string): Promise<Keyring> {
  const cached = raw === undefined ? undefined : cache.get(raw);
  if (cached) return cached;
  const entries = parseKeyring(raw, name);
  const loading = (async () => {
    const keys = new Map<string, CryptoKey>();
    for (const { kid, key } of entries) keys.set(kid, await crypto.subtle.importKey("raw", key, "AES-GCM", false, ["encrypt", "decrypt"]));
    return { current: entries[0]!.kid, keys };
  })();
  if (cache.size >= 8) cache.clear();
  cache.set(raw!, loading);
  loading.catch(() => cache.delete(raw!));
  return loading;
}

const additionalData = (header: string, context: string) => new TextEncoder().encode(`${header}|${context}`);

export async function seal(keyring: Keyring, plaintext: string, context: string): Promise<string> {
  const header = `${VERSION}.${keyring.current}`;
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: additionalData(header, context), tagLength: TAG_BYTES * 8 },
    keyring.keys.get(keyring.current)!,
    new TextEncoder().encode(plaintext),
  );
  return `${header}.${toBase64(iv, "base64url")}.${toBase64(new Uint8Array(sealed), "base64url")}`;
}

/** The key id a value was sealed with, or null if it is not a sealed value at all. */
export function sealedWith(value: string): string | null {
  const parts = value.split(".");
  return parts.length === 4 && parts[0] === VERSION && KID.test(parts[1]!) ? parts[1]! : null;
}

export async function unseal(keyring: Keyring, value: string, context: string): Promise<string> {
  const kid = sealedWith(value);
  if (kid === null) throw new UnsealError(`not a sealed value (expected ${VERSION}.<kid>.<iv>.<ciphertext>)`);
  const key = keyring.keys.get(kid);
  if (!key)
    throw new UnsealError(
      `sealed with key "${kid}", which the configuration does not hold (it has ${[...keyring.keys.keys()].join(", ")})`,
    );
  const [, , ivText, dataText] = value.split(".");
  const iv = fromBase64(ivText!);
  const data = fromBase64(dataText!);
  if (iv?.length !== IV_BYTES || !data || data.length < TAG_BYTES)
    throw new UnsealError("a sealed value with a malformed IV or ciphertext");
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv, additionalData: additionalData(`${VERSION}.${kid}`, context), tagLength: TAG_BYTES * 8 },
      key,
      data,
    );
    return new TextDecoder().decode(plain);
  } catch {
    throw new UnsealError(
      `a sealed value under key "${kid}" does not authenticate: altered, copied from another record, or sealed by another key with ` +
        `the same id`,
    );
  }
}
