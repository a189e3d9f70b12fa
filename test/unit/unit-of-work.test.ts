import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { briefs, organizations } from "../../src/db/schema";
import type { Stale } from "../../src/lib/stale";
import { PLATFORM_CALLER, type ServiceContext } from "../../src/services/context";
import { commit, Plan } from "../../src/services/unit-of-work";
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
