// TXT records read over DNS-over-HTTPS in its JSON form (application/dns-json), which Cloudflare's
// resolver (https://cloudflare-dns.com/dns-query) and Google's (https://dns.google/resolve) both speak:
// a Worker has no DNS of its own to ask.

/** What a TXT lookup found: the name's TXT values (none when it does not exist), or why there is no answer. */
export type TxtLookup = { ok: true; values: string[] } | { ok: false; reason: string };

/** Looks up the TXT records of a name. Injected where it is used, so tests answer without a network. */
export type TxtResolver = (name: string) => Promise<TxtLookup>;

/** How long a lookup may take before it counts as no answer. */
const LOOKUP_TIMEOUT_MS = 5000;

/** The response codes a resolver answers with (RFC 1035, RFC 6895), for the reason a lookup failed. */
const RCODES: Record<number, string> = { 1: "FORMERR", 2: "SERVFAIL", 4: "NOTIMP", 5: "REFUSED" };
const NOERROR = 0;
const NXDOMAIN = 3;
const TXT = 16;

interface DnsJson {
  Status?: unknown;
  Answer?: { type?: unknown; data?: unknown }[];
}

/**
 * A TXT resolver over the DNS-over-HTTPS endpoint `endpoint` (`?name=...&type=TXT`), sending through
 * `send` (fetch by default). A name that does not exist has no values; an endpoint that cannot be
 * reached, answers an HTTP error or something other than DNS JSON, or cannot resolve the name, gives
 * no answer, with the reason.
 */
export function dnsOverHttps(endpoint: string, send: typeof fetch = (input, init) => fetch(input, init)): TxtResolver {
  return async (name) => {
    const noAnswer = (why: string): TxtLookup => ({ ok: false, reason: `The DNS-over-HTTPS resolver ${why}.` });
    let res: Response;
    try {
      res = await send(`${endpoint}?name=${encodeURIComponent(name)}&type=TXT`, {
        headers: { Accept: "application/dns-json" },
        signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
      });
    } catch (err) {
      return noAnswer(`could not be reached (${(err instanceof Error ? err.message : String(err)).slice(0, 200)})`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      return noAnswer(`answered HTTP ${res.status}`);
    }
    const body = (await res.json().catch(() => null)) as DnsJson | null;
    if (typeof body?.Status !== "number") return noAnswer("did not answer in DNS JSON");
    if (body.Status === NXDOMAIN) return { ok: true, values: [] };
    if (body.Status !== NOERROR) return noAnswer(`could not resolve ${name} (${RCODES[body.Status] ?? `response code ${body.Status}`})`);
    const answers = Array.isArray(body.Answer) ? body.Answer : [];
    return { ok: true, values: answers.flatMap((a) => (a?.type === TXT && typeof a.data === "string" ? [txtValue(a.data)] : [])) };
  };
}

/**
 * A TXT record's value from its presentation form: one or more quoted character strings, joined (a
 * value over 255 bytes is split into several), with `\"`, `\\` and `\DDD` escapes. A resolver that
 * writes the value unquoted (Google's) gives it as it is.
 */
export function txtValue(data: string): string {
  if (!data.startsWith('"')) return data;
  let out = "";
  for (const [, quoted] of data.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    out += quoted!.replace(/\\(\d{3}|.)/g, (_, escaped: string) =>
      /^\d{3}$/.test(escaped) ? String.fromCharCode(Number(escaped)) : escaped,
    );
  }
  return out;
}
