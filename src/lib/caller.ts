import type { ApiKeyKind } from "../db/schema";

/**
 * Who is calling: an organization key acts for one organization; an operator key for none in
 * particular; a reporter (by its follow-up token) for one report of one organization, and is never
 * an organization: organization-wide rows are out of its reach (see `vulnScope`).
 */
export interface Caller {
  keyId: string;
  kind: ApiKeyKind | "public" | "reporter";
  organizationId: string | null;
  /** The reporter's one report (its vuln id); set for kind "reporter" only. */
  reportId?: string;
}

/** The platform itself (the cron): acts across organizations, like an operator, on rules of its own. */
export const PLATFORM_CALLER: Caller = { keyId: "platform", kind: "operator", organizationId: null };

/** A request with no key (the public routes): tenancy lets it see nothing organization-owned. */
export const PUBLIC_CALLER: Caller = { keyId: "", kind: "public", organizationId: null };
