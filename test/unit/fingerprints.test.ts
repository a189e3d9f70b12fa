import { describe, expect, it } from "vitest";
import { fileFingerprint, fingerprintKey, fingerprints, lookupFingerprints, signatureOf, similarity } from "../../src/lib/similarity";

// The technical facts two reports of one finding share however differently they are written, and the score
// with the reasons a triager reads.

describe("fingerprints", () => {
  it("takes the endpoint with the parameter that carries the payload, the route, the class's CWE and the payload family", () => {
    expect(
      fingerprints("XSS on search", "https://shop.northwind.test/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E&page=2 pops an alert"),
    ).toEqual(["ep:/search?q", "path:/search", "cwe:79", "payload:xss:script"]);
  });

  it("takes a parameter named in words for a route given as a path or a POST", () => {
    for (const text of [
      "POST /account/profile, the `bio` field is stored raw",
      "Parameter: bio\nLocation: /account/profile",
      "parameter bio is affected at https://shop.northwind.test/account/profile",
      "The vulnerable input is `bio` (POST /account/profile)",
      "the field called bio on /account/profile",
    ]) {
      expect(fingerprints("", text).filter((f) => f.startsWith("ep:"))).toEqual(["ep:/account/profile?bio"]);
    }
  });

  it("reads ids in a path as {id}, and a CWE named in the text", () => {
    expect(fingerprints("", "GET /api/v2/orders/839975?user_id=99999999999999999999 (CWE-209)")).toEqual([
      "ep:/api/v2/orders/{id}?user_id",
      "path:/api/v2/orders/{id}",
      "cwe:209",
    ]);
  });

  it("ignores the attacker's own URLs and files on the server as routes", () => {
    const fps = fingerprints(
      "SSRF",
      "https://api.northwind.test/api/v2/images/fetch?url=http://169.254.169.254/latest/meta-data/ and ../../etc/passwd, https://evil.example/x",
    );
    expect(fps).toEqual([
      "ep:/api/v2/images/fetch?url",
      "path:/api/v2/images/fetch",
      "cwe:918",
      "payload:traversal:dotdot",
      "payload:ssrf:metadata",
    ]);
  });

  it("caps each kind and looks up by the most specific ones, at most 6", () => {
    const many = Array.from({ length: 10 }, (_, i) => `/route${i}?p${i}=x'`).join(" ");
    const fps = fingerprints("", many);
    expect(fps.filter((f) => f.startsWith("ep:"))).toHaveLength(4);
    expect(fps.filter((f) => f.startsWith("path:"))).toHaveLength(4);
    const lookup = lookupFingerprints([fileFingerprint("AB".repeat(32)), ...fps]);
    expect(lookup).toHaveLength(6);
    expect(lookup[0]).toBe(`file:${"ab".repeat(32)}`);
  });

  it("stores a fingerprint as 16 hex of SHA-256", async () => {
    // sha256("cwe:79") starts so (computed with sha256sum).
    expect(await fingerprintKey("cwe:79")).toMatch(/^[0-9a-f]{16}$/);
    expect(await fingerprintKey("cwe:79")).toBe(await fingerprintKey("cwe:79"));
    expect(await fingerprintKey("cwe:79")).not.toBe(await fingerprintKey("cwe:89"));
  });
});

describe("similarity", () => {
  const a = signatureOf("Reflected XSS in search", "https://shop.northwind.test/search?q=<script>alert(1)</script> runs a script. CWE-79");
  it("flags one finding reworded: same endpoint and parameter, same class", () => {
    const b = signatureOf(
      "script injection on the shop search page",
      'GET /search, parameter `q`: "><img src=x onerror=alert(1)> is echoed unescaped',
    );
    const s = similarity(b, a);
    expect(s.score).toBeGreaterThan(0.5);
    expect(s.reasons).toEqual(["same endpoint /search?q", "CWE-79"]);
  });

  it("does not flag the same endpoint and parameter with another class, nor another parameter with the same class", () => {
    const sqli = signatureOf("SQL injection in search", "https://shop.northwind.test/search?q=' OR '1'='1 changes the results");
    const other = signatureOf("XSS on search sort", "https://shop.northwind.test/search?sort=<script>alert(1)</script> runs a script");
    expect(similarity(sqli, a).score).toBeLessThan(0.5);
    expect(similarity(other, a).score).toBeLessThan(0.5);
    expect(similarity(other, a).reasons).toContain("same path /search");
  });

  it("counts a shared route as the endpoint when neither report names a parameter on it", () => {
    const c1 = signatureOf("CSRF on change e-mail", "POST https://shop.northwind.test/account/email has no CSRF token");
    const c2 = signatureOf("Cross-site request forgery", "The form at /account/email can be posted from any site");
    expect(similarity(c2, c1)).toEqual({ score: 0.52, reasons: ["same endpoint /account/email", "CWE-352"] });
  });

  it("says the text's share when it is notable, and a shared file", () => {
    const text = "The coupon endpoint answers every guess without any limit, I tried a thousand codes in a minute from one address.";
    const x = { ...signatureOf("No rate limit on coupons", text), fingerprints: [fileFingerprint("3fa1".repeat(16))] };
    const y = { ...signatureOf("No rate limit on coupons", `${text} Please fix.`), fingerprints: [fileFingerprint("3fa1".repeat(16))] };
    const s = similarity(x, y);
    expect(s.score).toBeGreaterThan(0.9);
    expect(s.reasons[0]).toMatch(/^text 0\.\d\d$/);
    expect(s.reasons[1]).toBe("same file 3fa13fa1…");
  });
});
