import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runScheduled } from "../../src/scheduled";
import { api, get, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import { organization, upload } from "../helpers/factories";
import { advance, drive, lightOrganization, otherShard, processEvents, rowsIn, tenantRow } from "../helpers/move";
import { shardOf } from "../helpers/shards";

// The route `npm run shard -- move` drives (operators only), its refusals, cancelling a move, and the cron
// finishing a move nobody drives.

const clock = testClock(Date.parse("2026-03-02T10:00:00.000Z"));
const move = (org: { id: string }, key: string, body: unknown) => post(`/v1/organizations/${org.id}/move`, key, body);
const to = (shard: string) => ({ data: { type: "organization_move", attributes: { to: shard } } });

describe("POST /v1/organizations/{id}/move", () => {
  it("is the operators': an organization's own key gets 403, and nothing moves", async () => {
    const org = await organization();
    const res = await move(org, org.key, to(otherShard(await shardOf(org.id))));
    expect(res.status).toBe(403);
    expect(await tenantRow(org.id)).toEqual({ shard: await shardOf(org.id), moving_to: null });
  });

  it("refuses a database that is not one of the deployment's, the one the organization is in, and an unknown organization", async () => {
    const org = await organization();
    const here = await shardOf(org.id);
    const unknown = await move(org, org.operatorKey, to("TENANT_9"));
    expect([unknown.status, unknown.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/to"]);
    expect(unknown.body.errors[0].detail).toMatch(/TENANT_1, TENANT_2/);
    const same = await move(org, org.operatorKey, to(here));
    expect([same.status, same.body.errors[0].detail]).toEqual([422, `The organization is in ${here} already.`]);
    const nobody = await post("/v1/organizations/01900000-0000-7000-8000-00000000dead/move", org.operatorKey, to(here));
    expect(nobody.status).toBe(404);
    const wrongType = await move(org, org.operatorKey, { data: { type: "organization", attributes: { to: otherShard(here) } } });
    expect(wrongType.status).toBe(409);
    expect(await tenantRow(org.id)).toEqual({ shard: here, moving_to: null });
  });

  it("starts a move by the organization's slug (201, Location), advances it on the next call (200), and shows it", async () => {
    const org = await organization();
    const there = otherShard(await shardOf(org.id));
    const started = await post(`/v1/organizations/${org.slug}/move`, org.operatorKey, to(there));
    expect(started.status).toBe(201);
    expect(started.headers.get("Location")).toBe(`/v1/organizations/${org.id}/move`);
    expect(started.body.data).toMatchObject({
      type: "organization_move",
      attributes: { step: "fencing", to: there },
      relationships: { organization: { data: { id: org.id } } },
    });
    expect(started.body.data.attributes.waiting_until).toBe(new Date(Date.now() + 90_000).toISOString());
    // Before the lookups made earlier expire, an advance changes nothing but what it says it waits for.
    const early = await advance({ id: org.id, operatorKey: org.operatorKey }, there);
    expect([early.status, early.body.data.attributes.step]).toEqual([200, "fencing"]);
    const shown = await get(`/v1/organizations/${org.id}/move`, org.operatorKey);
    expect(shown.body.data.id).toBe(started.body.data.id);
    expect((await get(`/v1/organizations/${org.id}/move`, org.key)).status).toBe(403);
    const states = await drive({ id: org.id, operatorKey: org.operatorKey }, there);
    expect(states.at(-1)!.step).toBe("done");
    expect((await get(`/v1/organizations/${org.id}/move`, org.operatorKey)).body.data.attributes.step).toBe("done");
    // Moved once, it is found where it is now: a move back starts from there.
    expect((await move(org, org.operatorKey, to(there))).status).toBe(422);
    // Named by its id (as the command resumes it), the finished move is answered as it ended: no second move.
    const named = (id: string, shard = there) =>
      move(org, org.operatorKey, { data: { type: "organization_move", id, attributes: { to: shard } } });
    const again = await named(started.body.data.id);
    expect([again.status, again.body.data.attributes.step]).toEqual([200, "done"]);
    expect((await named("01900000-0000-7000-8000-00000000dead")).status).toBe(404);
    const elsewhere = await named(started.body.data.id, otherShard(there));
    expect([elsewhere.status, elsewhere.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/to"]);
    expect(await tenantRow(org.id)).toEqual({ shard: there, moving_to: null });
  });

  it("answers 404 for an organization that never moved", async () => {
    const org = await organization();
    expect((await get(`/v1/organizations/${org.id}/move`, org.operatorKey)).status).toBe(404);
    expect((await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey })).status).toBe(404);
  });
});

describe("DELETE /v1/organizations/{id}/move", () => {
  it("rolls a move back before its switch: the organization writes where it was again, whole, nothing of it left in the other database", async () => {
    const { org } = await lightOrganization();
    const home = await shardOf(org.id);
    const there = otherShard(home);
    const before = await rowsIn(org.id);
    let state = (await advance(org, there)).body.data.attributes;
    while (state.step !== "copying") {
      if (state.waiting_until) clock.at(Date.parse(state.waiting_until));
      state = (await advance(org, there)).body.data.attributes;
    }
    expect(
      (
        await post("/v1/contacts", org.key, {
          data: { type: "contact", attributes: { name: "B", email: "b@acme.example", role: "responder" } },
        })
      ).status,
    ).toBe(503);
    // As `npm run shard -- cancel` does: until the rollback has ended.
    let cancelled = await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey });
    expect([cancelled.status, cancelled.body.data.attributes.note]).toEqual([200, "cancelled by an operator"]);
    while (cancelled.body.data.attributes.step === "rolling_back")
      cancelled = await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey });
    expect(cancelled.body.data.attributes.step).toBe("rolled_back");
    expect((await get(`/v1/organizations/${org.id}/move`, org.operatorKey)).body.data.attributes.step).toBe("rolled_back");
    expect(await tenantRow(org.id)).toEqual({ shard: home, moving_to: null });
    expect(await rowsIn(org.id)).toEqual(before);
    expect(
      (
        await post("/v1/contacts", org.key, {
          data: { type: "contact", attributes: { name: "B", email: "b@acme.example", role: "responder" } },
        })
      ).status,
    ).toBe(201);
  });

  it("refuses once the move has switched: it can only finish", async () => {
    const org = await organization();
    const there = otherShard(await shardOf(org.id));
    let state = (await advance(org, there)).body.data.attributes;
    while (!["switched", "draining"].includes(state.step)) {
      if (state.waiting_until) clock.at(Date.parse(state.waiting_until));
      state = (await advance(org, there)).body.data.attributes;
    }
    const refused = await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toMatch(/switched the organization to/);
    expect((await drive(org, there)).at(-1)!.step).toBe("done");
  });
});

