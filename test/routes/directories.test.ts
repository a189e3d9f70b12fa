import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, patch, post } from "../helpers/api";
import { LIMITS } from "../../src/lib/limits";
import { sharded } from "../helpers/shards";
import { brief, directory, listing, operatorKey, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

let op: string;
beforeAll(async () => {
  op = await operatorKey();
});

const itemDoc = (listable_type: string, listable_id: string) => ({
  data: { type: "directory_listing_item", attributes: { listable_type, listable_id } },
});
const FULL_POLICY = {
  published_at: PUBLISHED,
  point_of_contact: "security@example.com",
  safe_harbor: "full",
  public_disclosure: true,
  cvd_timeline: 90,
  in_scope_assets: [{ kind: "domain", value: "example.com" }],
};

/** An organization listed in a fresh directory, with a published policy (rating given) and brief. */
async function listedOrg(policyAttributes: Record<string, unknown> = FULL_POLICY, dir?: { id: string }) {
  const org = await organization();
  const d = dir ?? (await directory(op));
  const l = await listing(op, d.id, org.id);
  const p = await policy(org, policyAttributes);
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  return { org, dir: d, listing: l, policy: p, brief: b };
}

describe("directories", () => {
  it("are made and changed by the operator and read by any key", async () => {
    const created = await post("/v1/directories", op, {
      data: {
        type: "directory",
        attributes: { name: "EU VDPs", slug: "eu-vdps", description: "European programs", min_maturity_rating: 2 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({
      name: "EU VDPs",
      slug: "eu-vdps",
      description: "European programs",
      min_maturity_rating: 2,
    });
    const org = await organization();
    expect((await get(`/v1/directories/${created.body.data.id}`, org.key)).status).toBe(200);
    expect((await get("/v1/directories", org.key)).body.data.map((d: { id: string }) => d.id)).toContain(created.body.data.id);
    expect((await post("/v1/directories", org.key, { data: { type: "directory", attributes: { name: "X", slug: "x-dir" } } })).status).toBe(
      403,
    );
    const changed = await patch(`/v1/directories/${created.body.data.id}`, op, {
      data: { type: "directory", attributes: { min_maturity_rating: 3 } },
    });
    expect(changed.body.data.attributes.min_maturity_rating).toBe(3);
  });

  it.each([
    [{ name: "X", slug: "eu-vdps" }, "/data/attributes/slug"],
    [{ name: "X", slug: "Bad Slug" }, "/data/attributes/slug"],
    [{ name: "X", slug: "ok-dir-1", min_maturity_rating: 6 }, "/data/attributes/min_maturity_rating"],
    [{ name: "X", slug: "ok-dir-2", min_maturity_rating: 1.5 }, "/data/attributes/min_maturity_rating"],
    [{ slug: "ok-dir-3" }, "/data/attributes/name"],
  ])("answer 422 to %j at %s", async (attributes, pointer) => {
    await post("/v1/directories", op, { data: { type: "directory", attributes: { name: "EU", slug: "eu-vdps" } } });
    const res = await post("/v1/directories", op, { data: { type: "directory", attributes } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe(pointer);
  });
});

describe("directory listings", () => {
  it("the operator lists any organization, claimed or not, once; the organization sees and changes its own", async () => {
    const d = await directory(op);
    const unclaimed = (
      await post("/v1/organizations", op, {
        data: { type: "organization", attributes: { name: "Listed Co", slug: `listed-${d.id.slice(-6)}`, claimed: false } },
      })
    ).body.data;
    const l = await post("/v1/directory_listings", op, {
      data: {
        type: "directory_listing",
        relationships: {
          directory: { data: { type: "directory", id: d.id } },
          organization: { data: { type: "organization", id: unclaimed.id } },
        },
      },
    });
    expect(l.status).toBe(201);
    expect(l.body.data.attributes).toMatchObject({ visible: true, customized: false });
    const again = await post("/v1/directory_listings", op, {
      data: {
        type: "directory_listing",
        relationships: {
          directory: { data: { type: "directory", id: d.id } },
          organization: { data: { type: "organization", id: unclaimed.id } },
        },
      },
    });
    expect(again.status).toBe(422);
    const missing = await post("/v1/directory_listings", op, {
      data: {
        type: "directory_listing",
        relationships: {
          directory: { data: { type: "directory", id: "01900000-0000-7000-8000-00000000beef" } },
          organization: { data: { type: "organization", id: unclaimed.id } },
        },
      },
    });
    expect(missing.body.errors[0].source.pointer).toBe("/data/relationships/directory/data/id");
  });

  it("sets visible through PATCH (data.id must match), marks the listing customized, and filters by q[visible_eq]", async () => {
    const { org, listing: l } = await listedOrg();
    expect(
      (
        await patch(`/v1/directory_listings/${l.id}`, org.key, {
          data: { type: "directory_listing", id: "01900000-0000-7000-8000-00000000beef", attributes: { visible: false } },
        })
      ).status,
    ).toBe(409);
    const res = await patch(`/v1/directory_listings/${l.id}`, org.key, {
      data: { type: "directory_listing", id: l.id, attributes: { visible: false } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ visible: false, customized: true });
    expect((await get("/v1/directory_listings?q[visible_eq]=false", org.key)).body.data.map((x: { id: string }) => x.id)).toEqual([l.id]);
    expect((await get("/v1/directory_listings?q[visible_eq]=true", org.key)).body.data).toEqual([]);
    expect((await get(`/v1/directory_listings/${l.id}`, org.key)).body.data.relationships.organization.data.id).toBe(org.id);
  });

  it("an operator's change does not mark the listing customized; the operator removes it", async () => {
    const { listing: l } = await listedOrg();
    expect(
      (await patch(`/v1/directory_listings/${l.id}`, op, { data: { type: "directory_listing", attributes: { visible: false } } })).body.data
        .attributes.customized,
    ).toBe(false);
    expect((await del(`/v1/directory_listings/${l.id}`, op)).status).toBe(204);
    expect((await get(`/v1/directory_listings/${l.id}`, op)).status).toBe(404);
  });
});

describe("listing items", () => {
  it("adds published policies and briefs of the organization at the end, and marks the listing customized", async () => {
    const { org, listing: l, policy: p, brief: b } = await listedOrg();
    const first = await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Policy", p.id));
    const second = await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Brief", b.id));
    expect(first.status).toBe(201);
    expect(first.body.data.attributes).toMatchObject({
      listable_type: "Policy",
      listable_id: p.id,
      listable_name: p.attributes.name,
      position: 1,
    });
    expect(second.body.data.attributes.position).toBe(2);
    const list = await get(`/v1/directory_listings/${l.id}/items`, org.key);
    expect(list.body.data.map((i: { attributes: { position: number } }) => i.attributes.position)).toEqual([1, 2]);
    expect((await get(`/v1/directory_listings/${l.id}`, org.key)).body.data.attributes.customized).toBe(true);
  });

  it("answers 422 Unprocessable entity for another organization's, a draft, or an already listed item", async () => {
    const { org, listing: l, policy: p } = await listedOrg();
    const other = await organization();
    const foreign = await policy(other, { published_at: PUBLISHED });
    const draft = await brief(org);
    await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Policy", p.id));
    for (const [type, id] of [
      ["Policy", foreign.id],
      ["Brief", draft.id],
      ["Policy", p.id],
      ["Brief", "01900000-0000-7000-8000-00000000beef"],
    ] as const) {
      const res = await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc(type, id));
      expect([type, id, res.status, res.body.errors[0].code, res.body.errors[0].source.pointer]).toEqual([
        type,
        id,
        422,
        "unprocessable_entity",
        "/data/attributes/listable_id",
      ]);
    }
    const badType = await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Vuln", p.id));
    expect(badType.body.errors[0]).toMatchObject({ code: "validation_error", source: { pointer: "/data/attributes/listable_type" } });
    expect((await get(`/v1/directory_listings/${l.id}/items`, org.key)).body.meta.page.total).toBe(1);
  });

  async function listingWithItems(n: number) {
    const { org, listing: l } = await listedOrg();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const b = await brief(org, { published_at: PUBLISHED });
      ids.push((await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Brief", b.id))).body.data.id);
    }
    return { org, l, ids };
  }

  const order = async (org: TestOrganization, listingId: string) =>
    (await get(`/v1/directory_listings/${listingId}/items`, org.key)).body.data.map(
      (i: { id: string; attributes: { position: number } }) => [i.id, i.attributes.position],
    );

  it("closes the gap when an item is deleted", async () => {
    const { org, l, ids } = await listingWithItems(4);
    expect((await del(`/v1/directory_listings/${l.id}/items/${ids[1]}`, org.key)).status).toBe(204);
    expect(await order(org, l.id)).toEqual([
      [ids[0], 1],
      [ids[2], 2],
      [ids[3], 3],
    ]);
    await del(`/v1/directory_listings/${l.id}/items/${ids[0]}`, org.key);
    expect(await order(org, l.id)).toEqual([
      [ids[2], 1],
      [ids[3], 2],
    ]);
  });

  it("reorders and answers the items in their new order", async () => {
    const { org, l, ids } = await listingWithItems(3);
    const wanted = [ids[2]!, ids[0]!, ids[1]!];
    const res = await patch(`/v1/directory_listings/${l.id}/items/reorder`, org.key, {
      data: wanted.map((id) => ({ type: "directory_listing_item", id })),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((i: { id: string; attributes: { position: number } }) => [i.id, i.attributes.position])).toEqual(
      wanted.map((id, i) => [id, i + 1]),
    );
    expect(await order(org, l.id)).toEqual(wanted.map((id, i) => [id, i + 1]));
  });

  it.each([
    ["an item missing", (ids: string[]) => ids.slice(1), "/data"],
    ["an item twice", (ids: string[]) => [ids[0]!, ids[0]!, ids[1]!, ids[2]!], "/data/1/id"],
    ["an unknown item", (ids: string[]) => [...ids.slice(1), "01900000-0000-7000-8000-00000000beef"], "/data/2/id"],
  ])("answers 422 to a reorder with %s, changing nothing", async (_name, make, pointer) => {
    const { org, l, ids } = await listingWithItems(3);
    const res = await patch(`/v1/directory_listings/${l.id}/items/reorder`, org.key, {
      data: make(ids).map((id) => ({ type: "directory_listing_item", id })),
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "unprocessable_entity", source: { pointer } });
    expect(await order(org, l.id)).toEqual(ids.map((id, i) => [id, i + 1]));
  });

  it("round-trips any permutation (property)", async () => {
    const { org, l, ids } = await listingWithItems(5);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(ids, { minLength: 5, maxLength: 5 }), async (perm) => {
        await patch(`/v1/directory_listings/${l.id}/items/reorder`, org.key, {
          data: perm.map((id) => ({ type: "directory_listing_item", id })),
        });
        const now = await order(org, l.id);
        return JSON.stringify(now) === JSON.stringify(perm.map((id, i) => [id, i + 1]));
      }),
      { numRuns: 15 },
    );
  });

  it("leaves positions 1..n when two reorders race", async () => {
    const { org, l, ids } = await listingWithItems(4);
    const a = [...ids].reverse();
    const b = [ids[1]!, ids[3]!, ids[0]!, ids[2]!];
    await Promise.all(
      [a, b].map((p) =>
        api("PATCH", `/v1/directory_listings/${l.id}/items/reorder`, {
          key: org.key,
          body: { data: p.map((id) => ({ type: "directory_listing_item", id })) },
        }),
      ),
    );
    const now = await order(org, l.id);
    expect(now.map((x: [string, number]) => x[1])).toEqual([1, 2, 3, 4]);
    // One of the two orders won, whole.
    expect([JSON.stringify(a), JSON.stringify(b)]).toContain(JSON.stringify(now.map((x: [string, number]) => x[0])));
  });
});

describe("GET /v1/p/directories/{slug}", () => {
  it("refuses include and fields with a 400; included organizations link nowhere keyed, briefs to their public read", async () => {
    const d = await directory(op, { min_maturity_rating: 0 });
    const listed = await listedOrg(FULL_POLICY, d);
    await post(`/v1/directory_listings/${listed.listing.id}/items`, listed.org.key, itemDoc("Brief", listed.brief.id));
    const path = `/v1/p/directories/${d.attributes.slug}`;
    const res = await get(path);
    for (const r of res.body.included) {
      expect([r.type, r.links?.self ?? null]).toEqual([r.type, r.type === "brief" ? `/v1/p/briefs/${r.attributes.shortcode}` : null]);
    }
    expect((await get(path)).headers.get("X-Cache")).toBe("HIT");
    for (const query of ["include=organizations", "fields[directory]=name"]) {
      const refused = await get(`${path}?${query}`);
      expect([refused.status, refused.body.errors[0].source.parameter]).toEqual([400, query.split("=")[0]]);
    }
  });

  it("shows visible organizations that meet the minimum, best rated first, with their items in order", async () => {
    const d = await directory(op, { min_maturity_rating: 1 });
    const top = await listedOrg(FULL_POLICY, d); // rating 5
    const mid = await listedOrg(
      { published_at: PUBLISHED, point_of_contact: "sec@mid.example", in_scope_assets: [{ kind: "domain", value: "mid.example" }] },
      d,
    ); // 2
    const low = await listedOrg({ published_at: PUBLISHED }, d); // 0: no contact, under the minimum
    const hidden = await listedOrg(FULL_POLICY, d);
    await patch(`/v1/directory_listings/${hidden.listing.id}`, hidden.org.key, {
      data: { type: "directory_listing", attributes: { visible: false } },
    });
    await post(`/v1/directory_listings/${top.listing.id}/items`, top.org.key, itemDoc("Brief", top.brief.id));
    await post(`/v1/directory_listings/${top.listing.id}/items`, top.org.key, itemDoc("Policy", top.policy.id));

    const res = await get(`/v1/p/directories/${d.attributes.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.body.data).toMatchObject({ type: "directory", attributes: { name: d.attributes.name, min_maturity_rating: 1 } });
    expect(res.body.data.relationships.organizations.data.map((o: { id: string }) => o.id)).toEqual([top.org.id, mid.org.id]);
    const orgs = res.body.included.filter((r: { type: string }) => r.type === "organization");
    expect(orgs.map((o: { attributes: { maturity_rating: number } }) => o.attributes.maturity_rating)).toEqual([5, 2]);
    expect(orgs[0].relationships.items.data).toEqual([
      { type: "brief", id: top.brief.id },
      { type: "policy", id: top.policy.id },
    ]);
    expect(res.body.included.some((r: { id: string }) => r.id === low.org.id || r.id === hidden.org.id)).toBe(false);
    expect(
      res.body.included.find((r: { type: string; id: string }) => r.type === "policy" && r.id === top.policy.id).attributes.maturity_rating,
    ).toBe(5);
  });

  it("marks unclaimed organizations with claim: coming_soon", async () => {
    const d = await directory(op);
    const { org } = await listedOrg(FULL_POLICY, d);
    await patch(`/v1/organizations/${org.id}`, op, { data: { type: "organization", attributes: { claimed: false } } });
    const res = await get(`/v1/p/directories/${d.attributes.slug}`);
    expect(res.body.included.find((r: { id: string }) => r.id === org.id).attributes).toMatchObject({
      claimed: false,
      claim: { status: "coming_soon" },
    });
  });

  it("is cached (a hit touches no database) and evicted by listing, item and policy changes", async () => {
    const d = await directory(op);
    const { org, listing: l, policy: p } = await listedOrg(FULL_POLICY, d);
    const path = `/v1/p/directories/${d.attributes.slug}`;
    expect((await get(path)).headers.get("X-Cache")).toBe("MISS");
    const hit = await get(path);
    expect([hit.headers.get("X-Cache"), hit.roundTrips]).toEqual(["HIT", 0]);
    expect((await get(path, null, { headers: { "If-None-Match": hit.headers.get("ETag")! } })).status).toBe(304);

    await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Policy", p.id));
    const afterItem = await get(path);
    expect(afterItem.headers.get("X-Cache")).toBe("MISS");
    expect(afterItem.body.included.find((r: { id: string }) => r.id === org.id).relationships.items.data).toEqual([
      { type: "policy", id: p.id },
    ]);

    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", attributes: { safe_harbor: "none" } } });
    const afterPolicy = await get(path);
    expect(afterPolicy.headers.get("X-Cache")).toBe("MISS");
    expect(afterPolicy.body.included.find((r: { id: string }) => r.id === org.id).attributes.maturity_rating).toBe(2);

    await patch(`/v1/directory_listings/${l.id}`, org.key, { data: { type: "directory_listing", attributes: { visible: false } } });
    expect((await get(path)).body.data.relationships.organizations.data).toEqual([]);
  });

  it("answers 404 for an unknown slug", async () => {
    const res = await get("/v1/p/directories/no-such-directory");
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe("not_found");
  });

  it("drops a deleted policy from listings, positions closed up", async () => {
    const { org, listing: l, policy: p, brief: b } = await listedOrg();
    await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Policy", p.id));
    await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Brief", b.id));
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", attributes: {}, relationships: { policy: { data: null } } } });
    expect((await del(`/v1/policies/${p.id}`, org.key)).status).toBe(204);
    const items = (await get(`/v1/directory_listings/${l.id}/items`, org.key)).body.data;
    expect(
      items.map((i: { attributes: { listable_id: string; position: number } }) => [i.attributes.listable_id, i.attributes.position]),
    ).toEqual([[b.id, 1]]);
  });
});

describe("what review of the directories found", () => {
  it("answers 404 to deleting an unknown item and writes nothing, customized included", async () => {
    const { listing: l, org } = await listedOrg();
    const res = await del(`/v1/directory_listings/${l.id}/items/01900000-0000-7000-8000-00000000beef`, org.key);
    expect(res.status).toBe(404);
    expect((await get(`/v1/directory_listings/${l.id}`, org.key)).body.data.attributes).toMatchObject({
      customized: false,
      updated_at: l.attributes.updated_at,
    });
  });

  it("answers a reorder naming another type with 409, like every type mismatch", async () => {
    const { listing: l, org, policy: p } = await listedOrg();
    const item = (await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Policy", p.id))).body.data;
    const res = await patch(`/v1/directory_listings/${l.id}/items/reorder`, org.key, { data: [{ type: "policy", id: item.id }] });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].source.pointer).toBe("/data/0/type");
  });

  it("does not mark a listing customized when a PATCH changes nothing", async () => {
    const { listing: l, org } = await listedOrg();
    const res = await patch(`/v1/directory_listings/${l.id}`, org.key, {
      data: { type: "directory_listing", attributes: { visible: true } },
    });
    expect(res.body.data.attributes.customized).toBe(false);
  });

  it("evicts the page when a listed organization publishes a new policy", async () => {
    const d = await directory(op, { min_maturity_rating: 1 });
    const org = await organization();
    await listing(op, d.id, org.id);
    const path = `/v1/p/directories/${d.attributes.slug}`;
    expect((await get(path)).body.data.relationships.organizations.data).toEqual([]);
    await policy(org, { published_at: PUBLISHED, point_of_contact: "sec@example.com" });
    const after = await get(path);
    expect(after.headers.get("X-Cache")).toBe("MISS");
    expect(after.body.data.relationships.organizations.data).toEqual([{ type: "organization", id: org.id }]);
  });

  it("closes positions when a listed brief is deleted, and hides an unpublished brief from the page", async () => {
    const { org, dir, listing: l, policy: p } = await listedOrg();
    const b1 = await brief(org, { published_at: PUBLISHED });
    const b2 = await brief(org, { published_at: PUBLISHED });
    for (const [type, id] of [
      ["Brief", b1.id],
      ["Policy", p.id],
      ["Brief", b2.id],
    ] as const)
      await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc(type, id));
    expect((await del(`/v1/briefs/${b1.id}`, org.key)).status).toBe(204);
    const items = (await get(`/v1/directory_listings/${l.id}/items`, org.key)).body.data;
    expect(
      items.map((i: { attributes: { listable_id: string; position: number } }) => [i.attributes.listable_id, i.attributes.position]),
    ).toEqual([
      [p.id, 1],
      [b2.id, 2],
    ]);
    await patch(`/v1/briefs/${b2.id}`, org.key, { data: { type: "brief", attributes: { published_at: null } } });
    const page = await get(`/v1/p/directories/${dir.attributes.slug}`);
    expect(page.body.included.find((r: { id: string }) => r.id === org.id).relationships.items.data).toEqual([
      { type: "policy", id: p.id },
    ]);
  });
});

describe("what a directory holds, bounded", () => {
  const listingDoc = (directoryId: string, organizationId: string) => ({
    data: {
      type: "directory_listing",
      relationships: {
        directory: { data: { type: "directory", id: directoryId } },
        organization: { data: { type: "organization", id: organizationId } },
      },
    },
  });

  it(`shows at most ${LIMITS.itemsPerListing} items a listing, even when two adds race for the last place`, async () => {
    const { org, listing: l } = await listedOrg();
    const briefs = [];
    for (let i = 0; i < LIMITS.itemsPerListing + 1; i++) briefs.push((await brief(org, { published_at: PUBLISHED })).id);
    for (const id of briefs.slice(0, LIMITS.itemsPerListing - 1)) {
      expect((await post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Brief", id))).status).toBe(201);
    }
    const raced = await Promise.all(
      briefs.slice(-2).map((id) => post(`/v1/directory_listings/${l.id}/items`, org.key, itemDoc("Brief", id))),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 422]);
    const refused = raced.find((r) => r.status === 422)!;
    expect(refused.body.errors[0]).toMatchObject({ source: { pointer: "/data/attributes/listable_id" } });
    expect(refused.body.errors[0].detail).toContain(`already shows ${LIMITS.itemsPerListing} items`);
    const items = await get(`/v1/directory_listings/${l.id}/items?page[size]=100`, org.key);
    expect(items.body.data.map((i: { attributes: { position: number } }) => i.attributes.position)).toEqual(
      Array.from({ length: LIMITS.itemsPerListing }, (_, i) => i + 1),
    );
  });

  it(`lists at most ${LIMITS.listingsPerDirectory} organizations a directory, even when two listings race for the last place`, async () => {
    const d = await directory(op);
    // The first places are taken directly in the database: making hundreds of organizations through the API says nothing more.
    const now = new Date().toISOString();
    // (In a sharded world, in one of its shards.)
    const filled = sharded() ? env.TENANT_1 : env.DB;
    await filled.batch([
      filled
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO organizations (id, name, slug, claimed, created_at, updated_at)
         SELECT ?2 || '-' || i, 'Filler ' || i, ?2 || '-' || i, 1, ?3, ?3 FROM n`,
        )
        .bind(LIMITS.listingsPerDirectory - 1, `fill-${d.id}`, now),
      filled
        .prepare(
          `INSERT INTO directory_listings (id, directory_id, organization_id, visible, customized, created_at, updated_at)
         SELECT 'l-' || id, ?1, id, 0, 0, ?3, ?3 FROM organizations WHERE slug LIKE ?2 || '-%'`,
        )
        .bind(d.id, `fill-${d.id}`, now),
    ]);
    // A sharded world counts a directory's places in the catalog, across its shards: the fillers take theirs there.
    if (sharded())
      await env.CATALOG.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO catalog_names (kind, name, organization_id, created_at)
         SELECT 'directory_listing', ?2 || '/' || ?3 || '-' || i, ?3 || '-' || i, ?4 FROM n`,
      )
        .bind(LIMITS.listingsPerDirectory - 1, d.id, `fill-${d.id}`, now)
        .run();
    const [a, b, c] = [await organization(), await organization(), await organization()];
    const raced = await Promise.all([a, b].map((o) => post("/v1/directory_listings", op, listingDoc(d.id, o.id))));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 422]);
    const late = await post("/v1/directory_listings", op, listingDoc(d.id, c.id));
    for (const refused of [raced.find((r) => r.status === 422)!, late]) {
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ source: { pointer: "/data/relationships/directory/data/id" } });
      expect(refused.body.errors[0].detail).toContain(`already lists ${LIMITS.listingsPerDirectory} organizations`);
    }
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM directory_listings WHERE directory_id = ?")
      .bind(d.id)
      .first<{ n: number }>())!;
    expect(n).toBe(LIMITS.listingsPerDirectory);
  });
});
