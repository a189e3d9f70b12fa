// MinHash over word 3-shingles, and the LSH band keys that find the reports whose signatures agree on a
// whole band. The hash functions are fixed by SIMILARITY_VERSION: a stored signature is comparable only
// with one of its own version, so changing a seed or the normalisation means a new version.

export const SIMILARITY_VERSION = 1;
export const HASHES = 128;
export const BANDS = 32;
export const ROWS = HASHES / BANDS;

/** FNV-1a, 32 bits, over the UTF-16 code units of `s` (the same on every runtime). */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's finaliser: every input bit moves every output bit. */
export function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The 128 seeds of version 1: the golden-ratio sequence, mixed. Never change them in place (see SIMILARITY_VERSION). */
export const SEEDS: readonly number[] = Array.from({ length: HASHES }, (_, i) => fmix32(Math.imul(i + 1, 0x9e3779b9) ^ 0x5eed0001));

/** The signature of a set of shingles: per function, the least hash. An empty set's slots are all 0xffffffff. */
export function minhash(shingleSet: Iterable<string>): Uint32Array {
  const sig = new Uint32Array(HASHES).fill(0xffffffff);
  const seen = new Set<number>();
  for (const s of shingleSet) {
    const x = fnv1a32(s);
    if (seen.has(x)) continue;
    seen.add(x);
    for (let i = 0; i < HASHES; i++) {
      const h = fmix32(x ^ SEEDS[i]!);
      if (h < sig[i]!) sig[i] = h;
    }
  }
  return sig;
}

/** Ĵ: the share of slots two signatures agree on (0 when either text was empty). */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  let empty = true;
  for (let i = 0; i < HASHES; i++) {
    if (a[i] === b[i]) same++;
    if (a[i] !== 0xffffffff) empty = false;
  }
  return empty ? 0 : same / HASHES;
}

const TWO_32 = 2 ** 32;

/**
 * The band keys: band·2^32 + the fmix32 of the band's 4 values combined. At most 31·2^32 + 2^32 − 1 < 2^37, so a
 * key is a safe integer in JS and an INTEGER in SQLite. An empty text has no keys (it would match every other).
 */
export function bandKeys(sig: Uint32Array): number[] {
  if (sig.every((v) => v === 0xffffffff)) return [];
  const keys: number[] = [];
  for (let band = 0; band < BANDS; band++) {
    let h = band;
    for (let r = 0; r < ROWS; r++) h = fmix32(Math.imul(h, 0x01000193) ^ sig[band * ROWS + r]!);
    keys.push(band * TWO_32 + h);
  }
  return keys;
}

/** The signature as base64 of its 512 little-endian bytes (684 characters). */
export function encodeSignature(sig: Uint32Array): string {
  const bytes = new Uint8Array(HASHES * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < HASHES; i++) view.setUint32(i * 4, sig[i]!, true);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function decodeSignature(text: string): Uint32Array {
  const binary = atob(text);
  if (binary.length !== HASHES * 4) throw new Error(`a signature has ${HASHES * 4} bytes, not ${binary.length}`);
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  return Uint32Array.from({ length: HASHES }, (_, i) => view.getUint32(i * 4, true));
}
