import type { PolicyRow } from "../db/schema";

export type MaturityInput = Pick<
  PolicyRow,
  "publishedAt" | "pointOfContact" | "contactUrl" | "securitytxtUrl" | "inScopeAssets" | "safeHarbor" | "publicDisclosure" | "cvdTimeline"
>;

export function isPublished(publishedAt: string | null, now: string): boolean {
  return publishedAt !== null && publishedAt <= now;
}

/**
 * The disclose.io ladder: each rung needs every rung below it.
 * 0 unpublished or no contact; 1 published with a contact channel; 2 at least one in-scope asset;
 * 3 safe harbor partial or full; 4 safe harbor full; 5 public disclosure within a 1..90 day timeline.
 * Computed on read rather than stored, because publication can be scheduled: time alone changes it.
 */
export function maturityRating(policy: MaturityInput, now: string): number {
  const hasContact = [policy.pointOfContact, policy.contactUrl, policy.securitytxtUrl].some((v) => v !== null && v.trim() !== "");
  if (!isPublished(policy.publishedAt, now) || !hasContact) return 0;
  if (policy.inScopeAssets.length === 0) return 1;
  if (policy.safeHarbor !== "partial" && policy.safeHarbor !== "full") return 2;
  if (policy.safeHarbor !== "full") return 3;
  const timeline = policy.cvdTimeline;
  if (policy.publicDisclosure !== true || timeline === null || timeline < 1 || timeline > 90) return 4;
  return 5;
}
