import { and, count, eq, type SQL, sql } from "drizzle-orm";
import { comments, vulns, type CommentAuthor, type CommentRow, type CommentVisibility } from "../db/schema";
import { commentEvent } from "../events/outbox";
import type { Page } from "../db/pagination";
import { nowIso, uuidv7 } from "../lib/ids";
import { vulnScope, type ServiceContext } from "./context";
import { batchOf, where, whenRefused, subquery } from "../db/queries";
import { pageStatements, type Ordering } from "./list-pages";
import { changedRows } from "../db/queries";
import { commit, Plan } from "./unit-of-work";
import { LIMITS } from "../lib/limits";
import { Invalid, NotFound, attribute } from "../lib/domain-errors";
import { returnFromInfoRequest } from "./vulns/info-requests";
import { mayChange } from "./access";

export const MAX_COMMENT_LENGTH = LIMITS.commentLength;

export type CommentRecord = CommentRow;

/**
 * Whose comment this is and which vuln it is on. The organization's side names a vuln its key can
 * see; the reporter's side is the one vuln its token opened, in that vuln's organization.
 */
export interface CommentSide {
  author: CommentAuthor;
  vulnId: string;
  /** The reporter's side only: the organization of the token's vuln. */
  organizationId?: string;
}

const vulnNotFound = () => new NotFound("vuln", "No vuln has that id.");
const commentNotFound = () => new NotFound("comment", "The vuln has no comment with that id.");

/** The vuln, scoped to the caller (the organization's side). */
function vulnRead(ctx: ServiceContext, vulnId: string) {
  return ctx.db
    .select({ id: vulns.id })
    .from(vulns)
    .where(where(eq(vulns.id, vulnId), vulnScope(ctx, vulns.organizationId, vulns.id)));
}

/**
 * A comment's row, its Vuln::Comment::Created and its audit row, into `p`. The row takes its
 * organization from a subquery that is NULL unless the vuln is there, in that organization (and
 * matches `also`), when the batch runs: NOT NULL then refuses the whole batch.
 */
export function planComment(ctx: ServiceContext, p: Plan<unknown>, { record, also = sql`` }: { record: CommentRecord; also?: SQL }): void {
  const guardedOrganization = subquery<string>`(SELECT ${vulns.organizationId} FROM ${vulns} WHERE ${vulns.id} = ${record.vulnId} AND
    ${vulns.organizationId} = ${record.organizationId}${also})`;
  const created = commentEvent(ctx.db, record.id, record.createdAt);
  p.add(ctx.db.insert(comments).values({ ...record, organizationId: guardedOrganization }))
    .add(created.statement, created.event)
    .audits({
      action: "comment.create",
      target: { type: "comment", id: record.id },
      changed: ["visibility"],
      organizationId: record.organizationId,
    });
}

/**
 * Adds a comment and its Vuln::Comment::Created in one batch, with no read before it: the vuln's
 * organization comes from a subquery that is NULL unless the vuln is there (and the caller's) when
 * the batch runs, so a comment on a vuln that is gone, or not the caller's, is refused by NOT NULL
 * with its event and the Idempotency-Key's stored answer.
 */
export async function createComment(
  ctx: ServiceContext,
  side: CommentSide,
  input: {
    body: string;
    visibility: CommentVisibility;
    /** More of the same change, in the comment's own batch (an e-mailed reply records its Message-ID). */
    also?: (p: Plan<CommentRecord>) => void;
  },
): Promise<CommentRecord> {
  mayChange(ctx, "vulns");
  const organizationId = side.organizationId ?? ctx.caller.organizationId;
  if (!organizationId) throw vulnNotFound();
  const now = nowIso();
  const record: CommentRecord = {
    id: uuidv7(),
    vulnId: side.vulnId,
    organizationId,
    author: side.author,
    // The reporter has no internal notes: what it writes is the conversation.
    visibility: side.author === "reporter" ? "reporter" : input.visibility,
    body: input.body,
    createdAt: now,
  };
  // A reply meant for the reporter needs one: a vuln the organization entered itself (no follow-up
  // token) has nobody to read it, and the guard refuses it too; only then is the vuln read, to tell which.
  const needsReporter = side.author === "organization" && record.visibility === "reporter";
  const hasReporter = needsReporter ? sql` AND ${vulns.followUpTokenHash} IS NOT NULL` : sql``;
  const p = new Plan(record);
  planComment(ctx, p, { record, also: hasReporter });
  // The reporter's answer ends a request for more information.
  if (side.author === "reporter") returnFromInfoRequest(ctx.db, p, { vulnId: side.vulnId, now });
  input.also?.(p);
  await whenRefused(
    () => commit(ctx, p, ctx.respond),
    async () => {
      if (needsReporter) {
        const found = await ctx.db
          .select({ id: vulns.id })
          .from(vulns)
          .where(and(eq(vulns.id, side.vulnId), eq(vulns.organizationId, organizationId)))
          .get();
        if (found) {
          throw Invalid.at(
            attribute("visibility"),
            "This report has no reporter to read a reply (the organization entered it through POST /v1/vulns): use visibility internal.",
          );
        }
      }
      throw vulnNotFound();
    },
  );
  return record;
}

