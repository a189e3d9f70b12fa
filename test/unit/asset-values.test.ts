import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ASSET_KINDS, type AssetKind, checkAssetValue, isIPv4, isIPv6, normalizeHostname } from "../../src/lib/asset-values";

const label63 = "a".repeat(63);
const label64 = "a".repeat(64);

// [kind, raw input, canonical value]
const accepted: [AssetKind, string, string][] = [
  ["domain", "example.com", "example.com"],
  ["domain", "Example.COM.", "example.com"],
  ["domain", "  sub.Example.org  ", "sub.example.org"],
  ["domain", "a-b.c-d.example.net", "a-b.c-d.example.net"],
  ["domain", `${label63}.com`, `${label63}.com`],
  ["domain", "xn--bcher-kva.example", "xn--bcher-kva.example"],
  ["domain", "example.xn--p1ai", "example.xn--p1ai"],
  ["domain", "1.2.3.example", "1.2.3.example"],
  ["wildcard_domain", "*.example.com", "*.example.com"],
  ["wildcard_domain", "*.Example.com", "*.example.com"],
  ["wildcard_domain", "*.API.Example.com.", "*.api.example.com"],
  ["url", "https://example.com", "https://example.com/"],
  ["url", "HTTPS://Example.COM:443/a b?x=1#f", "https://example.com/a%20b?x=1#f"],
  ["url", "http://example.com:8080/path", "http://example.com:8080/path"],
  ["url", "http://localhost/", "http://localhost/"],
  ["source_code", "https://GitHub.com/org/repo", "https://github.com/org/repo"],
  ["ip_address", "1.2.3.4", "1.2.3.4"],
  ["ip_address", "0.0.0.0", "0.0.0.0"],
  ["ip_address", "255.255.255.255", "255.255.255.255"],
  ["ip_address", "2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
  ["ip_address", "fe80:0000::0001", "fe80::1"],
  ["ip_address", "::", "::"],
  ["ip_address", "::1", "::1"],
  ["ip_address", "::ffff:1.2.3.4", "::ffff:102:304"],
  ["cidr", "192.0.2.0/24", "192.0.2.0/24"],
  ["cidr", "0.0.0.0/0", "0.0.0.0/0"],
  ["cidr", "10.0.0.1/32", "10.0.0.1/32"],
  ["cidr", "10.0.0.0/032", "10.0.0.0/32"],
  ["cidr", "2001:DB8::/32", "2001:db8::/32"],
  ["cidr", "::/0", "::/0"],
  ["cidr", "2001:db8:0:0:0:0:0:1/128", "2001:db8::1/128"],
  ["ios_app", "com.example.app", "com.example.app"],
  ["ios_app", "id123456", "id123456"],
  ["ios_app", "123456789012", "123456789012"],
  ["ios_app", "https://apps.apple.com/us/app/example/id123456", "https://apps.apple.com/us/app/example/id123456"],
  ["android_app", "com.example.app", "com.example.app"],
  ["android_app", "com.example_app.Mobile2", "com.example_app.Mobile2"],
  ["android_app", "https://play.google.com/store/apps/details?id=com.example", "https://play.google.com/store/apps/details?id=com.example"],
  ["executable", "agent-setup.exe v1.2", "agent-setup.exe v1.2"],
  ["hardware", "  Router X100  ", "Router X100"],
  ["other", "x".repeat(500), "x".repeat(500)],
];

const rejected: [AssetKind, string][] = [
  ...ASSET_KINDS.flatMap((kind): [AssetKind, string][] => [
    [kind, ""],
    [kind, "   \t\n "],
    [kind, "exa\u0000mple.com"],
    [kind, "exa\u0007mple.com"],
    [kind, "exa\u007fmple.com"],
    [kind, "a.b\u001bc.com"],
    [kind, `https://example.com/${"a".repeat(2049)}`],
  ]),
  ["domain", "localhost"],
  ["domain", "com"],
  ["domain", "-example.com"],
  ["domain", "example-.com"],
  ["domain", "example.-com"],
  ["domain", `${label64}.com`],
  ["domain", "1.2.3.4"],
  ["domain", "example.123"],
  ["domain", "example.c"],
  ["domain", "exa_mple.com"],
  ["domain", "example..com"],
  ["domain", "example.com.."],
  ["domain", ".example.com"],
  ["domain", "*.example.com"],
  ["domain", "https://example.com"],
  ["domain", `${"a.".repeat(126)}com`],
  ["wildcard_domain", "example.com"],
  ["wildcard_domain", "*.com"],
  ["wildcard_domain", "*example.com"],
  ["wildcard_domain", "*.*.example.com"],
  ["wildcard_domain", "**.example.com"],
  ["url", "ftp://example.com/file"],
  ["url", "example.com"],
  ["url", "javascript:alert(1)"],
  ["url", "mailto:security@example.com"],
  ["url", "https://"],
  ["source_code", "ftp://example.com/repo.git"],
  ["source_code", "git@github.com:org/repo.git"],
  ["ip_address", "01.2.3.4"],
  ["ip_address", "1.2.3.04"],
  ["ip_address", "256.1.1.1"],
  ["ip_address", "1.2.3"],
  ["ip_address", "1.2.3.4.5"],
  ["ip_address", "1.2.3.4/32"],
  ["ip_address", "1:2:3:4:5:6:7:8:9"],
  ["ip_address", "2001:db8::g"],
  ["ip_address", "fe80::1%eth0"],
  ["ip_address", "example.com"],
  ["cidr", "10.0.0.0/33"],
  ["cidr", "::/129"],
  ["cidr", "10.0.0.0"],
  ["cidr", "10.0.0.0/"],
  ["cidr", "10.0.0.0/8/8"],
  ["cidr", "/24"],
  ["cidr", "10.0.0.0/-1"],
  ["cidr", "10.0.0.0/1000"],
  ["cidr", "10.0.0.0/ 8"],
  ["cidr", "01.0.0.0/8"],
  ["cidr", "example.com/24"],
  ["ios_app", "example"],
  ["ios_app", "12345"],
  ["ios_app", "id1234567890123"],
  ["ios_app", "com..app"],
  ["ios_app", "http://apps.apple.com/us/app/id123456"],
  ["ios_app", "https://play.google.com/store/apps/details?id=com.example"],
  ["android_app", "example"],
  ["android_app", "com.1example"],
  ["android_app", "1com.example"],
  ["android_app", "com-example.app"],
  ["android_app", "com.example."],
  ["android_app", "http://play.google.com/store/apps/details?id=com.example"],
  ["executable", "x".repeat(501)],
  ["hardware", "x".repeat(501)],
  ["other", "x".repeat(501)],
];

describe("checkAssetValue", () => {
  it("covers every kind in ASSET_KINDS", () => {
    expect([...ASSET_KINDS].sort()).toEqual([
      "android_app",
      "cidr",
      "domain",
      "executable",
      "hardware",
      "ios_app",
      "ip_address",
      "other",
      "source_code",
      "url",
      "wildcard_domain",
    ]);
    for (const kind of ASSET_KINDS) expect(accepted.some(([k]) => k === kind)).toBe(true);
  });

  it.each(accepted)("%s accepts %j as %j", (kind, raw, canonical) => {
    expect(checkAssetValue(kind, raw)).toEqual({ ok: true, value: canonical });
  });

  it.each(rejected)("%s rejects %j", (kind, raw) => {
    const result = checkAssetValue(kind, raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^value must /);
  });

  it("gives the specific reason for empty, too long and control characters", () => {
    expect(checkAssetValue("other", "  ")).toEqual({ ok: false, reason: "value must not be empty." });
    expect(checkAssetValue("other", "a".repeat(2049))).toEqual({ ok: false, reason: "value must be at most 2048 characters." });
    expect(checkAssetValue("other", "a\u0001b")).toEqual({ ok: false, reason: "value must not contain control characters." });
    expect(checkAssetValue("other", "a".repeat(501))).toEqual({ ok: false, reason: "value must be at most 500 characters for this kind." });
  });

  it("accepts a URL of exactly 2048 characters and rejects 2049", () => {
    const base = "https://example.com/";
    expect(checkAssetValue("url", base + "a".repeat(2048 - base.length))).toEqual({
      ok: true,
      value: base + "a".repeat(2048 - base.length),
    });
    expect(checkAssetValue("url", base + "a".repeat(2049 - base.length)).ok).toBe(false);
  });

  // C1 controls (U+0080..U+009F, e.g. NEL and the 8-bit CSI) are control characters too (Unicode category Cc).
  it.each([...ASSET_KINDS])("%s rejects C1 control characters", (kind) => {
    expect(checkAssetValue(kind, "example\u0085.com").ok).toBe(false);
    expect(checkAssetValue(kind, "example\u009b.com").ok).toBe(false);
  });
});

describe("normalizeHostname, isIPv4, isIPv6", () => {
  it.each([
    ["Example.COM.", "example.com"],
    [" a.b.co ", null], // callers trim; the hostname itself has no spaces
    ["localhost", null],
    ["1.2.3.4", null],
    ["", null],
    [
      `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.com`,
      `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.com`,
    ],
    [`${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(10)}.com`, null],
  ])("normalizeHostname(%j) is %j", (input, expected) => {
    expect(normalizeHostname(input)).toBe(expected);
  });

  it.each([
    ["1.2.3.4", true],
    ["0.0.0.0", true],
    ["255.255.255.255", true],
    ["256.0.0.0", false],
    ["01.2.3.4", false],
    ["1.2.3", false],
    ["1.2.3.4.", false],
    ["a.b.c.d", false],
    ["", false],
    ["1.2.3.1000", false],
  ])("isIPv4(%j) is %s", (input, expected) => {
    expect(isIPv4(input)).toBe(expected);
  });

  it.each([
    ["::", true],
    ["::1", true],
    ["2001:db8::1", true],
    ["2001:DB8:0:0:0:0:0:1", true],
    ["::ffff:1.2.3.4", true],
    ["1.2.3.4", false],
    [":", false],
    ["2001:db8::g", false],
    ["1:2:3:4:5:6:7:8:9", false],
    ["[::1]", false],
    ["", false],
  ])("isIPv6(%j) is %s", (input, expected) => {
    expect(isIPv6(input)).toBe(expected);
  });
});

describe("checkAssetValue properties", () => {
  const label = fc.stringMatching(/^[a-zA-Z0-9]([a-zA-Z0-9-]{0,10}[a-zA-Z0-9])?$/);
  const domainLike = fc
    .tuple(
      fc.array(label, { minLength: 1, maxLength: 4 }),
      fc.stringMatching(/^[a-zA-Z]{2,6}$/),
      fc.boolean(),
      fc.constantFrom("", " ", "\t"),
    )
    .map(([labels, tld, dot, pad]) => `${pad}${labels.join(".")}.${tld}${dot ? "." : ""}${pad}`);
  const anyString = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.string({ unit: fc.constantFrom(..."aZ09.:-/*[]%@ \t#?hps".split("")) }),
    domainLike,
    domainLike.map((d) => `https://${d.trim()}/x`),
    fc.ipV4(),
    fc.ipV6(),
    fc.webUrl(),
  );

  it("accepts every generated domain as its lowercased form without the trailing dot", () => {
    fc.assert(
      fc.property(domainLike, (raw) => {
        expect(checkAssetValue("domain", raw)).toEqual({ ok: true, value: raw.trim().toLowerCase().replace(/\.$/, "") });
      }),
    );
  });

  it("returns a fixed point for domain: the canonical value checks to itself", () => {
    fc.assert(
      fc.property(fc.oneof(domainLike, fc.string({ unit: "binary" })), (raw) => {
        const first = checkAssetValue("domain", raw);
        if (!first.ok) return;
        expect(checkAssetValue("domain", first.value)).toEqual({ ok: true, value: first.value });
      }),
      { numRuns: 1000 },
    );
  });

  it("never throws, and every accepted value of any kind is a fixed point", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSET_KINDS), anyString, (kind, raw) => {
        const first = checkAssetValue(kind, raw);
        expect(typeof first.ok).toBe("boolean");
        if (first.ok) expect(checkAssetValue(kind, first.value)).toEqual({ ok: true, value: first.value });
        else expect(first.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("hostnames are ASCII", () => {
  it.each([
    ["domain", "example\u212A.com"],
    ["domain", "exa mple.com"],
    ["wildcard_domain", "*. example.com"],
    ["domain", "bücher.example"],
  ])("rejects the %s %j", (kind, value) => {
    expect(checkAssetValue(kind as "domain", value).ok).toBe(false);
  });

  it("accepts punycode", () => {
    expect(checkAssetValue("domain", "xn--bcher-kva.example")).toEqual({ ok: true, value: "xn--bcher-kva.example" });
  });
});
