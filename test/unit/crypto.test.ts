import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN, fromBase64, generateApiKey, sha256Hex, toBase64 } from "../../src/lib/crypto";

const BASE62_KEY = /^vdp_[0-9A-Za-z]{43}$/;

describe("generateApiKey", () => {
  it("is vdp_ followed by exactly 43 base62 characters and matches API_KEY_PATTERN", () => {
    for (let i = 0; i < 500; i++) {
      const key = generateApiKey();
      expect(key).toMatch(BASE62_KEY);
      expect(key).toHaveLength(47);
      expect(API_KEY_PATTERN.test(key)).toBe(true);
    }
  });

  it("makes distinct keys", () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(2000);
  });

  it("uses all 62 characters across many keys", () => {
    const chars = new Set(Array.from({ length: 500 }, () => generateApiKey().slice(4)).join(""));
    expect(chars.size).toBe(62);
  });

  it.each([`vdp_${"a".repeat(39)}`, `vdp_${"a".repeat(43)}!`, `vdq_${"a".repeat(43)}`, `VDP_${"a".repeat(43)}`, "a".repeat(47), ""])(
    "API_KEY_PATTERN rejects %j",
    (key) => {
      expect(API_KEY_PATTERN.test(key)).toBe(false);
    },
  );

  it("API_KEY_PATTERN accepts 40 or more base62 characters", () => {
    expect(API_KEY_PATTERN.test(`vdp_${"a".repeat(40)}`)).toBe(true);
    expect(API_KEY_PATTERN.test(`vdp_${"Z9".repeat(30)}`)).toBe(true);
  });
});

describe("sha256Hex", () => {
  it.each([
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"],
  ])("sha256Hex(%j) is %s", async (input, digest) => {
    expect(await sha256Hex(input)).toBe(digest);
  });

  it("hashes strings as UTF-8", async () => {
    expect(await sha256Hex("é")).toBe(await sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });

  it("gives the same digest for a Uint8Array, an ArrayBuffer and the equal string", async () => {
    const bytes = new TextEncoder().encode("abc");
    const expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    expect(await sha256Hex(bytes)).toBe(expected);
    expect(await sha256Hex(bytes.slice().buffer)).toBe(expected);
    expect(await sha256Hex(new ArrayBuffer(0))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("is 64 lowercase hex characters and differs for different input", async () => {
    const a = await sha256Hex("vdp_key_one");
    const b = await sha256Hex("vdp_key_two");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });
});

describe("toBase64 and fromBase64", () => {
  it("round-trips every length in both alphabets, and reads what atob reads", () => {
    for (let n = 0; n < 70; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      const standard = toBase64(bytes);
      const url = toBase64(bytes, "base64url");
      expect(standard).toBe(btoa(String.fromCharCode(...bytes)));
      expect(url).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(fromBase64(standard)).toEqual(bytes);
      expect(fromBase64(url)).toEqual(bytes);
      expect(fromBase64(standard.replace(/=+$/, ""))).toEqual(bytes);
    }
    expect(toBase64(new Uint8Array([0xfb, 0xff]), "base64url")).toBe("-_8");
  });

  it.each([
    ["A", "one character"],
    ["QQ=", "padding without a multiple of four"],
    ["Q===", "three padding characters"],
    ["QR==", "spare bits set (QQ== is the one text of that byte)"],
    ["QUI=x", "text after padding"],
    ["QU I=", "a space, which atob skips"],
    ["QUI=\n", "a newline"],
    ["QU+_", "both alphabets at once"],
    ["QU*=", "a character of neither"],
  ])("refuses %j (%s)", (text) => {
    expect(fromBase64(text)).toBeNull();
  });
});
