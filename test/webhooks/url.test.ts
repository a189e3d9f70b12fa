import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/webhooks/url";

// Every one of these must be refused: they reach inside (loopback, private, link-local, metadata),
// hide a host behind user info, or are not https.
const HOSTILE = [
  "http://hooks.example.com/vdp", // not https
  "ftp://hooks.example.com/",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "https://user:pass@hooks.example.com/",
  "https://user@hooks.example.com/",
  "https://hooks.example.com@127.0.0.1/",
  "https://127.0.0.1/",
  "https://127.1/", // short dotted
  "https://2130706433/", // decimal
  "https://0x7f000001/", // hex
  "https://0x7f.0.0.1/", // hex octet
  "https://0177.0.0.1/", // octal
  "https://017700000001/", // octal whole
  "https://10.0.0.1/",
  "https://192.168.1.1/",
  "https://172.16.0.1/",
  "https://169.254.169.254/latest/meta-data/", // cloud metadata
  "https://0.0.0.0/",
  "https://[::1]/",
  "https://[::]/",
  "https://[::ffff:127.0.0.1]/", // IPv4-mapped IPv6
  "https://[::ffff:7f00:1]/",
  "https://[fe80::1]/",
  "https://[fd00::1]/",
  "https://localhost/",
  "https://LOCALHOST./",
  "https://api.localhost/",
  "https://printer.local/",
  "https://db.internal/",
  "https://metadata.google.internal/",
  "https://router.home.arpa/",
  "https://intranet/", // single label
  "https://localhost../", // every trailing dot
  "https://foo.internal../",
  "https://home.arpa/", // a local suffix on its own
  "https://local/",
  "https://foo.local%2e%2e/", // percent-encoded dots
  "https://a..example.com/", // empty label
  "https://\tlocalhost/", // tab, which the parser drops
  "https://local\nhost/", // newline, likewise
  "https:\\\\localhost\\", // backslashes, which the parser reads as slashes
  "https://localhost\u3002/", // an ideographic full stop
  "https://ｌｏｃａｌｈｏｓｔ/", // fullwidth letters
  "https://127.0.0.1./",
  "not a url",
  // Public names that resolve to inside: wildcard DNS services mapping names to addresses ...
  "https://127.0.0.1.nip.io/",
  "https://169.254.169.254.nip.io/latest/meta-data/",
  "https://10-0-0-1.sslip.io/",
  "https://app.localtest.me/",
  "https://localtest.me/",
  "https://lvh.me/",
  "https://x.traefik.me/",
  // ... and special-use names (RFC 6761, RFC 8375, RFC 6762, RFC 7686, RFC 9476) and names never delegated.
  "https://localhost.localdomain/",
  "https://kubernetes.default.svc/",
  "https://kubernetes.default.svc.cluster.local/",
  "https://hooks.test/",
  "https://hooks.invalid/",
  "https://abcdefghijklmnop.onion/",
  "https://hooks.alt/",
  "https://1.0.0.127.in-addr.arpa/",
  "https://nas.lan/",
  "https://mail.corp/",
  `https://${"a".repeat(2040)}.example.com/`,
];

describe("checkWebhookUrl", () => {
  it("has at least 25 hostile cases", () => expect(HOSTILE.length).toBeGreaterThanOrEqual(25));

  it.each(HOSTILE)("refuses %s", (url) => {
    expect(checkWebhookUrl(url).ok).toBe(false);
    // The development allowance is for exactly 127.0.0.1, and only that.
    if (!/^https?:\/\/127\.0\.0\.1\//.test(url)) expect(checkWebhookUrl(url, { allowLoopback: true }).ok).toBe(false);
  });

  it.each([
    "https://hooks.example.com/vdp",
    "https://hooks.example.com:8443/a?b=c",
    "https://xn--bcher-kva.example/",
    "https://0xabc.example.com/",
    "https://1.2.3.example.com/",
  ])("accepts %s", (url) => {
    expect(checkWebhookUrl(url)).toEqual({ ok: true, url: new URL(url).toString() });
  });

  it("allows http and https to exactly 127.0.0.1, any port, only in development", () => {
    for (const url of ["http://127.0.0.1:9000/hook", "https://127.0.0.1/", "http://127.0.0.1/"]) {
      expect(checkWebhookUrl(url).ok).toBe(false);
      expect(checkWebhookUrl(url, { allowLoopback: true }).ok).toBe(true);
    }
    for (const url of [
      "http://localhost:9000/",
      "http://127.0.0.2:9000/",
      "http://2130706433:9000/",
      "http://user:pw@127.0.0.1:9000/",
      "http://[::1]:9000/",
    ]) {
      expect([url, checkWebhookUrl(url, { allowLoopback: true }).ok]).toEqual([url, false]);
    }
  });

  // Only web ports: any other would let a webhook knock on a service that is not a web server.
  it.each([
    "https://example.com:6379/", // Redis
    "https://example.com:80/",
    "https://example.com:8080/",
    "https://example.com:22/",
    "https://example.com:0/",
    "https://example.com:1/",
    "https://example.com:444/",
    "https://example.com:8444/",
    "https://example.com:4430/",
    "https://example.com:84430/",
    "https://example.com:65535/",
    "https://example.com:65536/", // past the last port: the parser refuses it
    "https://example.com:99999999999/",
    "https://example.com:00080/", // leading zeros are still port 80
    "https://example.com:+443/",
    "https://example.com:443a/",
    "https://example.com.:6379/",
    "HTTPS://EXAMPLE.COM:6379/",
    "https://hooks.example.com:6379@example.com/", // user info, whatever it looks like
  ])("refuses the port of %s, in development too", (url) => {
    expect(checkWebhookUrl(url).ok).toBe(false);
    expect(checkWebhookUrl(url, { allowLoopback: true }).ok).toBe(false);
  });

  it.each([
    ["https://hooks.example.com:443/x", "https://hooks.example.com/x"],
    ["https://hooks.example.com:0443/x", "https://hooks.example.com/x"],
    ["https://hooks.example.com:000443/x", "https://hooks.example.com/x"],
    ["https://hooks.example.com:/x", "https://hooks.example.com/x"],
    ["https://hooks.example.com:8443/x", "https://hooks.example.com:8443/x"],
    ["https://hooks.example.com:08443/x", "https://hooks.example.com:8443/x"],
  ])("accepts the web port of %s and keeps %s, the URL that will be sent to", (url, kept) => {
    expect(checkWebhookUrl(url)).toEqual({ ok: true, url: kept });
  });

  it("keeps any port on exactly 127.0.0.1 in development, and only there", () => {
    for (const url of ["http://127.0.0.1:6379/", "https://127.0.0.1:22/", "http://127.0.0.1:65535/hook"]) {
      expect([url, checkWebhookUrl(url).ok]).toEqual([url, false]);
      expect([url, checkWebhookUrl(url, { allowLoopback: true }).ok]).toEqual([url, true]);
    }
    expect(checkWebhookUrl("http://127.0.0.1:65536/", { allowLoopback: true }).ok).toBe(false);
  });

  it("normalizes what it accepts", () => {
    expect(checkWebhookUrl("https://Hooks.Example.COM/Path")).toEqual({ ok: true, url: "https://hooks.example.com/Path" });
  });
});
