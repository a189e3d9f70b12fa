import { getTableName, type Table } from "drizzle-orm";
import {
  advisories,
  advisoryRevisions,
  advisoryVulns,
  apiKeys,
  assets,
  attachments,
  auditEvents,
  briefs,
  comments,
  contacts,
  deadlineAlerts,
  deletedReportTokens,
  directories,
  directoryListingItems,
  cannedResponses,
  directoryListings,
  events,
  idempotencyKeys,
  inboundEmails,
  reporterKeyRecords,
  vulnSignatures,
  vulnLshBands,
  vulnFingerprints,
  vulnSimilarities,
  gateMarks,
  briefGateState,
  members,
  notifications,
  organizations,
  passkeys,
  policies,
  policyAssets,
  policyVersions,
  regulatoryReports,
  sessions,
  signInFailures,
  signInLinks,
  vulnAssets,
  vulnCounts,
  vulnRecords,
  vulns,
  webauthnChallenges,
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
  webhooks,
  tenants,
  catalogNames,
  shardRooms,
  shardMoves,
  tenantFences,
} from "../db/schema";
import { actsForOrganization, type Caller, type Scope } from "../lib/caller";
import { InsufficientScope } from "../lib/domain-errors";

/**
 * What the checks read of a service context: its caller, and the change a write service said it makes
 * (a ServiceContext is one; named apart so the tenancy filter's module and this one do not import each other).
 */
interface Acting {
  caller: Caller;
  changing?: Scope;
}

// How scopes are enforced, for a key and a member alike (a member's role is a set of scopes, see
// ROLE_SCOPES), and only for callers that act for an organization: operators, reporters and the public
// keep their own rules. Three checks, none of which a service can leave out by forgetting:
//   - reading: the tenancy filter (tenantFilter), which every query of organization data goes through,
//     needs `read`;
//   - writing: commit refuses a plan before its batch runs when the caller lacks the scope of a table
//     the plan writes (CHANGE_SCOPE below; a table missing from it is refused too, see the unit test);
//   - a write service says first which change it makes (mayChange): that refuses before anything is
//     read, uploaded or sent, and lets a key that may make the change but not read everything (a
//     `vulns`-only key) read what the change itself reads and answers. Left out, the write is still
//     refused or allowed by commit, only a write-only key's reads then ask for `read`.

/**
 * The scope each table's change needs. Null: rows that come with a change of another table (events,
 * e-mails, audit rows, Idempotency-Key records) or are a person's own (sign-in, sessions, passkeys,
 * which the members' services guard themselves).
 */
const CHANGE_SCOPE: ReadonlyMap<string, Scope | null> = new Map(
  (
    [
      [vulns, "vulns"],
      [vulnAssets, "vulns"],
      [vulnCounts, "vulns"],
      [vulnRecords, "vulns"],
      [deadlineAlerts, "vulns"],
      [comments, "vulns"],
      [attachments, "vulns"],
      [regulatoryReports, "vulns"],
      [deletedReportTokens, "vulns"],
      [inboundEmails, "vulns"],
      [reporterKeyRecords, "vulns"],
      [vulnSignatures, "vulns"],
      [vulnLshBands, "vulns"],
      [vulnFingerprints, "vulns"],
      [vulnSimilarities, "vulns"],
      [gateMarks, "vulns"],
      [briefGateState, "vulns"],
      [advisories, "advisories"],
      [advisoryVulns, "advisories"],
      [advisoryRevisions, "advisories"],
      [organizations, "settings"],
      [policies, "settings"],
      [policyAssets, "settings"],
      [policyVersions, "settings"],
      [briefs, "settings"],
      [assets, "settings"],
      [contacts, "settings"],
      [webhooks, "settings"],
      [webhookSubscriptions, "settings"],
      [webhookDeliveries, "settings"],
      [webhookAttempts, "settings"],
      [directories, "settings"],
      [directoryListings, "settings"],
      [directoryListingItems, "settings"],
      [cannedResponses, "settings"],
      [members, "members"],
      [apiKeys, "members"],
      [events, null],
      [notifications, null],
      [auditEvents, null],
      [idempotencyKeys, null],
      [signInLinks, null],
      [signInFailures, null],
      [sessions, null],
      [passkeys, null],
      [webauthnChallenges, null],
      // The catalog of a sharded deployment: written by the platform as organizations, names and shards change.
      [tenants, null],
      [catalogNames, null],
      [shardRooms, null],
      // An organization's moves between shards, and their fences in the tenant databases (services/shard-moves).
      [shardMoves, null],
      [tenantFences, null],
    ] as [Table, Scope | null][]
  ).map(([table, scope]) => [getTableName(table), scope]),
);

/** The scope a change of `table` needs; undefined for a table nobody has classified (a mistake: refused). */
export function scopeToChange(table: string): Scope | null | undefined {
  return CHANGE_SCOPE.get(table);
}

/** Every table the map classifies, for the test that holds it to the schema. */
export const CLASSIFIED_TABLES: readonly string[] = [...CHANGE_SCOPE.keys()];

function holds(ctx: Acting, scope: Scope): boolean {
  return ctx.caller.scopes.includes(scope);
}

/** Refuses a caller acting for an organization that lacks `scope`; any other caller passes (its own rules apply). */
export function assertScope(ctx: Acting, scope: Scope): void {
  if (actsForOrganization(ctx.caller) && !holds(ctx, scope)) throw new InsufficientScope(scope);
}

/**
 * A write service's first word: the change it makes needs `scope`. Refuses at once without it, so
 * nothing is read, uploaded or sent for a change that cannot happen; with it, the change may read what
 * it needs (and answer with the record) even without `read`.
 */
export function mayChange(ctx: Acting, scope: Exclude<Scope, "read">): void {
  assertScope(ctx, scope);
  ctx.changing = scope;
}

/** The tenancy filter's check: reading organization data needs `read`, or the scope of the change being made. */
export function assertMayRead(ctx: Acting): void {
  if (!actsForOrganization(ctx.caller) || holds(ctx, "read")) return;
  if (ctx.changing && holds(ctx, ctx.changing)) return;
  throw new InsufficientScope("read");
}

/**
 * Commit's check, before the batch: every table the plan writes, by the scope its change needs. A
 * read's own bookkeeping (`partOfRead`: the first read marks a vuln read) needs `read` alone.
 */
export function assertMayWrite(ctx: Acting, tables: readonly string[], partOfRead: boolean): void {
  if (!actsForOrganization(ctx.caller)) return;
  if (partOfRead) {
    assertMayRead(ctx);
    return;
  }
  for (const table of tables) {
    const scope = scopeToChange(table);
    if (scope === undefined) throw new Error(`No scope is said for changes of ${table} (CHANGE_SCOPE in src/services/access.ts).`);
    if (scope !== null) assertScope(ctx, scope);
  }
}
