import { env } from "cloudflare:workers";
import type { PolicyRow } from "../db/schema";
import type { CatalogName } from "../db/catalog";
import { isUniqueViolation } from "../db/queries";
import { toHex } from "../lib/crypto";
import { Invalid, attribute } from "../lib/domain-errors";
import { LIMITS } from "../lib/limits";
import { isSpecialUseName, isUnder, isWildcardDnsName, platformHost } from "../lib/public-hosts";

// A policy's custom_domain serves its organization's security.txt, so naming one is a claim: the domain
// is one policy's on the whole platform (the database's unique index on its lower case decides, even
// between two claims at once), never the platform's own host or a name that is not public, and it
// serves nothing until the organization proves control with a TXT record (custom-domains.ts). A claim
// still unproven after LIMITS.customDomainClaimDays is released, so nobody holds a domain by naming it.

const POINTER = attribute("custom_domain");
const DAY_MS = 86_400_000;

/** The name of the TXT record that proves control of `host`. */
export function challengeName(host: string): string {
  return `_vdp-challenge.${host}`;
}

/** When an unproven claim made at `claimedAt` is released. */
export function claimExpiry(claimedAt: string): string {
  return new Date(Date.parse(claimedAt) + LIMITS.customDomainClaimDays * DAY_MS).toISOString();
}

/** Claims made before `now` - LIMITS.customDomainClaimDays have expired unless proven. */
export function expiredBefore(now: Date): string {
  return new Date(now.getTime() - LIMITS.customDomainClaimDays * DAY_MS).toISOString();
}

/**
 * Why `host` (normalized: lower case, no trailing dot) cannot be a custom domain, or null: the
 * platform's own host or a name under it (its pages, its API: a policy speaking there would speak for
 * the platform), and the names the webhooks' rules also refuse, which no public resolver answers for.
 */
export function customDomainProblem(host: string, publicOrigin: string = env.PUBLIC_ORIGIN): string | null {
  const platform = platformHost(publicOrigin);
  if (isUnder(host, platform)) return `custom_domain must not be this platform's own host (${platform}) or a name under it.`;
  if (isSpecialUseName(host)) return "custom_domain must be a public name, not a local, internal or special-use one.";
  if (isWildcardDnsName(host)) return "custom_domain must not be a name of a wildcard-DNS service, which maps names to addresses.";
  return null;
}

export type ClaimColumns = Pick<
  PolicyRow,
  | "customDomain"
  | "customDomainToken"
  | "customDomainClaimedAt"
  | "customDomainCheckedAt"
  | "customDomainFailure"
  | "customDomainVerifiedAt"
>;

/** A policy without a custom domain: no claim. */
export const NO_CLAIM: ClaimColumns = {
  customDomain: null,
  customDomainToken: null,
  customDomainClaimedAt: null,
  customDomainCheckedAt: null,
  customDomainFailure: null,
  customDomainVerifiedAt: null,
};

/**
 * The columns a write sets for a requested custom_domain (undefined: not sent). The same domain again
 * keeps its claim and its proof; another domain is a new claim, with a TXT value of its own (128
 * random bits), so neither an earlier proof nor an earlier claimant's record counts for it.
 */
export function claimColumns(
  requested: string | null | undefined,
  current: Pick<PolicyRow, "customDomain" | "customDomainToken"> | null,
  now: string,
): Partial<ClaimColumns> {
  if (requested === undefined) return {};
  if (requested === null) return NO_CLAIM;
  if (current?.customDomainToken && current.customDomain?.toLowerCase() === requested) return {};
  const problem = customDomainProblem(requested);
  if (problem) throw Invalid.at(POINTER, problem);
  return {
    ...NO_CLAIM,
    customDomain: requested,
    customDomainToken: toHex(crypto.getRandomValues(new Uint8Array(16))),
    customDomainClaimedAt: now,
  };
}

/** A custom domain's name in the catalog of a sharded deployment: lower case, as the unique index compares it. */
export function domainNames(domain: string | null | undefined): CatalogName[] {
  return domain ? [{ kind: "domain", name: domain.toLowerCase() }] : [];
}

/** A write that names a custom domain another policy holds: the unique index refuses it inside the write. */
export async function claimGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "policies_custom_domain_unique_idx"))
      throw Invalid.at(
        POINTER,
        "custom_domain is already the custom domain of another policy on this platform; a domain serves one policy.",
      );
    throw err;
  }
}
