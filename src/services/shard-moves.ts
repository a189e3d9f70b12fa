import { and, desc, eq, inArray, isNull, lte, notInArray, or, sql } from "drizzle-orm";
import { createDb, type Db } from "../db";
import { findName, findTenant, namesOf } from "../db/catalog";
import { organizations, shardMoves, type ShardMoveRow, type ShardMoveStep, tenants } from "../db/schema";
import { countRows } from "../db/tenant-copy";
import { batchOf, subquery } from "../db/queries";
import { attribute, Conflict, Invalid, NotFound, resource, Unavailable } from "../lib/domain-errors";
import { uuidv7 } from "../lib/ids";
import { loggable } from "../lib/log";
import { type MoveContext, MOVE_TIMING, type Outcome, rollBack, runStep } from "./shard-move-steps";

export { MOVE_PAGES, MOVE_TIMING, type MoveContext } from "./shard-move-steps";

// Moving an organization online from its tenant database to another (`npm run shard -- move`, through
// POST /v1/organizations/{id}/move, and the cron for a move whose command stopped). The move's state is
// its row in the catalog (shard_moves); each advance takes the row for a while (so the command and the
// cron never work it at once), runs one bounded piece of the next step (src/services/shard-move-steps.ts)
// and writes where it got to. docs/scale.md says what each step does and why.

const FINISHED: ShardMoveStep[] = ["done", "rolled_back"];
/** Before the switch a move can still go back; after it, only forward. */
const BEFORE_SWITCH: ShardMoveStep[] = ["fencing", "settling", "copying", "verifying"];

const iso = (ms: number) => new Date(ms).toISOString();
const catalogOf = (ctx: MoveContext): Db => createDb(ctx.shards.catalog.withSession("first-primary"));

/**
 * The organization an operator names by its id or its slug, where the catalog places it. One database has
 * no catalog of its own, nor another database to move one to: a known organization is a 409 there, an
 * unknown one a 404 as anywhere.
 */
async function resolve(
  ctx: MoveContext,
  catalog: Db,
  organization: string,
): Promise<{ id: string; shard: string; movingTo: string | null }> {
  if (!ctx.shards.sharded) {
    const known = await catalog
      .select({ id: organizations.id })
      .from(organizations)
      .where(or(eq(organizations.id, organization), eq(organizations.slug, organization)))
      .get();
    if (!known) throw new NotFound("organization", `No organization has the id or slug ${organization}.`);
    throw new Conflict("This deployment keeps every organization in one database (DB): there is no other database to move one to.");
  }
  const byId = await findTenant(catalog, organization);
  const found = byId ?? (await findName(catalog, { kind: "organization_slug", name: organization }));
  if (!found?.organizationId) throw new NotFound("organization", `No organization has the id or slug ${organization}.`);
  return { id: found.organizationId, shard: found.shard, movingTo: found.movingTo };
}

/** The organization's unfinished move, if any. */
function unfinished(catalog: Db, organizationId: string) {
  return catalog
    .select()
    .from(shardMoves)
    .where(and(eq(shardMoves.organizationId, organizationId), notInArray(shardMoves.step, FINISHED)))
    .get();
}

/** The organization's latest move, finished or not. */
export async function findMove(ctx: MoveContext, organization: string): Promise<ShardMoveRow> {
  const catalog = catalogOf(ctx);
  const { id } = await resolve(ctx, catalog, organization);
  const move = await catalog
    .select()
    .from(shardMoves)
    .where(eq(shardMoves.organizationId, id))
    .orderBy(desc(shardMoves.startedAt), desc(shardMoves.id))
    .get();
  if (!move) throw new NotFound("organization_move", `Organization ${id} was never moved.`);
  return move;
}

/**
 * Starts moving an organization to the tenant database `to`, or, when its move there is under way,
 * advances it. Its writes answer 503 from now until the switch. One batch of the catalog: moving_to set
 * only if the organization is where it was read and not moving, and the move's row only if that held;
 * the unique index refuses a second unfinished move.
 */
