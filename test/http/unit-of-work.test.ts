import { env } from "cloudflare:workers";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { assets, auditEvents, briefs, organizations } from "../../src/db/schema";
import { changedRows } from "../../src/db/queries";
import type { Stale } from "../../src/lib/stale";
import { PLATFORM_CALLER, type ServiceContext } from "../../src/services/context";
import { commit, Plan } from "../../src/services/unit-of-work";
import { countingD1 } from "../helpers/d1-counter";
import { NEIGHBOUR } from "../helpers/world";

// A write of public data evicts what it made stale inside its unit of work: the plan says what, commit
// evicts after the batch. A plan that writes a table the public reads are made from and says nothing
// is refused before it writes, so no service can forget its eviction.

function context(evicted: Stale[]): ServiceContext {
  return {
    db: createDb(env.DB),
    caller: PLATFORM_CALLER,
    queue: env.EVENTS,
    defer: () => {},
    evict: async (stale) => void evicted.push(stale),
  };
}

const neighbour = async () => {
  const db = createDb(env.DB);
  const org = (await db.select().from(organizations).where(eq(organizations.slug, NEIGHBOUR.slug)).get())!;
  const brief = (await db.select().from(briefs).where(eq(briefs.organizationId, org.id)).get())!;
  return { org, brief };
};

describe("commit and the public reads a plan makes stale", () => {
  it("refuses a plan that writes a public table without saying what it makes stale, and writes nothing", async () => {
    const evicted: Stale[] = [];
    const ctx = context(evicted);
    const { org } = await neighbour();
    const p = new Plan(null).add(ctx.db.update(organizations).set({ name: "Renamed" }).where(eq(organizations.id, org.id)));
    await expect(commit(ctx, p)).rejects.toThrow(/writes organizations.*Plan\.evicts/);
    expect((await neighbour()).org.name).toBe(NEIGHBOUR.name);
    expect(evicted).toEqual([]);
  });

  it("evicts what the plan said, read from the committed results by their handles", async () => {
    const evicted: Stale[] = [];
    const ctx = context(evicted);
    const { brief } = await neighbour();
    const p = new Plan(null);
    const rows = p.track<{ shortcode: string }[]>(
      ctx.db
        .update(briefs)
        .set({ updatedAt: new Date().toISOString() })
        .where(eq(briefs.id, brief.id))
        .returning({ shortcode: briefs.shortcode }),
    );
    p.evicts((r) => ({ briefs: rows.of(r).map((b) => b.shortcode) }));
    p.audits({ action: "brief.update", target: { type: "brief", id: brief.id }, organizationId: brief.organizationId });
    const { results } = await commit(ctx, p);
    expect(evicted).toEqual([{ briefs: [rows.of(results)[0]!.shortcode] }]);
  });

  it("lets a plan that touches no public table commit without a word, and evicts nothing", async () => {
    const evicted: Stale[] = [];
    const ctx = context(evicted);
    const { brief } = await neighbour();
    await commit(ctx, new Plan(null).add(ctx.db.select().from(briefs).where(eq(briefs.id, brief.id))));
    expect(evicted).toEqual([]);
  });
});

// Every change writes its audit row in its own batch: a plan that writes anything but bookkeeping
// (the outbox, e-mails, Idempotency-Keys) and says nothing for the audit log is refused before it writes.
describe("commit and the audit log", () => {
  const neighbourAsset = async () => {
    const { org } = await neighbour();
    return (await createDb(env.DB).select().from(assets).where(eq(assets.organizationId, org.id)).get())!;
  };

  it("refuses a plan that writes without an audit entry, and writes nothing", async () => {
    const ctx = context([]);
    const asset = await neighbourAsset();
    const p = new Plan(null).add(ctx.db.update(assets).set({ shortDescription: "unaudited" }).where(eq(assets.id, asset.id)));
    await expect(commit(ctx, p)).rejects.toThrow(/writes assets.*Plan\.audits/);
    expect((await neighbourAsset()).shortDescription).toBe(asset.shortDescription);
  });

  it("writes the plan's audit row in the change's batch", async () => {
    const ctx = context([]);
    const asset = await neighbourAsset();
    const p = new Plan(null).add(ctx.db.update(assets).set({ updatedAt: new Date().toISOString() }).where(eq(assets.id, asset.id))).audits({
      action: "asset.update",
      target: { type: "asset", id: asset.id },
      changed: ["updated_at"],
      organizationId: asset.organizationId,
    });
    await commit(ctx, p);
    const rows = await createDb(env.DB).select().from(auditEvents).where(eq(auditEvents.targetId, asset.id));
    expect(rows.at(-1)).toMatchObject({
      action: "asset.update",
      actorType: "system",
      organizationId: asset.organizationId,
      changed: ["updated_at"],
    });
  });

  it("writes a conditional entry only when its statement changed a row, and a statement chained on changes() reads the same", async () => {
    const ctx = context([]);
    const asset = await neighbourAsset();
    const before = (await createDb(env.DB).select().from(auditEvents).where(eq(auditEvents.targetId, asset.id))).length;
    const p = new Plan(null);
    const missed = p.track(ctx.db.update(assets).set({ shortDescription: "x" }).where(eq(assets.id, "no-such-asset")));
    p.audits(
      { action: "asset.update", target: { type: "asset", id: asset.id }, organizationId: asset.organizationId },
      { ifChanged: missed },
    );
    // Would read "a row changed" if the audit row came between and had been written.
    const chained = p.track(
      ctx.db
        .update(assets)
        .set({ updatedAt: new Date().toISOString() })
        .where(and(eq(assets.id, asset.id), sql`changes() > 0`)),
    );
    const { results } = await commit(ctx, p);
    expect(changedRows(chained.of(results))).toBe(0);
    expect((await createDb(env.DB).select().from(auditEvents).where(eq(auditEvents.targetId, asset.id))).length).toBe(before);
  });

  it("lets the platform's own bookkeeping commit unaudited only when it says why, and nobody else", async () => {
    const asset = await neighbourAsset();
    const write = (ctx: ServiceContext) =>
      new Plan(null)
        .add(ctx.db.update(assets).set({ updatedAt: new Date().toISOString() }).where(eq(assets.id, asset.id)))
        .unaudited("a test");
    await commit(context([]), write(context([])));
    const member = {
      ...context([]),
      caller: { keyId: "k", kind: "organization" as const, organizationId: asset.organizationId, scopes: [] },
    };
    await expect(commit(member, write(member))).rejects.toThrow(/only the platform's own work/);
  });
});

describe("the audit row's cost", () => {
  it("adds no round trip: a change commits in one batch with its audit rows as without them", async () => {
    const asset = (await createDb(env.DB).select().from(assets).limit(1).get())!;
    const trips = async (audited: boolean) => {
      const counter = countingD1(env.DB);
      const ctx = { ...context([]), db: createDb(counter.db) };
      const p = new Plan(null);
      const updated = p.track(ctx.db.update(assets).set({ updatedAt: new Date().toISOString() }).where(eq(assets.id, asset.id)));
      if (audited)
        p.audits(
          { action: "asset.update", target: { type: "asset", id: asset.id }, organizationId: asset.organizationId },
          { ifChanged: updated },
        ).audits({ action: "asset.touch", target: { type: "asset", id: asset.id }, organizationId: asset.organizationId });
      else p.unaudited("the baseline of this measure");
      await commit(ctx, p);
      return counter.count();
    };
    expect(await trips(false)).toBe(1);
    expect(await trips(true)).toBe(1);
  });
});
