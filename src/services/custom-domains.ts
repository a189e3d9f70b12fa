import { and, asc, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { policies, type PolicyRow } from "../db/schema";
import type { TxtResolver } from "../lib/dns";
import { Conflict, NotFound, Unprocessable } from "../lib/domain-errors";
import { nowIso } from "../lib/ids";
import { assertOperatorMayChange, type ServiceContext } from "./context";
import { challengeName, type ClaimColumns, customDomainProblem, domainNames, expiredBefore, NO_CLAIM } from "./custom-domain-claims";
import { getPolicy, type PolicyRecord, readForWrite } from "./policies";
import { commit, Plan } from "./unit-of-work";
import { sentMembers } from "./audit";
import type { Stale } from "../lib/stale";
import { mayChange } from "./access";

// Proof that an organization controls its policy's custom domain: a TXT record at
// _vdp-challenge.<domain> holding the claim's value, looked up over DNS-over-HTTPS when the
// organization asks (POST /v1/policies/{id}/verify_custom_domain) and by the cron every few minutes
// while the claim waits. A lookup's result is written only if the claim is still the one looked up (its
// value), so a domain that changed meanwhile is never verified by its predecessor's record. Proven,
// a domain stays verified until the policy names another; the cron releases a claim never proven.

/** How often the cron looks a waiting claim up again, and how many it looks up in one run. */
export const RECHECK_MS = 5 * 60_000;
export const CHECKS_PER_RUN = 20;

type Claim = Pick<PolicyRow, "id" | "customDomain" | "customDomainToken">;
type Outcome = Pick<ClaimColumns, "customDomainCheckedAt" | "customDomainFailure" | "customDomainVerifiedAt">;

/** Looks the claim's record up: verified when one of the TXT values is the claim's, else why not. */
async function lookUp(claim: Claim, resolve: TxtResolver, at: string): Promise<Outcome> {
  const host = claim.customDomain!;
  const name = challengeName(host);
  const problem = customDomainProblem(host);
  const found = problem ? { ok: false as const, reason: problem } : await resolve(name);
  const failure = !found.ok
    ? found.reason
    : found.values.some((v) => v.trim() === claim.customDomainToken)
      ? null
      : found.values.length === 0
        ? `No TXT record was found at ${name}.`
        : `The TXT records at ${name} do not hold this policy's record_value.`;
  return { customDomainCheckedAt: at, customDomainFailure: failure, customDomainVerifiedAt: failure ? null : at };
}

/** Writes a lookup's outcome on the claim that was looked up, if it is still that claim and unproven. */
function recordOutcome(ctx: ServiceContext, claim: Claim, outcome: Partial<PolicyRow>) {
  return ctx.db
    .update(policies)
    .set(outcome)
    .where(
      and(eq(policies.id, claim.id), eq(policies.customDomainToken, claim.customDomainToken!), isNull(policies.customDomainVerifiedAt)),
    )
    .returning();
}

/**
 * Looks up the policy's custom domain's record now and records what it found. An unproven claim
 * becomes verified, or keeps waiting with the reason (no record, another value, a resolver that did
 * not answer); a verified one is answered as it is, with no lookup. 422 for a policy without a custom
 * domain or one the rules no longer allow; 409 when the domain changed during the lookup.
 */
export async function verifyCustomDomain(ctx: ServiceContext, id: string, resolve: TxtResolver): Promise<PolicyRecord> {
  mayChange(ctx, "settings");
  const read = await readForWrite(ctx, { policyId: id, assetIds: [] });
  const existing = read.existing;
  if (!existing) throw new NotFound("policy", "No policy has that id.");
  assertOperatorMayChange(ctx, read.ownerClaimed, "policies");
  if (!existing.customDomain || !existing.customDomainToken)
    throw new Unprocessable({ detail: "The policy has no custom_domain to verify: set one first." });
  if (existing.customDomainVerifiedAt) return existing;
  const problem = customDomainProblem(existing.customDomain);
  if (problem) throw new Unprocessable({ detail: `${problem} Name another custom_domain.` });

  const outcome = await lookUp(existing, resolve, nowIso());
  const p = new Plan(null);
  const rows = p.track<PolicyRow[]>(recordOutcome(ctx, existing, outcome));
  p.audits(
    {
      action: "policy.verify_custom_domain",
      target: { type: "policy", id },
      changed: sentMembers(outcome),
      organizationId: existing.organizationId,
    },
    { ifChanged: rows },
  );
  const { results } = await commit(
    ctx,
    p.evicts((r) => staleOfVerified(rows.of(r))),
  );
  const row = rows.of(results)[0];
  if (!row) {
    // Verified meanwhile by another request (or the cron) is the answer this one was after.
    const now = await getPolicy(ctx, id);
    if (now.customDomainToken === existing.customDomainToken && now.customDomainVerifiedAt) return now;
    throw new Conflict(
      "The policy's custom_domain changed while its record was looked up; read the policy again and verify the new claim.",
    );
  }
  return { ...row, briefIds: existing.briefIds, assetIds: existing.assetIds };
}

/**
 * The cron's part: the unproven claims checked longest ago (CHECKS_PER_RUN at most, each at most every
 * RECHECK_MS) are looked up, and those older than LIMITS.customDomainClaimDays released instead. Two
 * round trips when any claim is due, one when none is.
 */
export async function checkCustomDomainClaims(ctx: ServiceContext, resolve: TxtResolver, now: Date): Promise<void> {
  const due = await ctx.db
    .select({
      id: policies.id,
      customDomain: policies.customDomain,
      customDomainToken: policies.customDomainToken,
      customDomainClaimedAt: policies.customDomainClaimedAt,
      organizationId: policies.organizationId,
    })
    .from(policies)
    .where(
      and(
        isNotNull(policies.customDomain),
        isNull(policies.customDomainVerifiedAt),
        or(isNull(policies.customDomainCheckedAt), lt(policies.customDomainCheckedAt, new Date(now.getTime() - RECHECK_MS).toISOString())),
      ),
    )
    .orderBy(asc(policies.customDomainCheckedAt))
    .limit(CHECKS_PER_RUN);
  if (due.length === 0) return;
  const at = now.toISOString();
  const expired = expiredBefore(now);
  const outcomes = await Promise.all(
    due.map(async (claim) =>
      // A release changes what the policy says, so it moves updated_at: a change read before it conflicts.
      claim.customDomainClaimedAt! < expired ? { ...NO_CLAIM, updatedAt: at } : await lookUp(claim, resolve, at),
    ),
  );
  const p = new Plan(null);
  const rows = due.map((claim, i) => {
    const outcome = outcomes[i]!;
    const row = p.track<PolicyRow[]>(recordOutcome(ctx, claim, outcome));
    const { updatedAt: _, ...changed } = outcome as Partial<PolicyRow>;
    const action = "customDomain" in outcome ? "policy.release_custom_domain" : "policy.verify_custom_domain";
    p.audits(
      { action, target: { type: "policy", id: claim.id }, changed: sentMembers(changed), organizationId: claim.organizationId },
      { ifChanged: row },
    );
    return row;
  });
  const { results } = await commit(
    ctx,
    p.evicts((r) => staleOfVerified(rows.flatMap((h) => h.of(r)))),
  );
  // A released claim gives its domain back to the catalog of a sharded deployment, for any organization to name.
  const released = due.filter((_, i) => "customDomain" in outcomes[i]! && rows[i]!.of(results).length > 0);
  await ctx.catalog?.release(released.flatMap((claim) => domainNames(claim.customDomain)));
}

/** A domain just proven: its security.txt now answers there (nothing of an unproven domain was ever cached). */
function staleOfVerified(rows: PolicyRow[]): Stale {
  return { hosts: rows.flatMap((row) => (row.customDomainVerifiedAt && row.customDomain ? [row.customDomain] : [])) };
}