export async function startOrAdvanceMove(
  ctx: MoveContext,
  { organization, to, moveId, startedBy }: { organization: string; to: string; moveId?: string; startedBy: string | null },
) {
  const catalog = catalogOf(ctx);
  const tenant = await resolve(ctx, catalog, organization);
  if (moveId) {
    // Advancing a move named by its id: never a new one.
    const named = await catalog
      .select()
      .from(shardMoves)
      .where(and(eq(shardMoves.id, moveId), eq(shardMoves.organizationId, tenant.id)))
      .get();
    if (!named) throw new NotFound("organization_move", `The organization has no move ${moveId}.`, { member: resource({ id: true }) });
    if (named.toShard !== to) throw Invalid.at(attribute("to"), `Move ${moveId} goes to ${named.toShard}.`);
    return { move: FINISHED.includes(named.step) ? named : await advanceMove(ctx, named.id), started: false };
  }
  if (!ctx.shards.names.includes(to))
    throw Invalid.at(attribute("to"), `must be one of this deployment's tenant databases: ${ctx.shards.names.join(", ")}.`);
  const current = await unfinished(catalog, tenant.id);
  if (current) {
    if (current.toShard !== to)
      throw new Conflict(`The organization is moving to ${current.toShard} already; let that move finish or cancel it first.`);
    return { move: await advanceMove(ctx, current.id), started: false };
  }
  if (tenant.shard === to) throw Invalid.at(attribute("to"), `The organization is in ${to} already.`);
  // A move that rolled back deleted what it had copied: rows found there are someone's mistake, not to be mixed in.
  const there = Object.entries(await countRows(ctx.shards.binding(to).withSession("first-primary"), tenant.id)).filter(([, n]) => n > 0);
  if (there.length)
    throw new Conflict(
      `${to} holds rows of this organization already (${there.map(([t, n]) => `${t}: ${n}`).join(", ")}); they must go before it can move there.`,
    );
  const id = uuidv7();
  const at = iso(ctx.now);
  const [, inserted] = await catalog.batch([
    catalog
      .update(tenants)
      .set({ movingTo: to, updatedAt: at })
      .where(and(eq(tenants.organizationId, tenant.id), eq(tenants.shard, tenant.shard), isNull(tenants.movingTo))),
    catalog
      .insert(shardMoves)
      .select(
        catalog
          .select({
            id: sql<string>`${id}`.as("id"),
            organizationId: tenants.organizationId,
            fromShard: tenants.shard,
            toShard: sql<string>`${to}`.as("to_shard"),
            step: sql<ShardMoveStep>`'fencing'`.as("step"),
            tableName: sql<null>`null`.as("table_name"),
            cursor: sql<null>`null`.as("cursor"),
            counts: sql<null>`null`.as("counts"),
            note: sql<null>`null`.as("note"),
            startedBy: sql<string | null>`${startedBy}`.as("started_by"),
            startedAt: sql<string>`${at}`.as("started_at"),
            fencedAt: sql<string>`${at}`.as("fenced_at"),
            switchedAt: sql<null>`null`.as("switched_at"),
            finishedAt: sql<null>`null`.as("finished_at"),
            advancingUntil: sql<null>`null`.as("advancing_until"),
            advancedBy: sql<null>`null`.as("advanced_by"),
            updatedAt: sql<string>`${at}`.as("updated_at"),
          })
          .from(tenants)
          .where(and(eq(tenants.organizationId, tenant.id), eq(tenants.movingTo, to), sql`changes() > 0`)),
      )
      .returning(),
  ]);
  const move = (inserted as ShardMoveRow[])[0];
  if (!move) throw new Conflict("The organization is moving already, or moved while this request was made; read its move and try again.");
  await ctx.forget(tenant.id, await namesOf(catalog, tenant.id));
  return { move, started: true };
}

/**
 * Advances a move by one bounded piece of its next step, and answers its row as that left it. While
 * another caller advances it, answers its row as it is.
 */
