import { isSpecialUseName, isWildcardDnsName } from "../lib/public-hosts";
import { LIMITS } from "../lib/limits";

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export interface UrlPolicy {
  /**
   * Development only: also allow http and https URLs whose host is exactly 127.0.0.1 (any port), so
   * a local receiver works. Set by `npm run dev`; never on by default.
   */
  allowLoopback?: boolean;
}

/**
 * Where a webhook may point: https on a web port (none, 443 or 8443), no user info, no IP literal in
 * any notation, no local, special-use or wildcard-DNS names. Checked on write and again before every send.
 *
 * The WHATWG URL parser does the hard part of "any notation": it rewrites IPv4 written in decimal
 * (2130706433), hex (0x7f.1), octal (0177.0.0.1) or short forms (127.1) to dotted form, and brackets
 * IPv6 (including IPv4-mapped ::ffff:127.0.0.1); so after parsing, an IP literal is either dotted
 * digits or bracketed, and both are refused. Ports likewise: it reads `:0443` as 443 and drops it (the
 * https default), reads `:08443` as 8443, and refuses anything past 65535; only the parsed port is judged,
 * and the URL kept is the parsed one, so what is checked is what is sent.
 */
export function checkWebhookUrl(raw: string, policy: UrlPolicy = {}): UrlCheck {
  if (raw.length > LIMITS.urlLength) return { ok: false, reason: `must be at most ${LIMITS.urlLength} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "must be an absolute https URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "must not carry a user name or password" };
  // Every trailing dot goes ("localhost.." is localhost); an empty label inside is no public name.
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  // "Exactly 127.0.0.1" as written: the parser would also turn 2130706433 or 0x7f.1 into it.
  const loopbackAllowed = policy.allowLoopback === true && /^https?:\/\/127\.0\.0\.1(:\d+)?([/?#]|$)/i.test(raw) && host === "127.0.0.1";
  if (loopbackAllowed) return { ok: true, url: url.toString() };
  if (url.protocol !== "https:") return { ok: false, reason: "must use https" };
  // Any other port would let a webhook knock on services that are not web servers (Redis on 6379 ...).
  if (url.port !== "" && url.port !== "8443") return { ok: false, reason: "must use port 443 or 8443 (or name none)" };
  if (host.startsWith("[") || /^[\d.]+$/.test(host)) return { ok: false, reason: "must name a host, not an IP address" };
  if (isSpecialUseName(host)) return { ok: false, reason: "must not point to a local, internal or special-use name" };
  if (isWildcardDnsName(host)) return { ok: false, reason: "must not use a wildcard-DNS service that maps names to addresses" };
  if (!host.includes(".") || host.split(".").some((label) => label === ""))
    return { ok: false, reason: "must name a public host (a single-label name is local)" };
  return { ok: true, url: url.toString() };
}
