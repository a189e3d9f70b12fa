// Which host names belong to the public Internet: the rules of every name the platform is asked to
// reach or to speak for (a webhook's URL, a policy's custom domain). Names only: they take a host
// already lowercased, without trailing dots.

/**
 * Names that never reach the public Internet: the special-use domains (RFC 6761: localhost, invalid,
 * test; RFC 8375: home.arpa; RFC 6762: local; RFC 7686: onion; RFC 9476: alt), the reverse-lookup zones,
 * and suffixes ICANN will not delegate or networks use privately (internal, localdomain, lan, home,
 * corp, intranet, private, and Kubernetes' svc). `example.*` stays allowed: RFC 6761 asks applications
 * to treat it as any other name.
 */
const SPECIAL_USE = [
  "localhost",
  "invalid",
  "test",
  "home.arpa",
  "local",
  "onion",
  "alt",
  "in-addr.arpa",
  "ip6.arpa",
  "internal",
  "localdomain",
  "lan",
  "home",
  "corp",
  "intranet",
  "private",
  "svc",
];

/**
 * Public wildcard-DNS services: any name under them resolves to the address it spells
 * (127.0.0.1.nip.io, 10-0-0-1.sslip.io) or to loopback (*.localtest.me), so a guard that reads names
 * only would let them through. A documented list, not a complete one: see "Where a webhook may point"
 * in docs/webhooks.md for what remains and why Cloudflare's egress bounds it.
 */
const WILDCARD_DNS = [
  "nip.io",
  "sslip.io",
  "xip.io",
  "nip.direct",
  "traefik.me",
  "localtest.me",
  "lvh.me",
  "vcap.me",
  "fuf.me",
  "localho.st",
  "lacolhost.com",
  "1u.ms",
  "rbndr.us",
];

/** Whether `host` is `name` itself or a name under it. */
export function isUnder(host: string, name: string): boolean {
  return host === name || host.endsWith(`.${name}`);
}

/** A special-use, local or never-delegated name (see SPECIAL_USE). */
export function isSpecialUseName(host: string): boolean {
  return SPECIAL_USE.some((name) => isUnder(host, name));
}

/** A name of a public wildcard-DNS service (see WILDCARD_DNS). */
export function isWildcardDnsName(host: string): boolean {
  return WILDCARD_DNS.some((name) => isUnder(host, name));
}

/** The platform's own host, from its origin (PUBLIC_ORIGIN), lowercased. */
export function platformHost(publicOrigin: string): string {
  return new URL(publicOrigin).hostname.toLowerCase().replace(/\.+$/, "");
}
