import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardsOf } from "../../src/db/shards";
import { type MoveContext, advanceMove, cancelMove, startOrAdvanceMove } from "../../src/services/shard-moves";
import type { ShardMoveRow } from "../../src/db/schema";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import { dyingAt, lightOrganization, otherShard, rowsIn, snapshot, tenantRow } from "../helpers/move";
import { shardOf, tenantBindings } from "../helpers/shards";

// A move killed at each of its D1 calls, in turn (the n-th fails, and so does every call after it, as a
// Worker that died makes none; "before" it reached D1, or "after", its answer lost), then resumed by a
// healthy caller, as the command run again or the cron would: it ends as a move never killed does, the
// organization whole in one database and nothing of it in the other. The move runs small pages here, so
// a kill lands inside a table's copy and deletion too.

testClock(Date.parse("2026-03-02T10:00:00.000Z"));

// A page splits the largest table's copy (64 similarity bands) and deletion in two.
const PAGES = { rows: 50, deleteRows: 50, perAdvance: 20 };
const STEP_MS = 100_000; // each call later than the last: past the lookups' wait and any advance's hold

function context(
  bindings: Partial<Record<"CATALOG" | "TENANT_1" | "TENANT_2", D1Database>>,
  clock: { now: number; pages?: MoveContext["pages"] },
): MoveContext {
  return {
    shards: shardsOf({ ...env, ...bindings } as Env),
    queue: fakeQueue().queue as Queue,
    now: (clock.now += STEP_MS),
    forget: async () => {},
    evict: async () => {},
    pages: clock.pages ?? PAGES,
  };
}

/** Whether an error is the Worker's death (Drizzle wraps what D1 threw as its cause). */
function died(err: unknown): boolean {
  for (let e = err as Error | undefined; e; e = e.cause as Error | undefined) if (/the Worker died/.test(e.message)) return true;
  return false;
}

/** Runs a move to its end as the command does; throws where the Worker died. */
async function run(org: string, to: string, make: () => MoveContext): Promise<ShardMoveRow> {
  for (let call = 0; call < 400; call++) {
    const { move } = await startOrAdvanceMove(make(), { organization: org, to, startedBy: null });
    if (move.step === "done" || move.step === "rolled_back") return move;
  }
  throw new Error("the move did not end");
}

/** Cancels the organization's move (if it is not rolling back already) and advances its rollback to its end, as `npm run shard -- cancel` does. */
async function rollBackMove(org: string, make: () => MoveContext): Promise<ShardMoveRow | null> {
  const open = await env.CATALOG.prepare(
    "SELECT id, step FROM shard_moves WHERE organization_id = ? AND step NOT IN ('done', 'rolled_back')",
  )
    .bind(org)
    .first<{ id: string; step: string }>();
  if (!open) return null;
  let move = open.step === "rolling_back" ? await advanceMove(make(), open.id) : await cancelMove(make(), org);
  for (let call = 0; call < 400 && move.step !== "rolled_back"; call++) move = await advanceMove(make(), move.id);
  return move;
}

/** What holds after any move, finished or rolled back: the organization whole in `home`, nothing anywhere else, nothing fenced. */
async function expectWhole(org: string, home: string, before: Record<string, unknown[]>) {
  expect(await tenantRow(org)).toEqual({ shard: home, moving_to: null });
  expect(await snapshot(tenantBindings()[home]!, org)).toEqual(before);
  expect((await rowsIn(org))[otherShard(home)]).toEqual({});
  for (const d1 of Object.values(tenantBindings())) {
    expect(await d1.prepare("SELECT count(*) AS n FROM tenant_fences").first("n")).toBe(0);
    // Every database's platform-wide counts ("*") are the sum of its organizations' own.
    const off = await d1
      .prepare(
        `SELECT s.bucket, s.count, (SELECT coalesce(sum(o.count), 0) FROM vuln_counts o WHERE o.bucket = s.bucket AND o.organization_id <> '*') AS summed
         FROM vuln_counts s WHERE s.organization_id = '*' AND s.count <> summed`,
      )
      .all();
    expect(off.results).toEqual([]);
  }
  expect(await env.CATALOG.prepare("SELECT count(*) AS n FROM shard_moves WHERE step NOT IN ('done', 'rolled_back')").first("n")).toBe(0);
}