describe("the cron", () => {
  it("finishes a move nobody drives, and purges no attachment object while one is under way", async () => {
    const { org, vulnIds } = await lightOrganization();
    const there = otherShard(await shardOf(org.id));
    const file = await upload(org.key, vulnIds[0]!, "kept", { filename: "kept.txt" });
    expect(file.status).toBe(201);
    await processEvents(org.id);
    const orphan = `attachments/${crypto.randomUUID()}/${crypto.randomUUID()}`;
    await env.ATTACHMENTS.put(orphan, "nobody's");
    const objects = async () => (await env.ATTACHMENTS.list({ prefix: "attachments/" })).objects.map((o) => o.key);
    // Files are orphans an hour after their upload at the earliest (R2 keeps the real time of the upload).
    clock.at((await env.ATTACHMENTS.head(orphan))!.uploaded.getTime() + 2 * 3_600_000);
    expect((await advance(org, there)).status).toBe(201);
    const cron = () => runScheduled({ ...env, EVENTS: fakeQueue().queue } as Env, new Date());
    let step = "fencing";
    for (let run = 0; run < 30 && step !== "done"; run++) {
      await cron();
      // The queue's consumer, meanwhile, processes what the cron wrote (deadline alerts: months passed).
      await processEvents(org.id);
      step = (await get(`/v1/organizations/${org.id}/move`, org.operatorKey)).body.data.attributes.step;
      if (step !== "done") expect(await objects()).toEqual(expect.arrayContaining([orphan]));
      clock.at(Date.now() + 60_000);
    }
    expect(step).toBe("done");
    expect(await tenantRow(org.id)).toEqual({ shard: there, moving_to: null });
    await cron();
    const left = await objects();
    expect(left).not.toContain(orphan);
    expect(left.filter((k) => k.startsWith(`attachments/${vulnIds[0]}/`))).toHaveLength(1);
    expect(Object.keys((await rowsIn(org.id))[otherShard(there)]!)).toEqual([]);
  });
});
