import { API_KEY_SCOPES, type ApiKeyKind, type ApiKeyScope, type MemberRole } from "../db/schema";

/** What a caller may do; see API_KEY_SCOPES. */
export type Scope = ApiKeyScope;

export const ALL_SCOPES: readonly Scope[] = API_KEY_SCOPES;

/** A member's role as scopes, so a member and a key are refused the same things the same way. */
export const ROLE_SCOPES: Readonly<Record<MemberRole, readonly Scope[]>> = {
  owner: ALL_SCOPES,
  triager: ["read", "vulns", "advisories"],
  viewer: ["read"],
};

/**
 * Who is calling: an organization key acts for one organization, and so does a signed-in member (kind
 * "member", within its role's scopes); an operator key for none in particular; a reporter (by its
 * follow-up token) for one report of one organization, and is never an organization: organization-wide
 * rows are out of its reach (see `vulnScope`).
 */
export interface Caller {
  /** The key's id; for a member, the session's (so limits count per signed-in browser). */
  keyId: string;
  kind: ApiKeyKind | "member" | "public" | "reporter";
  organizationId: string | null;
  /** What this caller may do: a key's scopes, a member's role's. */
  scopes: readonly Scope[];
  /** The key's name, or the member's name or address: how the audit log names the actor. */
  name?: string | null;
  /** The signed-in member; set for kind "member" only. */
  member?: { id: string; role: MemberRole };
  /** The reporter's one report (its vuln id); set for kind "reporter" only. */
  reportId?: string;
  /** For an API key: when it stops working (a key it makes may not outlive it), and the address it was last used from. */
  key?: { expiresAt: string | null; lastUsedIp: string | null };
}

/** Whether the caller acts for its one organization (its key, or one of its signed-in members). */
export function actsForOrganization(caller: Caller): caller is Caller & { organizationId: string } {
  return (caller.kind === "organization" || caller.kind === "member") && caller.organizationId !== null;
}

/** The platform itself (the cron): acts across organizations, like an operator, on rules of its own. */
export const PLATFORM_CALLER: Caller = { keyId: "platform", kind: "operator", organizationId: null, scopes: ALL_SCOPES };

/** A request with no key (the public routes): tenancy lets it see nothing organization-owned. */
export const PUBLIC_CALLER: Caller = { keyId: "", kind: "public", organizationId: null, scopes: [] };
