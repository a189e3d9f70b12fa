import { calculateJwkThumbprint, FlattenedSign, flattenedVerify, GeneralSign, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { toBase64 } from "../../src/lib/crypto";
import { canonicalJson } from "../../src/lib/canonical-json";
import {
  pagePayload,
  pagePayloadBytes,
  REPORTER_JWS_TYPE,
  reporterKeyThumbprint,
  verifyReporterSignature,
} from "../../src/lib/reporter-signature";
import { newReporterKey, type ReporterKey, signDetached } from "../helpers/reporter-keys";

// Our verifier against an independent JOSE library (jose), both ways: what jose signs we verify, and
// what the test helper signs (as a reporter's script would) jose verifies. Each forgery is refused.

const AUD = "/b/7KQ2M9XD";
const NOW = Date.UTC(2026, 10, 29, 10, 0, 0);
const IAT = NOW / 1000;
const encoder = new TextEncoder();
const body = encoder.encode(JSON.stringify({ data: { type: "vuln", attributes: { title: "XSS in search", description: "q=<script>" } } }));
const b64url = (bytes: Uint8Array) => toBase64(bytes, "base64url");

const verify = (keyHeader: string, signatureHeader: string, payload: Uint8Array = body, now = NOW) =>
  verifyReporterSignature({ keyHeader, signatureHeader, payload, audience: AUD, now });

const joseHeader = (key: ReporterKey, alg = "EdDSA") => ({ alg, typ: REPORTER_JWS_TYPE, jwk: key.jwk, aud: AUD, iat: IAT });

describe("reporter key thumbprints (RFC 7638)", () => {
  it("matches RFC 8037 appendix A.3's Ed25519 vector", async () => {
    const jwk = { crv: "Ed25519", kty: "OKP", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" };
    expect(await reporterKeyThumbprint(jwk)).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
  });

  it("counts only the required members, as jose does: a browser's alg, ext and key_ops change nothing", async () => {
    const key = await newReporterKey();
    const exported = { ...key.jwk, alg: "Ed25519", ext: true, key_ops: ["verify"] };
    expect(await reporterKeyThumbprint(exported)).toBe(key.thumbprint);
    expect(await calculateJwkThumbprint(exported, "sha256")).toBe(key.thumbprint);
  });
});

describe("verifyReporterSignature", () => {
  it("verifies what jose signs with a detached payload, flattened or general, EdDSA or Ed25519", async () => {
    const key = await newReporterKey();
    for (const alg of ["EdDSA", "Ed25519"]) {
      const flat = await new FlattenedSign(body).setProtectedHeader(joseHeader(key, alg)).sign(key.privateKey);
      expect(await verify(key.thumbprint, `${flat.protected}..${flat.signature}`)).toMatchObject({ ok: true, thumbprint: key.thumbprint });
    }
    const general = await new GeneralSign(body).addSignature(key.privateKey).setProtectedHeader(joseHeader(key)).sign();
    const [one] = general.signatures;
    const result = await verify(key.thumbprint, `${one!.protected}..${one!.signature}`);
    expect(result).toMatchObject({ ok: true, thumbprint: key.thumbprint });
    expect(result.ok && result.signatureSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("signs (through the test helper) what jose's flattenedVerify accepts with the header's key", async () => {
    const key = await newReporterKey();
    const jws = await signDetached(body, { key, aud: AUD, iat: IAT });
    const [protectedPart, , signature] = jws.split(".") as [string, string, string];
    const verified = await flattenedVerify(
      { protected: protectedPart, payload: b64url(body), signature },
      await importJWK(key.jwk, "EdDSA"),
    );
    expect(verified.protectedHeader).toMatchObject({ alg: "EdDSA", typ: REPORTER_JWS_TYPE, aud: AUD, iat: IAT });
    expect(await verify(key.thumbprint, jws)).toMatchObject({ ok: true });
  });

  it("names one signature by its SHA-256, the same each time it is sent, another for another iat", async () => {
    const key = await newReporterKey();
    const jws = await signDetached(body, { key, aud: AUD, iat: IAT });
    const [a, b] = [await verify(key.thumbprint, jws), await verify(key.thumbprint, jws)];
    const c = await verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT + 1 }));
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (a.ok && b.ok && c.ok) {
      expect(a.signatureSha256).toBe(b.signatureSha256);
      expect(c.signatureSha256).not.toBe(a.signatureSha256);
    }
  });

  it("accepts iat up to 600 seconds either side of now, and no further", async () => {
    const key = await newReporterKey();
    for (const iat of [IAT - 600, IAT + 600]) {
      expect((await verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat }))).ok).toBe(true);
    }
    for (const iat of [IAT - 601, IAT + 601]) {
      const result = await verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat }));
      expect(result).toEqual({ ok: false, detail: expect.stringContaining('"iat"') });
    }
  });

  it("refuses each forgery, saying what is wrong", async () => {
    const key = await newReporterKey();
    const other = await newReporterKey();
    const good = await signDetached(body, { key, aud: AUD, iat: IAT });
    const [goodProtected, , goodSignature] = good.split(".") as [string, string, string];
    const headerOf = (h: Record<string, unknown>) => b64url(encoder.encode(JSON.stringify(h)));
    const privateJwk = (await crypto.subtle.exportKey("jwk", key.privateKey)) as JsonWebKey;
    const cases: [string, Promise<Awaited<ReturnType<typeof verify>>>, string][] = [
      ["a changed body", verify(key.thumbprint, good, encoder.encode(`${new TextDecoder().decode(body)} `)), "does not match"],
      ["another key's thumbprint", verify(other.thumbprint, good), "not the thumbprint"],
      [
        "the signature of another key under this key's header",
        verify(key.thumbprint, await signDetached(body, { key: other, aud: AUD, iat: IAT, header: { jwk: key.jwk } })),
        "does not match",
      ],
      ["another brief", verify(key.thumbprint, await signDetached(body, { key, aud: "/b/OTHER123", iat: IAT })), '"aud"'],
      ["no aud", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { aud: undefined } })), '"aud"'],
      ["a stale iat", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT - 3600 })), '"iat"'],
      ["a text iat", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, header: { iat: String(IAT) } })), '"iat"'],
      ["alg none", verify(key.thumbprint, `${headerOf({ ...joseHeader(key), alg: "none" })}..`), "JWS"],
      ["alg none, signed", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { alg: "none" } })), '"alg"'],
      ["alg HS256", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { alg: "HS256" } })), '"alg"'],
      ["another typ", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { typ: "JWT" } })), '"typ"'],
      [
        "crit",
        verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { crit: ["b64"], b64: false } })),
        '"crit"',
      ],
      [
        "a jwk with d",
        verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { jwk: { ...key.jwk, d: privateJwk.d } } })),
        '"d"',
      ],
      [
        "a short x",
        verify(
          key.thumbprint,
          await signDetached(body, { key, aud: AUD, iat: IAT, header: { jwk: { ...key.jwk, x: key.jwk.x.slice(1) } } }),
        ),
        '"x"',
      ],
      [
        "an RSA jwk",
        verify(
          key.thumbprint,
          await signDetached(body, { key, aud: AUD, iat: IAT, header: { jwk: { kty: "RSA", n: "AQAB", e: "AQAB" } } }),
        ),
        "Ed25519",
      ],
      ["no jwk", verify(key.thumbprint, await signDetached(body, { key, aud: AUD, iat: IAT, header: { jwk: undefined } })), "Ed25519"],
      ["an attached payload", verify(key.thumbprint, `${goodProtected}.${b64url(body)}.${goodSignature}`), "detached"],
      ["a truncated signature", verify(key.thumbprint, `${goodProtected}..${goodSignature.slice(0, 80)}`), "64 bytes"],
      ["garbage", verify(key.thumbprint, "garbage"), "JWS"],
      ["garbage in the header", verify(key.thumbprint, `bm90IGpzb24..${goodSignature}`), "JSON object"],
      ["a JSON array header", verify(key.thumbprint, `${headerOf([1] as never)}..${goodSignature}`), "JSON object"],
      ["a long signature", verify(key.thumbprint, `${"A".repeat(3000)}..${goodSignature}`), "over"],
      ["a malformed key id", verify("not a thumbprint", good), "43 base64url"],
      ["an empty key id", verify("", good), "43 base64url"],
    ];
    for (const [name, pending, says] of cases) {
      const result = await pending;
      expect(result, name).toEqual({ ok: false, detail: expect.stringContaining(says) });
    }
  });
});