const ORDERINGS: Record<"created_at" | "-created_at", Ordering> = {
  created_at: { name: "created_at", column: comments.createdAt, field: "createdAt", id: comments.id, descending: false },
  "-created_at": { name: "-created_at", column: comments.createdAt, field: "createdAt", id: comments.id, descending: true },
};

/**
 * A page of a vuln's comments and their total, with the vuln's existence, in one round trip. The
 * reporter's side sees `reporter` comments only; its vuln was found by its token in this request.
 */
export async function listComments(
  ctx: ServiceContext,
  side: CommentSide,
  { page, sort = "created_at" }: { page: Page; sort?: "created_at" | "-created_at" },
) {
  const reporter = side.author === "reporter";
  const ofVuln = and(
    eq(comments.vulnId, side.vulnId),
    vulnScope(ctx, comments.organizationId, comments.vulnId),
    reporter ? eq(comments.visibility, "reporter") : undefined,
  );
  const spec = pageStatements<CommentRecord>({
    ordering: ORDERINGS[sort],
    page,
    rows: ({ seek, order, limit, offset }) =>
      ctx.db
        .select()
        .from(comments)
        .where(and(ofVuln, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => ctx.db.select({ id: comments.id }).from(comments).where(and(ofVuln, at)).limit(1),
    total: ctx.db.select({ total: count() }).from(comments).where(ofVuln),
  });
  if (reporter) return spec.read(await batchOf(ctx.db, spec.statements));
  const [found, ...results] = await batchOf(ctx.db, [vulnRead(ctx, side.vulnId), ...spec.statements]);
  if (!(found as unknown[]).length) throw vulnNotFound();
  return spec.read(results);
}

/** One comment of a vuln the caller can see: 404 vuln_not_found for the vuln, not_found for the comment. */
export async function getComment(ctx: ServiceContext, vulnId: string, commentId: string): Promise<CommentRecord> {
  const [found, rows] = await ctx.db.batch([
    vulnRead(ctx, vulnId),
    ctx.db
      .select()
      .from(comments)
      .where(and(eq(comments.id, commentId), eq(comments.vulnId, vulnId), vulnScope(ctx, comments.organizationId, comments.vulnId))),
  ]);
  if (!found[0]) throw vulnNotFound();
  if (!rows[0]) throw commentNotFound();
  return rows[0];
}

/** One comment of the reporter's conversation: an internal note answers exactly like no comment. */
export async function getReporterComment(ctx: ServiceContext, vulnId: string, commentId: string): Promise<CommentRecord> {
  const row = await ctx.db
    .select()
    .from(comments)
    .where(
      and(
        eq(comments.id, commentId),
        eq(comments.vulnId, vulnId),
        eq(comments.visibility, "reporter"),
        vulnScope(ctx, comments.organizationId, comments.vulnId),
      ),
    )
    .get();
  if (!row) throw commentNotFound();
  return row;
}

/**
 * Deletes a comment (the organization's side only). Once a reporter-visible reply is gone, the
 * reporter no longer sees it; a webhook that already carried it is not called back.
 */
export async function deleteComment(ctx: ServiceContext, vulnId: string, commentId: string): Promise<void> {
  mayChange(ctx, "vulns");
  const p = new Plan(null);
  const found = p.track<unknown[]>(vulnRead(ctx, vulnId));
  const deleted = p.track(
    ctx.db
      .delete(comments)
      .where(and(eq(comments.id, commentId), eq(comments.vulnId, vulnId), vulnScope(ctx, comments.organizationId, comments.vulnId))),
  );
  p.audits({ action: "comment.delete", target: { type: "comment", id: commentId } }, { ifChanged: deleted });
  const { results } = await commit(ctx, p);
  if (!found.of(results)[0]) throw vulnNotFound();
  if (changedRows(deleted.of(results)) === 0) throw commentNotFound();
}
