import type { CatalogName } from "../db/catalog";
import type { ShardMoveRow, ShardMoveStep, TableCounts } from "../db/schema";
import type { Shards } from "../db/shards";
import {
  clearDerived,
  countRows,
  deleteRows,
  fenced,
  fenceWhenSettled,
  insertRows,
  pageOf,
  pendingWork,
  readPage,
  readRestored,
  restoreRows,
  unfence,
} from "../db/tenant-copy";
import { DELETION_ORDER, RESTORED, TENANT_TABLES, tenantTable } from "../db/tenant-tables";
import { MAX_SWEEP_SENDS } from "../events/outbox";
import { publishDeliveries, publishNotifications, type QueueMessage, shardQueue } from "../lib/queue";
import { MAX_QUEUE_DELAY_SECONDS } from "../lib/retry-schedule";
import type { Stale } from "../lib/stale";

// The steps of an organization's move between tenant databases (see SHARD_MOVE_STEPS): each reads the
// move's row, does a bounded piece of its work, and answers the changes to its row (and, for the switch
// and the end of a rollback, the catalog's own change, written in the same batch). Every piece is
// idempotent, so a move killed anywhere does it again from its row and ends as it would have.

export const MOVE_TIMING = {
  /** A lookup lives 60 s in the edge cache; the margin covers a request under way and a catalog replica behind. */
  lookupsExpireMs: 90_000,
  /** How long the organization's queue work may take to settle before the move gives up and rolls back. */
  settleMs: 15 * 60_000,
  /** How long one caller (the command, the cron) holds the move while it advances it. */
  advanceMs: 60_000,
};

export const MOVE_PAGES = {
  /** Rows read and written at a time. */
  rows: 50,
  /** Rows deleted at a time (children are gone before their parents, so nothing cascades). */
  deleteRows: 200,
  /** Pages one advance works before it answers. */
  perAdvance: 20,
};

/** What a move needs from its caller: the databases, the queue, the clock, and the edge cache of this data center. */
export interface MoveContext {
  shards: Shards;
  queue: Queue<QueueMessage>;
  now: number;
  /** Drops the cached lookups of the organization and of its names. */
  forget(organizationId: string, names: readonly CatalogName[]): Promise<void>;
  /** Drops the public reads made from its names. */
  evict(stale: Stale): Promise<void>;
  pages?: Partial<typeof MOVE_PAGES>;
}

export type Changes = Partial<Pick<ShardMoveRow, "step" | "tableName" | "cursor" | "counts" | "note" | "switchedAt" | "finishedAt">>;

/** What a step did: the move's row changes, and whether the catalog switches (or unswitches) with them. */
export interface Outcome {
  changes: Changes;
  catalog?: "switch" | "release";
  /** Work once the changes are written (the cached lookups forgotten after the catalog changed). */
  after?: () => Promise<void>;
}

/** The passes of the copy, in order: each table's rows, the restored columns, the derived tables. */
const RESTORE_PASS = `${RESTORED.table}:restore`;
const COPY_PASSES: readonly string[] = [
  ...TENANT_TABLES.filter((t) => !t.derived).map((t) => t.name),
  RESTORE_PASS,
  ...TENANT_TABLES.filter((t) => t.derived).map((t) => t.name),
];

const iso = (ms: number) => new Date(ms).toISOString();
const pagesOf = (ctx: MoveContext) => ({ ...MOVE_PAGES, ...ctx.pages });
const session = (ctx: MoveContext, shard: string) => ctx.shards.binding(shard).withSession("first-primary");

/** The catalog names of an organization, as the edge cache and the public reads know them. */
export function staleOf(names: readonly CatalogName[]): Stale {
  const of = (kind: CatalogName["kind"]) => names.filter((n) => n.kind === kind).map((n) => n.name);
  return {
    briefs: of("brief"),
    policies: of("policy"),
    organizations: of("organization_slug"),
    hosts: of("domain"),
    advisories: of("advisory"),
  };
}

