import { env } from "cloudflare:workers";
import { vi } from "vitest";

/** How a DNS-over-HTTPS resolver answers a name, in its JSON form (application/dns-json). */
export type DohAnswer = (name: string) => Response | Promise<Response>;

/** Cloudflare's answer to a TXT question: each value quoted, as its resolver writes TXT data. */
export function txtAnswer(name: string, values: readonly string[]): Response {
  return Response.json(
    {
      Status: values.length ? 0 : 3,
      TC: false,
      RD: true,
      RA: true,
      AD: false,
      CD: false,
      Question: [{ name, type: 16 }],
      ...(values.length ? { Answer: values.map((value) => ({ name, type: 16, TTL: 300, data: JSON.stringify(value) })) } : {}),
    },
    { headers: { "Content-Type": "application/dns-json" } },
  );
}

/**
 * A DNS-over-HTTPS resolver that holds the TXT records a test publishes. It stands in for fetch, which
 * the Worker shares with the test's isolate, at the configured resolver's URL (DNS_OVER_HTTPS_URL) and
 * refuses any other URL: nothing leaves the machine. `answer` replaces the records (a resolver that fails).
 */
export function fakeDns() {
  const records = new Map<string, string[]>();
  const asked: { url: string; accept: string | null }[] = [];
  let answer: DohAnswer | null = null;
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (!request.url.startsWith(`${env.DNS_OVER_HTTPS_URL}?`)) throw new Error(`the test reached for ${request.url}`);
    asked.push({ url: request.url, accept: request.headers.get("Accept") });
    const name = new URL(request.url).searchParams.get("name") ?? "";
    return answer ? answer(name) : txtAnswer(name, records.get(name) ?? []);
  });
  return {
    asked,
    publish(name: string, ...values: string[]) {
      records.set(name, values);
    },
    answer(with_: DohAnswer | null) {
      answer = with_;
    },
    restore: () => spy.mockRestore(),
  };
}

/**
 * The test world's resolver: every file starts with one that knows no record (NXDOMAIN) at the
 * configured resolver's URL and passes every other request on. A test that publishes records uses
 * fakeDns over it. Without it, a custom domain checked by the cron or the fuzzer reached for the dead
 * port the tests configure, and the runtime logged each refused connection as an uncaught exception.
 */
export function quietDns(): void {
  const passOn = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (!request.url.startsWith(`${env.DNS_OVER_HTTPS_URL}?`)) return passOn(input, init);
    return txtAnswer(new URL(request.url).searchParams.get("name") ?? "", []);
  });
}