describe("pagePayload", () => {
  it("keeps text as typed with CRLF as LF, trims the contact and domains, drops blanks, lowercases file hashes", () => {
    const fields = {
      title: "XSS\r\nin search",
      description: "Steps:\r\n1. open",
      contact_email: "  ada@example.test ",
      domains: [" shop.example.test ", "", "  ", "api.example.test"],
      evidence: { steps_to_reproduce: "a\r\nb", impact: "   ", proof_of_concept: undefined },
      ai_use: { level: "writing" as const, tools: "a model\r\n", verified_by_reporter: true },
      files: ["ABCDEF0123"],
    };
    expect(pagePayload(fields)).toEqual({
      title: "XSS\nin search",
      description: "Steps:\n1. open",
      contact_email: "ada@example.test",
      domains: ["shop.example.test", "api.example.test"],
      evidence: { steps_to_reproduce: "a\nb" },
      ai_use: { level: "writing", tools: "a model\n", verified_by_reporter: true },
      files: ["abcdef0123"],
    });
    expect(pagePayload({ ...fields, contact_email: " ", ai_use: null, evidence: undefined })).toMatchObject({
      contact_email: null,
      ai_use: null,
      evidence: {},
    });
  });

  it("signs as RFC 8785 canonical JSON, member order and all, so a page's signature verifies against the server's reading", async () => {
    const fields = { title: "t", description: "d", contact_email: null, domains: ["b.test", "a.test"], files: [] };
    const bytes = pagePayloadBytes(fields);
    expect(new TextDecoder().decode(bytes)).toBe(
      '{"ai_use":null,"contact_email":null,"description":"d","domains":["b.test","a.test"],"evidence":{},"files":[],"title":"t"}',
    );
    expect(new TextDecoder().decode(bytes)).toBe(canonicalJson(pagePayload(fields)));
    const key = await newReporterKey();
    const jws = await signDetached(bytes, { key, aud: AUD, iat: IAT });
    expect((await verify(key.thumbprint, jws, pagePayloadBytes({ ...fields }))).ok).toBe(true);
    expect((await verify(key.thumbprint, jws, pagePayloadBytes({ ...fields, domains: ["a.test", "b.test"] }))).ok).toBe(false);
  });
});