describe("a move killed at any step", () => {
  for (const when of ["before", "after"] as const) {
    it(`resumes to the same end, killed at each D1 call (${when} it ran)`, async () => {
      const rich = await lightOrganization();
      const org = rich.org.id;
      let home = await shardOf(org);
      const before = await snapshot(tenantBindings()[home]!, org);
      const clock = { now: Date.now() };
      const healthy = () => context({}, clock);
      let kills = 0;
      for (let n = 1; n < 1000; n++) {
        const to = otherShard(home);
        const dying = dyingAt(n, when);
        const faulty = () =>
          context({ CATALOG: dying.wrap(env.CATALOG), TENANT_1: dying.wrap(env.TENANT_1), TENANT_2: dying.wrap(env.TENANT_2) }, clock);
        const ended = await run(org, to, faulty).then(
          (move) => move,
          (err: Error) => {
            expect(died(err)).toBe(true);
            return null;
          },
        );
        if (ended) {
          // Past the move's last call: it never died. Every call before was a kill.
          expect(ended.step).toBe("done");
          expect(kills).toBe(n - 1);
          expect(kills).toBeGreaterThan(30);
          break;
        }
        kills++;
        // Run again (the command, or the cron). Killed after its last write, the move had ended already.
        const open = await env.CATALOG.prepare(
          "SELECT count(*) AS n FROM shard_moves WHERE organization_id = ? AND step NOT IN ('done', 'rolled_back')",
        )
          .bind(org)
          .first("n");
        if (open || (await tenantRow(org))!.shard !== to) expect([n, (await run(org, to, healthy)).step]).toEqual([n, "done"]);
        home = to;
        await expectWhole(org, home, before);
      }
    });
  }

  it("rolls back cleanly when the counts differ, and a rollback killed at each D1 call resumes to the same end", async () => {
    const rich = await lightOrganization();
    const org = rich.org.id;
    const home = await shardOf(org);
    const to = otherShard(home);
    const before = await snapshot(tenantBindings()[home]!, org);
    // Small pages: the copy takes several advances, so it is cancelled halfway, and the rollback deletes in several.
    const clock = { now: Date.now(), pages: { rows: 8, deleteRows: 20, perAdvance: 2 } };
    const healthy = () => context({}, clock);
    // A stray row of the organization in the new database, as a fault of the copy would leave (written
    // through its fence, which drops any write but the move's): the counts differ.
    const stray = async () => {
      const d1 = tenantBindings()[to]!;
      await d1.batch([
        d1.prepare("UPDATE tenant_fences SET state = 'open' WHERE organization_id = ?").bind(org),
        d1
          .prepare(
            "INSERT INTO canned_responses (id, organization_id, name, body, visibility, created_at, updated_at) VALUES (?, ?, 'Stray', 'x', 'internal', 'x', 'x')",
          )
          .bind(crypto.randomUUID(), org),
        d1.prepare("UPDATE tenant_fences SET state = 'closed' WHERE organization_id = ?").bind(org),
      ]);
    };
    // Copied, then the stray row, then on: it rolls back.
    let move = (await startOrAdvanceMove(healthy(), { organization: org, to, startedBy: null })).move;
    while (move.step !== "verifying") move = await advanceMove(healthy(), move.id);
    await stray();
    const ended = await run(org, to, healthy);
    expect(ended.step).toBe("rolled_back");
    expect(ended.note).toMatch(/the counts differ: canned_responses \(0 here, 1 there\)/);
    await expectWhole(org, home, before);

    // Cancelled by an operator in the middle of its copy, and killed at each call of the rollback.
    let kills = 0;
    for (let n = 1; n < 1000; n++) {
      let move = (await startOrAdvanceMove(healthy(), { organization: org, to, startedBy: null })).move;
      while (move.step !== "copying") move = await advanceMove(healthy(), move.id);
      move = await advanceMove(healthy(), move.id);
      expect(move.step).toBe("copying");
      const dying = dyingAt(n, n % 2 ? "before" : "after");
      const faulty = () =>
        context({ CATALOG: dying.wrap(env.CATALOG), TENANT_1: dying.wrap(env.TENANT_1), TENANT_2: dying.wrap(env.TENANT_2) }, clock);
      const ended = await rollBackMove(org, faulty).catch((err: Error) => {
        expect(died(err)).toBe(true);
        return null;
      });
      if (!ended) {
        kills++;
        const resumed = await rollBackMove(org, healthy);
        // Killed after its last write, the rollback had ended already.
        if (resumed) expect(resumed.step).toBe("rolled_back");
      } else expect(ended.step).toBe("rolled_back");
      await expectWhole(org, home, before);
      if (ended) {
        expect(kills).toBe(n - 1);
        expect(kills).toBeGreaterThan(8);
        break;
      }
    }
  });
});
