import { eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import type { ApiKeyKind } from "../db/schema";
import { ApiError } from "../http/errors";

/** Who is calling: an organization key acts for one organization; an operator key for none in particular. */
export interface Caller {
  keyId: string;
  kind: ApiKeyKind;
  organizationId: string | null;
}

/** What every service function takes first: the database and the caller it must scope to. */
export interface ServiceContext {
  db: Db;
  caller: Caller;
}

export function isOperator(ctx: ServiceContext): boolean {
  return ctx.caller.kind === "operator";
}

/**
 * The tenancy filter. Every query on an organization-owned table goes through here, so an
 * organization key can never see another organization's rows; operators read across organizations.
 */
export function tenantFilter(ctx: ServiceContext, column: SQLiteColumn): SQL | undefined {
  if (ctx.caller.kind === "operator") return undefined;
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
