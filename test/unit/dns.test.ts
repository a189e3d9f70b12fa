import { describe, expect, it } from "vitest";
import { dnsOverHttps, txtValue } from "../../src/lib/dns";
import { customDomainProblem } from "../../src/services/custom-domain-claims";

// The DNS-over-HTTPS client, fed answers as resolvers write them (no network: `send` is the fake).

const ENDPOINT = "https://doh.example/dns-query";
const json = (body: unknown) => Response.json(body, { headers: { "Content-Type": "application/dns-json" } });

describe("txtValue", () => {
  it("reads a TXT record's presentation form: quoted strings joined, escapes undone, unquoted as it is", () => {
    expect(txtValue('"abc"')).toBe("abc");
    // A value over 255 bytes travels as several strings of one record.
    expect(txtValue('"0123456789" "abcdef"')).toBe("0123456789abcdef");
    expect(txtValue('"say \\"hi\\" \\\\ \\065"')).toBe('say "hi" \\ A');
    expect(txtValue("v=spf1 -all")).toBe("v=spf1 -all");
    expect(txtValue('""')).toBe("");
  });
});

describe("dnsOverHttps", () => {
  it("asks for TXT in DNS JSON and keeps the TXT answers only", async () => {
    const sent: Request[] = [];
    const resolve = dnsOverHttps(ENDPOINT, async (input, init) => {
      sent.push(new Request(input as RequestInfo, init));
      return json({
        Status: 0,
        Answer: [
          { name: "_vdp-challenge.example.com", type: 5, data: "elsewhere.example.net." },
          { name: "elsewhere.example.net", type: 16, data: '"token"' },
          { name: "elsewhere.example.net", type: 16, data: '"part one " "part two"' },
        ],
      });
    });
    expect(await resolve("_vdp-challenge.example.com")).toEqual({ ok: true, values: ["token", "part one part two"] });
    expect(sent.map((r) => [r.url, r.headers.get("Accept")])).toEqual([
      [`${ENDPOINT}?name=_vdp-challenge.example.com&type=TXT`, "application/dns-json"],
    ]);
  });

  it("reads a name that does not exist, or holds no TXT, as no values, and anything else as no answer with its reason", async () => {
    const answering = (res: () => Response) => dnsOverHttps(ENDPOINT, async () => res());
    expect(await answering(() => json({ Status: 3 }))("x.example")).toEqual({ ok: true, values: [] });
    expect(await answering(() => json({ Status: 0 }))("x.example")).toEqual({ ok: true, values: [] });
    const reasons = await Promise.all(
      [
        () => json({ Status: 2 }),
        () => json({ Status: 5 }),
        () => json({ Status: 9 }),
        () => new Response("nope", { status: 429 }),
        () => new Response("not json"),
        () => json({ Answer: [] }),
      ].map(async (res) => ((await answering(res)("x.example")) as { reason: string }).reason),
    );
    expect(reasons).toEqual([
      "The DNS-over-HTTPS resolver could not resolve x.example (SERVFAIL).",
      "The DNS-over-HTTPS resolver could not resolve x.example (REFUSED).",
      "The DNS-over-HTTPS resolver could not resolve x.example (response code 9).",
      "The DNS-over-HTTPS resolver answered HTTP 429.",
      "The DNS-over-HTTPS resolver did not answer in DNS JSON.",
      "The DNS-over-HTTPS resolver did not answer in DNS JSON.",
    ]);
    const down = dnsOverHttps(ENDPOINT, async () => {
      throw new TypeError("fetch failed");
    });
    expect(await down("x.example")).toEqual({ ok: false, reason: "The DNS-over-HTTPS resolver could not be reached (fetch failed)." });
  });
});

describe("customDomainProblem", () => {
  it("refuses the platform's host and names under it, not its parent or look-alikes", () => {
    const origin = "https://vdp.example.com";
    for (const host of ["vdp.example.com", "a.vdp.example.com", "a.b.vdp.example.com"])
      expect([host, customDomainProblem(host, origin)]).toEqual([
        host,
        expect.stringContaining("this platform's own host (vdp.example.com)"),
      ]);
    for (const host of ["example.com", "xvdp.example.com", "vdp.example.com.evil.example", "vdp.example.co"])
      expect([host, customDomainProblem(host, origin)]).toEqual([host, null]);
    // The origin as configured: any case, a port, a trailing dot.
    expect(customDomainProblem("vdp.example.com", "https://VDP.Example.com.:8443")).toMatch(/own host/);
  });
});
