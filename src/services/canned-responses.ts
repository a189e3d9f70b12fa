import { eq } from "drizzle-orm";
import { cannedResponses, type CannedResponseRow, type CommentVisibility } from "../db/schema";
import { isUniqueViolation, where } from "../db/queries";
import { actsForOrganization } from "../lib/caller";
import { Forbidden, Invalid, NotFound, attribute } from "../lib/domain-errors";
import { nowIso, uuidv7 } from "../lib/ids";
import { mayChange } from "./access";
import { sentMembers } from "./audit";
import { readersOf, owningOrganization, tenantFilter, type ServiceContext } from "./context";
import { listPage, type ListQuery } from "./list-pages";
import { commit, Plan } from "./unit-of-work";

// The replies an organization keeps ready for its reports (their placeholders are filled where one is
// used: src/lib/canned-responses.ts). Members read them; owners (the `settings` scope) change them.
// Operators read them and never change them. Each write is one statement: no read first.

export interface CannedResponseInput {
  name?: string;
  body?: string;
  visibility?: CommentVisibility;
}

const notFound = () => new NotFound("canned_response", "No canned response has that id.");

/**
 * A change needs `settings`, and an organization of its own: operators read canned responses, never
 * change them. The console asks it before it checks a form, so a role without it is refused whatever it sent.
 */
export function mayChangeCanned(ctx: ServiceContext): void {
  if (!actsForOrganization(ctx.caller))
    throw new Forbidden("Operator keys read canned responses but never change them; use the organization's key.");
  mayChange(ctx, "settings");
}

/** A name is unique in its organization: the index says so inside the write. */
async function uniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "canned_responses."))
      throw Invalid.at(attribute("name"), "The organization already has a canned response with this name.");
    throw err;
  }
}

export function listCannedResponses(ctx: ServiceContext, { page, sort }: ListQuery) {
  return listPage(readersOf(ctx), cannedResponses, { filter: tenantFilter(ctx, cannedResponses.organizationId), sort, page });
}

export async function getCannedResponse(ctx: ServiceContext, id: string): Promise<CannedResponseRow> {
  const row = await ctx.db
    .select()
    .from(cannedResponses)
    .where(where(eq(cannedResponses.id, id), tenantFilter(ctx, cannedResponses.organizationId)))
    .get();
  if (!row) throw notFound();
  return row;
}

export async function createCannedResponse(
  ctx: ServiceContext,
  input: Required<CannedResponseInput>,
  requestedOrganization: string | undefined,
): Promise<CannedResponseRow> {
  mayChangeCanned(ctx);
  const organizationId = owningOrganization(ctx, requestedOrganization, undefined);
  const now = nowIso();
  const row: CannedResponseRow = { id: uuidv7(), organizationId, ...input, createdAt: now, updatedAt: now };
  const p = new Plan(row)
    .add(ctx.db.insert(cannedResponses).values(row))
    .audits({ action: "canned_response.create", target: { type: "canned_response", id: row.id }, organizationId });
  await uniqueName(() => commit(ctx, p, ctx.respond));
  return row;
}

export async function updateCannedResponse(ctx: ServiceContext, id: string, input: CannedResponseInput): Promise<CannedResponseRow> {
  mayChangeCanned(ctx);
  const p = new Plan(null);
  const updated = p.track<CannedResponseRow[]>(
    ctx.db
      .update(cannedResponses)
      .set({ ...input, updatedAt: nowIso() })
      .where(where(eq(cannedResponses.id, id), tenantFilter(ctx, cannedResponses.organizationId)))
      .returning(),
  );
  p.audits(
    { action: "canned_response.update", target: { type: "canned_response", id }, changed: sentMembers(input) },
    { ifChanged: updated },
  );
  const { results } = await uniqueName(() => commit(ctx, p));
  const row = updated.of(results)[0];
  if (!row) throw notFound();
  return row;
}

export async function deleteCannedResponse(ctx: ServiceContext, id: string): Promise<void> {
  mayChangeCanned(ctx);
  const p = new Plan(null);
  const deleted = p.track<{ id: string }[]>(
    ctx.db
      .delete(cannedResponses)
      .where(where(eq(cannedResponses.id, id), tenantFilter(ctx, cannedResponses.organizationId)))
      .returning({ id: cannedResponses.id }),
  );
  const { results } = await commit(
    ctx,
    p.audits({ action: "canned_response.delete", target: { type: "canned_response", id } }, { ifChanged: deleted }),
  );
  if (!deleted.of(results)[0]) throw notFound();
}