/** The next step's work, from the move's row. */
export async function runStep(ctx: MoveContext, move: ShardMoveRow, names: () => Promise<CatalogName[]>): Promise<Outcome> {
  const steps: Record<ShardMoveStep, () => Promise<Outcome>> = {
    fencing: () => fencing(ctx, move, names),
    settling: () => settling(ctx, move),
    copying: () => copying(ctx, move),
    verifying: () => verifying(ctx, move),
    switching: () => switching(ctx, move, names),
    switched: () => switched(ctx, move, names),
    draining: async () => waitOr(ctx, Date.parse(move.switchedAt!), { step: "deleting", tableName: DELETION_ORDER[0]!.name, cursor: null }),
    deleting: () => deleting(ctx, move),
    rolling_back: () => rollingBack(ctx, move, names),
    done: async () => ({ changes: {} }),
    rolled_back: async () => ({ changes: {} }),
  };
  return steps[move.step]();
}

/** Waits until the cached lookups made before `since` have expired, then goes on to `next`. */
function waitOr(ctx: MoveContext, since: number, then: Changes & { step: ShardMoveStep }): Outcome {
  const until = since + MOVE_TIMING.lookupsExpireMs;
  if (ctx.now < until) return { changes: { note: `waiting until ${iso(until)} for the cached lookups of the organization to expire` } };
  return { changes: { note: null, ...then } };
}

/** Writes already refused (moving_to is set); the lookups cached before that lead writes to the old database until they expire. */
async function fencing(ctx: MoveContext, move: ShardMoveRow, names: () => Promise<CatalogName[]>): Promise<Outcome> {
  await ctx.forget(move.organizationId, await names());
  return waitOr(ctx, Date.parse(move.fencedAt!), { step: "settling" });
}

/** Rolls back from before the switch: deletes what reached the new database, table by table. */
export function rollBack(reason: string): Changes {
  return { step: "rolling_back", note: reason, tableName: DELETION_ORDER[0]!.name, cursor: null };
}

async function settling(ctx: MoveContext, move: ShardMoveRow): Promise<Outcome> {
  const source = session(ctx, move.fromShard);
  const { fenced: done, underWay } = await fenceWhenSettled(source, move.organizationId, { now: iso(ctx.now), maxSends: MAX_SWEEP_SENDS });
  if (!done) {
    const waiting = `${underWay.events} events to process, ${underWay.deliveries} deliveries and ${underWay.notifications} e-mails being sent`;
    if (ctx.now > Date.parse(move.fencedAt!) + MOVE_TIMING.lookupsExpireMs + MOVE_TIMING.settleMs)
      return { changes: rollBack(`the organization's queue work did not settle (${waiting})`) };
    return { changes: { note: `waiting for ${waiting}` } };
  }
  // Fenced: nothing changes its rows here any more, so what is counted now is what the copy must bring.
  const from = await countRows(source, move.organizationId);
  const counts: TableCounts = Object.fromEntries(Object.entries(from).map(([t, n]) => [t, { from: n, to: 0 }]));
  return { changes: { step: "copying", counts, note: null, ...nextPass(counts, -1) } };
}

/** The copy's next pass after the pass at `after` that has rows to copy. */
function nextPass(counts: TableCounts, after: number): Changes {
  const next = COPY_PASSES.findIndex((p, i) => i > after && (p === RESTORE_PASS ? counts[RESTORED.table]!.from > 0 : counts[p]!.from > 0));
  return next < 0 ? { tableName: null, cursor: null } : { tableName: COPY_PASSES[next]!, cursor: 0 };
}

/** The rows a pass copies: a table's, or (the restore) the reports'. */
const passRows = (counts: TableCounts, pass: string) => counts[pass === RESTORE_PASS ? RESTORED.table : pass]!.from;

/**
 * The passes one page reads, from `pass` at `cursor`: that pass alone while it is under way, or with the
 * passes after it while all their rows fit in one page (most of an organization's tables are small, and
 * each read and write is a round trip).
 */
function pageGroup(counts: TableCounts, { pass, cursor, limit }: { pass: string; cursor: number; limit: number }): string[] {
  const group = [pass];
  if (cursor > 0) return group;
  let room = limit - passRows(counts, pass);
  for (let i = COPY_PASSES.indexOf(pass) + 1; i < COPY_PASSES.length; i++) {
    const rows = passRows(counts, COPY_PASSES[i]!);
    if (rows === 0) continue;
    if (rows > room) break;
    group.push(COPY_PASSES[i]!);
    room -= rows;
  }
  return group;
}

