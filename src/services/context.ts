import { eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import type { ApiKeyKind } from "../db/schema";
import type { QueueMessage } from "../events/outbox";
import { ApiError } from "../http/errors";
import type { IdempotencyUnit } from "./idempotency";

/** Who is calling: an organization key acts for one organization; an operator key for none in particular. */
export interface Caller {
  keyId: string;
  kind: ApiKeyKind | "public";
  organizationId: string | null;
}

/** A request with no key (the public routes): tenancy lets it see nothing organization-owned. */
export const PUBLIC_CALLER: Caller = { keyId: "", kind: "public", organizationId: null };

/** What every service function takes first: the database and the caller it must scope to. */
export interface ServiceContext {
  db: Db;
  caller: Caller;
  /** Where committed events go (the queue whose consumer is this Worker). */
  queue: Queue<QueueMessage>;
  /** Runs work after the response (ctx.waitUntil). */
  defer: (work: Promise<unknown>) => void;
  /** This request's Idempotency-Key, if it sent one. */
  idempotency?: IdempotencyUnit;
}

/**
 * The tenancy filter. Every query on an organization-owned table goes through here, so an
 * organization key can never see another organization's rows; operators read across organizations.
 */
export function tenantFilter(ctx: ServiceContext, column: SQLiteColumn): SQL | undefined {
  if (ctx.caller.kind === "operator") return undefined;
  if (ctx.caller.kind === "public") return sql`0`;
  return eq(column, ctx.caller.organizationId!);
}

/**
 * The organization a new record belongs to. Organization keys write for their own organization (naming
 * another is a 422, exactly like naming one that does not exist); operator keys must name one.
 */
export function owningOrganization(ctx: ServiceContext, requested: string | undefined, exists: boolean | undefined): string {
  const pointer = "/data/relationships/organization/data/id";
  if (ctx.caller.kind === "organization") {
    if (requested !== undefined && requested !== ctx.caller.organizationId) {
      throw new ApiError("validation_error", { detail: "organization does not exist.", source: { pointer } });
    }
    return ctx.caller.organizationId!;
  }
  if (requested === undefined) {
    throw new ApiError("validation_error", {
      detail: "An operator key must name the organization (relationships.organization).",
      source: { pointer: "/data/relationships/organization" },
    });
  }
  if (!exists) throw new ApiError("validation_error", { detail: "organization does not exist.", source: { pointer } });
  return requested;
}