export async function advanceMove(ctx: MoveContext, id: string): Promise<ShardMoveRow> {
  const catalog = catalogOf(ctx);
  const token = uuidv7();
  const nowIso = iso(ctx.now);
  const [taken] = await catalog
    .update(shardMoves)
    .set({ advancingUntil: iso(ctx.now + MOVE_TIMING.advanceMs), advancedBy: token })
    .where(
      and(
        eq(shardMoves.id, id),
        notInArray(shardMoves.step, FINISHED),
        or(isNull(shardMoves.advancingUntil), lte(shardMoves.advancingUntil, nowIso)),
      ),
    )
    .returning();
  if (!taken) {
    const row = await catalog.select().from(shardMoves).where(eq(shardMoves.id, id)).get();
    if (!row) throw new NotFound("organization_move", `No move ${id}.`);
    return row;
  }
  const ours = and(eq(shardMoves.id, id), eq(shardMoves.advancedBy, token));
  let outcome: Outcome;
  try {
    outcome = await runStep(ctx, taken, () => namesOf(catalog, taken.organizationId));
  } catch (err) {
    // Given back for the next caller; if this fails too, the hold ends by itself.
    await catalog
      .update(shardMoves)
      .set({ advancingUntil: null, advancedBy: null })
      .where(ours)
      .catch(() => {});
    throw err;
  }
  const held = subquery`EXISTS (SELECT 1 FROM shard_moves WHERE ${shardMoves.id} = ${id} AND ${shardMoves.advancedBy} = ${token})`;
  const catalogChange =
    outcome.catalog === "switch"
      ? [
          catalog
            .update(tenants)
            .set({ shard: taken.toShard, movingTo: null, updatedAt: nowIso })
            .where(and(eq(tenants.organizationId, taken.organizationId), eq(tenants.movingTo, taken.toShard), held)),
        ]
      : outcome.catalog === "release"
        ? [
            catalog
              .update(tenants)
              .set({ movingTo: null, updatedAt: nowIso })
              .where(and(eq(tenants.organizationId, taken.organizationId), eq(tenants.movingTo, taken.toShard), held)),
          ]
        : [];
  const results = await batchOf(catalog, [
    ...catalogChange,
    catalog
      .update(shardMoves)
      .set({ ...outcome.changes, advancingUntil: null, advancedBy: null, updatedAt: nowIso })
      .where(ours)
      .returning(),
  ]);
  const row = (results.at(-1) as ShardMoveRow[])[0];
  if (!row) throw new Unavailable("The move was taken over by another caller while this one advanced it; read its state again.", 5);
  await outcome.after?.();
  return row;
}

/** Rolls back an organization's move that has not switched yet; after the switch it can only finish. */
export async function cancelMove(ctx: MoveContext, organization: string): Promise<ShardMoveRow> {
  const catalog = catalogOf(ctx);
  const { id } = await resolve(ctx, catalog, organization);
  const move = await unfinished(catalog, id);
  if (!move) throw new NotFound("organization_move", "The organization has no move under way.");
  if (move.step === "rolling_back") return advanceMove(ctx, move.id);
  if (!BEFORE_SWITCH.includes(move.step))
    throw new Conflict(
      `The move switched the organization to ${move.toShard} already: it can only finish (npm run shard -- move resumes it).`,
    );
  const [cancelled] = await catalog
    .update(shardMoves)
    .set({ ...rollBack("cancelled by an operator"), updatedAt: iso(ctx.now) })
    .where(
      and(
        eq(shardMoves.id, move.id),
        inArray(shardMoves.step, BEFORE_SWITCH),
        or(isNull(shardMoves.advancingUntil), lte(shardMoves.advancingUntil, iso(ctx.now))),
      ),
    )
    .returning();
  if (!cancelled) throw new Unavailable("The move is being advanced right now; cancel it again in a few seconds.", 5);
  return advanceMove(ctx, move.id);
}

/** The cron's part: every unfinished move advanced once, so a move whose command stopped still ends. */
export async function advanceUnfinishedMoves(ctx: MoveContext): Promise<ShardMoveRow[]> {
  if (!ctx.shards.sharded) return [];
  const moves = await catalogOf(ctx).select({ id: shardMoves.id }).from(shardMoves).where(notInArray(shardMoves.step, FINISHED));
  const advanced: ShardMoveRow[] = [];
  for (const { id } of moves) {
    try {
      advanced.push(await advanceMove(ctx, id));
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "error",
          message: "a shard move could not advance; the next run tries again",
          move_id: id,
          ...loggable(err as Error),
        }),
      );
    }
  }
  return advanced;
}

/** Whether any move is under way (the orphan purge waits: an object's row may be between databases). */
export async function anyMoveUnderWay(ctx: Pick<MoveContext, "shards">): Promise<boolean> {
  if (!ctx.shards.sharded) return false;
  const row = await createDb(ctx.shards.catalog.withSession("first-primary"))
    .select({ id: shardMoves.id })
    .from(shardMoves)
    .where(notInArray(shardMoves.step, FINISHED))
    .get();
  return row !== undefined;
}
