import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runScheduled } from "../../src/scheduled";
import { api, get, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import { mailbox } from "../helpers/mail";
import { drive, type MoveState, otherShard, queueMessages, richOrganization, rowsIn, snapshot, tenantRow } from "../helpers/move";
import { runQueue } from "../helpers/queue";
import { nextIp } from "../helpers/reporter";
import { databaseOf, shardOf, tenantBindings } from "../helpers/shards";
import { receiver } from "../helpers/webhooks";

// An organization moves between the two tenant databases of the sharded test world through the route
// `npm run shard -- move` calls, with everything a live organization has under way.

const clock = testClock(Date.parse("2026-03-02T10:00:00.000Z"));

const BEFORE_SWITCH = ["fencing", "settling", "copying", "verifying", "switching"];

describe("moving an organization to another tenant database", () => {
  it("carries every row of the organization unchanged and leaves none behind", async () => {
    const rich = await richOrganization();
    const from = await shardOf(rich.org.id);
    const to = otherShard(from);
    const before = await snapshot(await databaseOf(rich.org.id), rich.org.id);
    // Something in most tables (sessions, passkeys, sign-in links, a queued report's gate state, reporter keys,
    // directory listings and deadline alerts are what this organization has none of).
    expect(Object.values(before).filter((rows) => rows.length).length).toBeGreaterThanOrEqual(30);
    const states = await drive(rich.org, to);
    expect(states.map((s) => s.step)).toEqual(
      expect.arrayContaining(["fencing", "settling", "copying", "verifying", "switched", "draining", "deleting"]),
    );
    expect(states.at(-1)!.step).toBe("done");
    expect(await tenantRow(rich.org.id)).toEqual({ shard: to, moving_to: null });
    // Row for row, column for column: the copy's triggers (counts, search, a report's activity) changed nothing.
    expect(await snapshot(tenantBindings()[to]!, rich.org.id)).toEqual(before);
    expect((await rowsIn(rich.org.id))[from]).toEqual({});
    // The counts compared before the switch are those of every table, equal.
    const counts = states.at(-1)!.counts!;
    expect(Object.entries(counts).filter(([, c]) => c.from !== c.to)).toEqual([]);
    expect(counts.vulns).toEqual({ from: 3, to: 3 });
  });

  it("moves while a client keeps writing: 503 with Retry-After until the switch, then every write accepted once; work under way goes on in the new database, once", async () => {
    const rich = await richOrganization();
    const from = await shardOf(rich.org.id);
    const to = otherShard(from);
    const source = tenantBindings()[from]!;
    const target = tenantBindings()[to]!;
    const org = rich.org.id;
    // Under way: deliveries waiting for their retry (the receiver failed), e-mails not sent yet.
    const waiting = async (d1: D1Database) => ({
      deliveries: (
        await d1
          .prepare(
            "SELECT id, attempt_count, next_attempt_at FROM webhook_deliveries WHERE organization_id = ? AND status = 'pending' ORDER BY id",
          )
          .bind(org)
          .all()
      ).results,
      emails: (
        await d1
          .prepare("SELECT id, kind FROM notifications WHERE organization_id = ? AND status IN ('pending', 'delayed') ORDER BY id")
          .bind(org)
          .all()
      ).results,
    });
    const underWay = await waiting(source);
    expect(underWay.deliveries.length).toBeGreaterThan(5);
    expect(underWay.deliveries.every((d) => d.attempt_count === 1)).toBe(true);
    expect(underWay.emails.length).toBeGreaterThan(1);
    // The public brief, cached.
    const brief = `/v1/p/briefs/${rich.shortcode}`;
    const cachedBrief = (await get(brief, null)).body;
    expect((await get(brief, null)).headers.get("X-Cache")).toBe("HIT");

    const wanted: { kind: "comment" | "report"; body: string }[] = [];
    const accepted = new Map<string, { step: string }>();
    const refused: { step: string; retryAfter: string | null; code: string }[] = [];
    const write = (w: (typeof wanted)[number]) =>
      w.kind === "comment"
        ? post(`/v1/vulns/${rich.vulnIds[0]}/comments`, rich.org.key, { data: { type: "comment", attributes: { body: w.body } } })
        : api("POST", `/v1/p/briefs/${rich.shortcode}/vulns`, {
            body: { data: { type: "vuln", attributes: { title: w.body, description: "Found while it moved." } } },
            contentType: "application/json",
            headers: { "CF-Connecting-IP": nextIp() },
          });
    const moveQueue = fakeQueue();
    const duringMove = receiver();
    const briefCache: string[] = [];
    const states = await drive(rich.org, to, {
      env: { EVENTS: moveQueue.queue },
      between: async (move: MoveState) => {
        const n = wanted.length;
        wanted.push({ kind: "comment", body: `Written during ${move.step} (${n})` });
        if (move.step === "fencing" || move.step === "deleting")
          wanted.push({ kind: "report", body: `Reported during ${move.step} (${n})` });
        // Every write not accepted yet, sent again, as a client that got 503 does after Retry-After.
        for (const w of wanted.filter((w) => !accepted.has(w.body))) {
          const res = await write(w);
          if (res.status === 201) accepted.set(w.body, { step: move.step });
          else refused.push({ step: move.step, retryAfter: res.headers.get("Retry-After"), code: res.body?.errors?.[0]?.code });
        }
        if (move.step === "copying") {
          // Fenced: a delivery's message coming due, the cron (its sweeps, its steps) and a first read change
          // nothing of the organization in either database, and send nothing.
          const [old, copy] = [await snapshot(source, org), await snapshot(target, org)];
          const late = await runQueue(underWay.deliveries.map((d) => ({ delivery_id: d.id as string, shard: from })));
          expect(late.retried).toBe(0);
          const sweep = fakeQueue();
          await runScheduled({ ...env, EVENTS: sweep.queue } as Env);
          expect((await get(`/v1/vulns/${rich.vulnIds[1]}`, rich.org.key)).status).toBe(200);
          expect(await snapshot(source, org)).toEqual(old);
          // (The cron advances the move too: the copy may have gone on, but what was copied stays as it was.)
          const copied = await snapshot(target, org);
          for (const [table, rows] of Object.entries(copy)) expect([table, copied[table]]).toEqual([table, expect.arrayContaining(rows)]);
          const ours = new Set(underWay.deliveries.map((d) => d.id as string));
          expect(queueMessages(sweep).deliveries.filter((d) => ours.has(d.id))).toEqual([]);
          expect(duringMove.sent).toEqual([]);
        }
        // Reads go on all along, from wherever the organization is.
        const list = await get("/v1/vulns", rich.org.key);
        expect([move.step, list.status]).toEqual([move.step, 200]);
        expect(list.body.data.map((v: { id: string }) => v.id)).toEqual(expect.arrayContaining(rich.vulnIds));
        const publicRead = await get(brief, null);
        expect(publicRead.status).toBe(200);
        briefCache.push(`${move.step} ${publicRead.headers.get("X-Cache")}`);
      },
    });
    duringMove.restore();
    expect(states.at(-1)!.step).toBe("done");

    // Writes answered 503 with Retry-After from the start to the switch, and none of them after it.
    expect(refused.length).toBeGreaterThan(5);
    expect(new Set(refused.map((r) => r.code))).toEqual(new Set(["service_unavailable"]));
    expect(refused.every((r) => Number(r.retryAfter) > 0)).toBe(true);
    const refusedIn = new Set(refused.map((r) => r.step));
    expect([...refusedIn].filter((step) => !BEFORE_SWITCH.includes(step))).toEqual([]);
    expect([...refusedIn]).toEqual(expect.arrayContaining(["fencing", "settling", "copying", "switching"]));
    // Every write was accepted in the end, exactly once, in the new database; nothing of it in the old.
    expect([...accepted.keys()].sort()).toEqual(wanted.map((w) => w.body).sort());
    const comments = await target
      .prepare("SELECT body, count(*) AS n FROM comments WHERE organization_id = ? AND body LIKE 'Written during %' GROUP BY body")
      .bind(org)
      .all<{ n: number }>();
    expect(comments.results.length).toBe(wanted.filter((w) => w.kind === "comment").length);
    expect(comments.results.every((c) => c.n === 1)).toBe(true);
    const reports = await target
      .prepare("SELECT count(*) AS n FROM vulns WHERE organization_id = ? AND title LIKE 'Reported during %'")
      .bind(org)
      .first("n");
    expect(reports).toBe(wanted.filter((w) => w.kind === "report").length);
    expect((await rowsIn(org))[from]).toEqual({});

    // The deliveries and e-mails under way kept their state and schedule, and the move handed them to the
    // new database's queue; the messages they had name the old one.
    const moved = await waiting(target);
    expect(moved.deliveries).toEqual(underWay.deliveries);
    expect(moved.emails.map((e) => e.id)).toEqual(expect.arrayContaining(underWay.emails.map((e) => e.id)));
    const handed = queueMessages(moveQueue);
    expect(handed.deliveries.map((d) => d.id).sort()).toEqual(underWay.deliveries.map((d) => d.id as string).sort());
    expect(new Set(handed.deliveries.map((d) => d.shard))).toEqual(new Set([to]));
    expect(handed.notifications.map((n) => n.id)).toEqual(expect.arrayContaining(underWay.emails.map((e) => e.id as string)));

    clock.at(Date.now() + 3_600_000);
    const hook = receiver();
    const box = mailbox();
    try {
      // A message from before the move finds nothing in the old database: acknowledged, nothing sent.
      const stale = await runQueue(
        [
          ...underWay.deliveries.map((d) => ({ delivery_id: d.id as string, shard: from })),
          ...underWay.emails.map((e) => ({ notification_id: e.id as string, shard: from })),
        ],
        { env: { EMAIL: box.email } },
      );
      expect(stale.retried).toBe(0);
      expect(hook.sent.length).toBe(0);
      expect(box.sent.length).toBe(0);
      // The move's messages: each delivery sent once, from the new database; again, nothing more.
      const handedBodies = [
        ...handed.deliveries.map((d) => ({ delivery_id: d.id, shard: d.shard })),
        ...handed.notifications.map((n) => ({ notification_id: n.id, shard: n.shard })),
      ];
      await runQueue(handedBodies, { env: { EMAIL: box.email } });
      await runQueue(handedBodies, { env: { EMAIL: box.email } });
      const ids = hook.sent.map((s) => s.headers["webhook-id"]);
      expect(ids.length).toBe(underWay.deliveries.length);
      expect(new Set(ids).size).toBe(ids.length);
      const after = await waiting(target);
      expect(after.deliveries).toEqual([]);
      expect(after.emails.filter((e) => underWay.emails.some((u) => u.id === e.id))).toEqual([]);
      expect(box.sent.length).toBeGreaterThan(0);
      const sentTo = box.sent.map((m) => `${m.to} ${m.subject}`);
      expect(new Set(sentTo).size).toBe(sentTo.length);
      // The sweeps of either database find nothing lost.
      const sweep = fakeQueue();
      await runScheduled({ ...env, EVENTS: sweep.queue, EMAIL: box.email } as Env);
      const swept = queueMessages(sweep);
      const ours = new Set([...underWay.deliveries.map((d) => d.id), ...underWay.emails.map((e) => e.id)]);
      expect([...swept.deliveries, ...swept.notifications].filter((m) => ours.has(m.id))).toEqual([]);
    } finally {
      hook.restore();
    }

    // The public brief was answered from the edge cache all along, forgotten once switched (read again from
    // the new database), and is the same document.
    expect(briefCache.filter((b) => b.endsWith("MISS"))).toEqual(["draining MISS"]);
    // The reporter's token reads the report from the new database, its conversation whole.
    const asReporter = await api("GET", "/v1/p/report/comments", { key: rich.report.token });
    expect(asReporter.status).toBe(200);
    expect(asReporter.body.data.map((c: { attributes: { body: string } }) => c.attributes.body)).toEqual(
      expect.arrayContaining(["Thanks, looking", "More detail"]),
    );
    expect((await get(brief, null)).body.data).toEqual(cachedBrief.data);
  });
});
