import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { SWEEP_MAX_PAGES, sweepOutbox } from "../../src/events/outbox";
import { fakeQueue } from "../helpers/events";
import { organization, type TestOrganization } from "../helpers/factories";

// The cron's outbox sweep takes a backlog (events the queue never got) in one run, a page at a time,
// rather than a hundred a minute.

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

/** `n` unprocessed events of `org`, made `agoMs` before now and never sent. */
async function backlog(n: number, agoMs = 10 * 60_000): Promise<string[]> {
  const ids = Array.from({ length: n }, () => crypto.randomUUID());
  const at = (i: number) => new Date(Date.now() - agoMs + i).toISOString();
  const insert = env.DB.prepare(
    "INSERT INTO events (id, organization_id, vuln_id, type, payload, created_at, send_count) VALUES (?, ?, NULL, 'Vuln::Created', '{}', ?, 0)",
  );
  await env.DB.batch(ids.map((id, i) => insert.bind(id, org.id, at(i))));
  return ids;
}

describe("the outbox sweep", () => {
  it("sends a backlog of several pages in one run, each event once, oldest first", async () => {
    const ids = await backlog(250);
    const q = fakeQueue();
    await sweepOutbox(createDb(env.DB), q.queue);
    const mine = q.ids().filter((id) => ids.includes(id));
    expect(mine).toEqual(ids);
    // Sent now, so the next run leaves them to the messages for a while.
    const again = fakeQueue();
    await sweepOutbox(createDb(env.DB), again.queue);
    expect(again.ids().filter((id) => ids.includes(id))).toEqual([]);
  });

  it("stops at its page limit; the rest goes in the next run", async () => {
    const ids = await backlog(SWEEP_MAX_PAGES * 100 + 30, 20 * 60_000);
    const first = fakeQueue();
    await sweepOutbox(createDb(env.DB), first.queue);
    const sentFirst = first.ids().filter((id) => ids.includes(id));
    expect(sentFirst.length).toBeGreaterThanOrEqual(SWEEP_MAX_PAGES * 100 - 100);
    expect(sentFirst.length).toBeLessThanOrEqual(SWEEP_MAX_PAGES * 100);
    const second = fakeQueue();
    await sweepOutbox(createDb(env.DB), second.queue);
    expect([...sentFirst, ...second.ids().filter((id) => ids.includes(id))].sort()).toEqual([...ids].sort());
  });

  it("leaves a page the queue refuses due for the next run", async () => {
    const ids = await backlog(150, 30 * 60_000);
    await expect(sweepOutbox(createDb(env.DB), fakeQueue({ failing: true }).queue)).rejects.toThrow(/queue unavailable/);
    const q = fakeQueue();
    await sweepOutbox(createDb(env.DB), q.queue);
    expect(q.ids().filter((id) => ids.includes(id))).toEqual(ids);
  });
});
