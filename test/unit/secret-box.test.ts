import { describe, expect, it, vi } from "vitest";
import { fromBase64, toBase64 } from "../../src/lib/crypto";
import { KeyringError, loadKeyring, parseKeyring, seal, sealedWith, unseal, UnsealError } from "../../src/lib/secret-box";

const keyText = (byte: number) => toBase64(new Uint8Array(32).fill(byte));
const K1 = keyText(1);
const K2 = keyText(2);
const NAME = "WEBHOOK_SECRET_KEY";
const load = (raw: string) => loadKeyring(raw, NAME);
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("seal and unseal", () => {
  it("round-trips, in the v1.<kid>.<iv>.<ciphertext> form, never showing the plaintext", async () => {
    const keyring = await load(`k1:${K1}`);
    const sealed = await seal(keyring, SECRET, "webhooks/a");
    expect(sealed).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET.slice(6, 16));
    // The ciphertext is the plaintext's length plus the 16-byte tag.
    expect(fromBase64(sealed.split(".")[3]!)).toHaveLength(SECRET.length + 16);
    expect(sealedWith(sealed)).toBe("k1");
    expect(await unseal(keyring, sealed, "webhooks/a")).toBe(SECRET);
  });

  it("uses a fresh random 12-byte IV every time", async () => {
    const keyring = await load(`k1:${K1}`);
    const sealed = await Promise.all(Array.from({ length: 50 }, () => seal(keyring, SECRET, "webhooks/a")));
    const ivs = sealed.map((s) => s.split(".")[2]!);
    expect(new Set(ivs).size).toBe(50);
    expect(new Set(sealed).size).toBe(50);
    for (const iv of ivs) expect(fromBase64(iv)).toHaveLength(12);
  });

  it("opens a value sealed by another AES-256-GCM implementation (the format is stable)", async () => {
    // Made with node:crypto: key 32 bytes of 7, IV 00..0b, AAD "v1.k1|webhooks/<id>".
    const keyring = await load(`k1:${keyText(7)}`);
    const sealed = "v1.k1.AAECAwQFBgcICQoL.b-maFX5WsicYxYuxlD0Pjo5OzcyYVAJVxmc8aCpEBDuiqQ";
    expect(await unseal(keyring, sealed, "webhooks/0193a1b2-0000-7000-8000-000000000001")).toBe("whsec_known-vector");
  });

  it("refuses a value moved to another record (the context is authenticated)", async () => {
    const keyring = await load(`k1:${K1}`);
    const sealed = await seal(keyring, SECRET, "webhooks/a");
    await expect(unseal(keyring, sealed, "webhooks/b")).rejects.toThrow(UnsealError);
  });

  it("refuses any altered character of the IV, the ciphertext or the tag", async () => {
    const keyring = await load(`k1:${K1}`);
    const sealed = await seal(keyring, SECRET, "webhooks/a");
    const start = "v1.k1.".length;
    // Each character by one that differs in a high bit and by one that differs in the lowest only
    // (the spare bits of a last character, which a lax decoder ignores).
    for (let i = start; i < sealed.length; i++) {
      if (sealed[i] === ".") continue;
      for (const other of ["A", "B", "g"].filter((c) => c !== sealed[i])) {
        const altered = sealed.slice(0, i) + other + sealed.slice(i + 1);
        await expect(unseal(keyring, altered, "webhooks/a"), `${other} at ${i}`).rejects.toThrow(UnsealError);
      }
    }
  });

  it("refuses a value relabelled with another configured key id, or sealed under a key not configured", async () => {
    const both = await load(`k2:${K2},k1:${K1}`);
    const sealed = await seal(await load(`k1:${K1}`), SECRET, "webhooks/a");
    await expect(unseal(both, sealed.replace("v1.k1.", "v1.k2."), "webhooks/a")).rejects.toThrow(/does not authenticate/);
    const onlyK2 = await load(`k2:${K2}`);
    await expect(unseal(onlyK2, sealed, "webhooks/a")).rejects.toThrow(
      'sealed with key "k1", which the configuration does not hold (it has k2)',
    );
    // The same id with other key material: it does not open either.
    await expect(unseal(await load(`k1:${K2}`), sealed, "webhooks/a")).rejects.toThrow(UnsealError);
  });

  it.each([
    "",
    "whsec_abc",
    "v2.k1.AAECAwQFBgcICQoL.AAAA",
    "v1.k1.AAECAwQFBgcICQoL",
    "v1.k1.AAEC.AAAAAAAAAAAAAAAAAAAAAA",
    "v1.k1.AAECAwQFBgcICQoL.AAAA",
    "v1.k1.AAECAwQFBgcICQoL.A*AA",
    "v1..AAECAwQFBgcICQoL.AAAA",
  ])("refuses the malformed value %j", async (value) => {
    await expect(unseal(await load(`k1:${K1}`), value, "webhooks/a")).rejects.toThrow(UnsealError);
  });
});