async function copying(ctx: MoveContext, move: ShardMoveRow): Promise<Outcome> {
  const source = session(ctx, move.fromShard);
  const target = session(ctx, move.toShard);
  const org = move.organizationId;
  const counts = move.counts!;
  const { rows: limit, perAdvance } = pagesOf(ctx);
  let pass = move.tableName;
  let cursor = move.cursor ?? 0;
  for (let page = 0; page < perAdvance && pass !== null; page++) {
    const group = pageGroup(counts, { pass, cursor, limit });
    const reads = await source.batch(
      group.map((p, i) => {
        const after = i === 0 ? cursor : 0;
        return p === RESTORE_PASS ? readRestored(source, org, { after, limit }) : readPage(source, tenantTable(p), org, { after, limit });
      }),
    );
    const writes: D1PreparedStatement[] = [];
    let next: { pass: string | null; cursor: number } | null = null;
    for (const [i, p] of group.entries()) {
      const { rows, next: more } = pageOf(reads[i]!, limit);
      const table = p === RESTORE_PASS ? null : tenantTable(p);
      if (table?.derived && (i > 0 || cursor === 0)) writes.push(clearDerived(target, table, org));
      if (rows.length) writes.push(...(table ? insertRows(target, table, rows) : restoreRows(target, rows)));
      // A table with more rows than a page goes on from its last; one that fits ends the page's passes here.
      if (more !== null) {
        next = { pass: p, cursor: more };
        break;
      }
    }
    if (writes.length) await target.batch(fenced(target, org, "open", writes, iso(ctx.now)));
    ({ pass, cursor } = next ?? { pass: nextPass(counts, COPY_PASSES.indexOf(group.at(-1)!)).tableName ?? null, cursor: 0 });
  }
  return { changes: pass === null ? { step: "verifying", tableName: null, cursor: null } : { tableName: pass, cursor } };
}

async function verifying(ctx: MoveContext, move: ShardMoveRow): Promise<Outcome> {
  const [from, to] = await Promise.all([
    countRows(session(ctx, move.fromShard), move.organizationId),
    countRows(session(ctx, move.toShard), move.organizationId),
  ]);
  const counts: TableCounts = Object.fromEntries(Object.keys(from).map((t) => [t, { from: from[t]!, to: to[t]! }]));
  const differ = Object.entries(counts).filter(([, c]) => c.from !== c.to);
  if (differ.length) {
    const said = differ.map(([t, c]) => `${t} (${c.from} here, ${c.to} there)`).join(", ");
    return { changes: { ...rollBack(`the counts differ: ${said}`), counts } };
  }
  return { changes: { step: "switching", counts, note: null } };
}

/**
 * The new database is unfenced first (writes still find moving_to and answer 503, and the old database
 * stays fenced, so nothing acts twice), then the catalog points the organization's names at it.
 */
async function switching(ctx: MoveContext, move: ShardMoveRow, names: () => Promise<CatalogName[]>): Promise<Outcome> {
  const target = session(ctx, move.toShard);
  await target.batch([unfence(target, move.organizationId)]);
  return {
    changes: { step: "switched", switchedAt: iso(ctx.now), note: null },
    catalog: "switch",
    // In this data center the organization writes again at once; elsewhere once its lookups expire.
    after: async () => ctx.forget(move.organizationId, await names()),
  };
}

/** After the switch: its deliveries and e-mails to the new database's queue, its cached lookups and public reads forgotten. */
async function switched(ctx: MoveContext, move: ShardMoveRow, names: () => Promise<CatalogName[]>): Promise<Outcome> {
  await handOver(ctx, move.toShard, move.organizationId);
  const all = await names();
  await ctx.forget(move.organizationId, all);
  await ctx.evict(staleOf(all));
  return { changes: { step: "draining", note: null } };
}

/**
 * Sends the organization's pending deliveries and e-mails of one database to the queue, each when it is
 * due (their messages named the other database, or were dropped by the fence). One sent twice is sent
 * once: the attempt's lease sees to it.
 */
