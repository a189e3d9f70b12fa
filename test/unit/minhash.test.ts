import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BANDS,
  bandKeys,
  decodeSignature,
  encodeSignature,
  estimateJaccard,
  HASHES,
  minhash,
  shingles,
  tokens,
} from "../../src/lib/similarity";
import { fmix32, fnv1a32, SEEDS } from "../../src/lib/similarity/minhash";

// The signature a report is looked up by: its estimate of the Jaccard similarity of two shingle sets is close
// to the exact one, its band keys are integers SQLite and JS agree on, and it is the same on every runtime.

const exact = (a: Set<string>, b: Set<string>) => {
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 0 : [...a].filter((x) => b.has(x)).length / union;
};

describe("hashes", () => {
  it("are FNV-1a 32 and MurmurHash3's fmix32, with the version's fixed seeds", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
    expect(fmix32(0)).toBe(0);
    expect(fmix32(1)).toBe(0x514e28b7);
    expect(SEEDS).toHaveLength(HASHES);
    expect(new Set(SEEDS).size).toBe(HASHES);
    // Changing a seed silently would make every stored signature incomparable: a new version instead.
    expect(SEEDS.slice(0, 3)).toEqual([
      fmix32(Math.imul(1, 0x9e3779b9) ^ 0x5eed0001),
      fmix32(Math.imul(2, 0x9e3779b9) ^ 0x5eed0001),
      fmix32(Math.imul(3, 0x9e3779b9) ^ 0x5eed0001),
    ]);
  });
});

describe("minhash", () => {
  it("estimates the Jaccard similarity of two shingle sets within 0.1", () => {
    const word = fc.integer({ min: 0, max: 400 }).map((n) => `w${n}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { minLength: 20, maxLength: 150 }),
        fc.uniqueArray(word, { maxLength: 150 }),
        fc.nat(100),
        (shared, own, cut) => {
          const a = new Set(shared);
          const b = new Set([...shared.slice(0, Math.floor((shared.length * cut) / 100)), ...own]);
          expect(Math.abs(estimateJaccard(minhash(a), minhash(b)) - exact(a, b))).toBeLessThanOrEqual(0.1);
        },
      ),
      { seed: 37, numRuns: 200 },
    );
  });

  it("gives identical texts Ĵ = 1, disjoint ones about 0, and an empty text 0 and no band keys", () => {
    const text = shingles(
      tokens("Reflected XSS in search", "The q parameter of https://shop.northwind.test/search?q=x is echoed unescaped."),
    );
    expect(estimateJaccard(minhash(text), minhash([...text]))).toBe(1);
    expect(estimateJaccard(minhash(["a b c", "d e f"]), minhash(["x y z", "u v w"]))).toBeLessThan(0.05);
    expect(estimateJaccard(minhash([]), minhash([]))).toBe(0);
    expect(bandKeys(minhash([]))).toEqual([]);
  });

  it("keys each of the 32 bands as band·2^32 + bucket, a safe integer, equal for equal bands", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 40 }), (set) => {
        const keys = bandKeys(minhash(set));
        expect(keys).toHaveLength(BANDS);
        keys.forEach((k, band) => {
          expect(Number.isSafeInteger(k)).toBe(true);
          expect(Math.floor(k / 2 ** 32)).toBe(band);
        });
        expect(bandKeys(minhash([...set].reverse()))).toEqual(keys);
      }),
      { seed: 37 },
    );
  });

  it("stores a signature as 684 base64 characters and reads it back", () => {
    const sig = minhash(["one two three", "two three four"]);
    const text = encodeSignature(sig);
    expect(text).toHaveLength(684);
    expect(decodeSignature(text)).toEqual(sig);
    expect(() => decodeSignature("AAAA")).toThrow();
  });
});

describe("tokens", () => {
  it("reads URLs as their path template, numbers as 0, class phrases as one word, and drops stop words", () => {
    expect(tokens("Cross-site scripting", "Found at https://api.northwind.test/api/v2/orders/123456/items?expand=all on 12 May")).toEqual([
      "xss",
      "/api/v2/orders/{id}/items",
      "expand",
      "0",
    ]);
    expect(tokens("", "see /account/orders/3c7ad00c-4a1e-4c2b-9d3f-f48246dbffff and /admin/settings/cors")).toEqual([
      "/account/orders/{id}",
      "/admin/settings/cors",
    ]);
    expect(tokens("SQL injection", "SQLi, sql-injection")).toEqual(["sqli", "sqli", "sqli"]);
  });

  it("caps a long text", () => {
    expect(tokens("", "word ".repeat(10_000)).length).toBeLessThanOrEqual(3_000);
  });
});