describe("key rotation", () => {
  it("seals under the first key and opens under every key listed", async () => {
    const old = await load(`k1:${K1}`);
    const rotated = await load(`k2:${K2},k1:${K1}`);
    const before = await seal(old, SECRET, "webhooks/a");
    const after = await seal(rotated, SECRET, "webhooks/a");
    expect(rotated.current).toBe("k2");
    expect(sealedWith(after)).toBe("k2");
    expect(await unseal(rotated, before, "webhooks/a")).toBe(SECRET);
    expect(await unseal(rotated, after, "webhooks/a")).toBe(SECRET);
    await expect(unseal(old, after, "webhooks/a")).rejects.toThrow(UnsealError);
  });
});

describe("the key configuration", () => {
  it.each([
    [undefined, "WEBHOOK_SECRET_KEY is not set"],
    ["", "WEBHOOK_SECRET_KEY is not set"],
    ["   ", "WEBHOOK_SECRET_KEY is not set"],
    [K1, "entry 1 does not start with a key id"],
    [`:${K1}`, "entry 1 does not start with a key id"],
    [`k.1:${K1}`, "entry 1 does not start with a key id"],
    [`k1:${K1},`, "entry 2 does not start with a key id"],
    [`k1:${K1},${K2}`, "entry 2 does not start with a key id"],
    ["k1:not base64!", 'key "k1" is not the base64 of 32 bytes'],
    [`k1:${toBase64(new Uint8Array(16))}`, 'key "k1" is not the base64 of 32 bytes'],
    [`k1:${toBase64(new Uint8Array(33))}`, 'key "k1" is not the base64 of 32 bytes'],
    [`k1:${K1.slice(0, 20)} ${K1.slice(20)}`, 'key "k1" is not the base64 of 32 bytes'],
    [`k1:${K1},k1:${K2}`, 'key id "k1" appears twice'],
  ])("refuses %j: %s", async (raw, message) => {
    expect(() => parseKeyring(raw, NAME)).toThrow(KeyringError);
    expect(() => parseKeyring(raw, NAME)).toThrow(message);
    expect(() => loadKeyring(raw, NAME)).toThrow(message);
    // The message never repeats key material.
    try {
      parseKeyring(raw, NAME);
    } catch (err) {
      expect((err as Error).message).not.toContain(K1.slice(0, 12));
    }
  });

  it("takes padded, unpadded and url-safe base64, and whitespace around entries (a secret pasted with a newline)", () => {
    const bytes = new Uint8Array(32).map((_, i) => 250 - i);
    const text = toBase64(bytes);
    for (const raw of [
      `k1:${text}`,
      `k1:${text.replace(/=+$/, "")}`,
      `k1:${toBase64(bytes, "base64url")}`,
      ` k1:${text}\n`,
      `k1:${text} , k0:${K1}\n`,
    ]) {
      expect(parseKeyring(raw, NAME)[0]).toEqual({ kid: "k1", key: bytes });
    }
  });

  it("imports the keys once per configuration, not once per use", async () => {
    const raw = `cache:${keyText(9)},older:${keyText(8)}`;
    const spy = vi.spyOn(crypto.subtle, "importKey");
    try {
      const first = await loadKeyring(raw, NAME);
      for (let i = 0; i < 20; i++) expect(await loadKeyring(raw, NAME)).toBe(first);
      expect(spy).toHaveBeenCalledTimes(2);
      // The keys cannot be exported back out of the isolate.
      expect([...first.keys.values()].every((k) => !k.extractable)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});