export async function handOver(ctx: MoveContext, shard: string, organizationId: string): Promise<void> {
  const d1 = session(ctx, shard);
  const [deliveries, notices] = (await d1.batch(pendingWork(d1, organizationId))).map(
    (r) => r.results as { id: string; next_attempt_at: string | null }[],
  );
  const queue = shardQueue(ctx.queue, () => shard);
  const byDelay = (rows: { id: string; next_attempt_at: string | null }[]) => {
    const groups = new Map<number, string[]>();
    for (const row of rows) {
      const due = row.next_attempt_at ? Math.ceil((Date.parse(row.next_attempt_at) - ctx.now) / 1000) : 0;
      const delay = Math.min(Math.max(0, due), MAX_QUEUE_DELAY_SECONDS);
      groups.set(delay, [...(groups.get(delay) ?? []), row.id]);
    }
    return [...groups];
  };
  for (const [delay, ids] of byDelay(deliveries!)) await publishDeliveries(queue, ids, delay || undefined);
  for (const [delay, ids] of byDelay(notices!)) await publishNotifications(queue, ids, delay || undefined);
}

/**
 * Deletes the organization's rows from a database that gives them up, children first: the tables left
 * are counted, and those whose rows fit in one page go in one batch (each deleted whole before its parent).
 * Answers the first table with rows left, or null when none has.
 */
async function deletePages(ctx: MoveContext, move: ShardMoveRow, shard: string): Promise<string | null> {
  const d1 = session(ctx, shard);
  const org = move.organizationId;
  const { deleteRows: limit, perAdvance } = pagesOf(ctx);
  const left = await countRows(d1, org);
  let at = DELETION_ORDER.findIndex((t) => left[t.name]! > 0);
  for (let page = 0; page < perAdvance && at >= 0; page++) {
    const group = [DELETION_ORDER[at]!];
    let room = limit - left[group[0]!.name]!;
    for (let i = at + 1; i < DELETION_ORDER.length && room > 0; i++) {
      const rows = left[DELETION_ORDER[i]!.name]!;
      if (rows === 0) continue;
      if (rows > room) break;
      group.push(DELETION_ORDER[i]!);
      room -= rows;
    }
    const results = await d1.batch(
      fenced(
        d1,
        org,
        "departing",
        group.map((t) => deleteRows(d1, t, org, limit)),
        iso(ctx.now),
      ),
    );
    for (const [i, t] of group.entries()) left[t.name]! -= results[i + 2]!.meta.changes;
    at = DELETION_ORDER.findIndex((t) => left[t.name]! > 0);
  }
  if (at >= 0) return DELETION_ORDER[at]!.name;
  // Done as far as the counts go: counted again, so nothing a trigger of the deletes added is left behind.
  const after = await countRows(d1, org);
  return DELETION_ORDER.find((t) => after[t.name]! > 0)?.name ?? null;
}

async function deleting(ctx: MoveContext, move: ShardMoveRow): Promise<Outcome> {
  const table = await deletePages(ctx, move, move.fromShard);
  if (table !== null) return { changes: { tableName: table, cursor: null } };
  const source = session(ctx, move.fromShard);
  await source.batch([unfence(source, move.organizationId)]);
  return { changes: { step: "done", tableName: null, finishedAt: iso(ctx.now), note: null } };
}

/**
 * Deletes what reached the new database (every table: the copy may have stopped anywhere), lifts both
 * fences, hands the old database's pending deliveries and e-mails to its queue again (the fence dropped
 * their messages), then the catalog clears moving_to.
 */
async function rollingBack(ctx: MoveContext, move: ShardMoveRow, names: () => Promise<CatalogName[]>): Promise<Outcome> {
  const table = await deletePages(ctx, move, move.toShard);
  if (table !== null) return { changes: { tableName: table, cursor: null } };
  const target = session(ctx, move.toShard);
  const source = session(ctx, move.fromShard);
  await target.batch([unfence(target, move.organizationId)]);
  await source.batch([unfence(source, move.organizationId)]);
  await handOver(ctx, move.fromShard, move.organizationId);
  return {
    changes: { step: "rolled_back", tableName: null, finishedAt: iso(ctx.now) },
    catalog: "release",
    after: async () => ctx.forget(move.organizationId, await names()),
  };
}
