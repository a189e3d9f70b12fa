import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, post } from "../helpers/api";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { shardOf, sharded, tenantBindings } from "../helpers/shards";

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

let org: TestOrganization;
beforeAll(async () => {
  org = await organization();
});

/**
 * The organization's database (its shard's binding, or DB), or the databases named, recording where each
 * request's session starts in them.
 */
async function recordingDb(names?: string[]) {
  const starts: (string | undefined)[] = [];
  const bindings = env as unknown as Record<string, D1Database>;
  const recording = (binding: D1Database) =>
    new Proxy(binding, {
      get(target, prop) {
        if (prop === "withSession") {
          return (start?: string) => {
            starts.push(start);
            return target.withSession(start);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const recorded = Object.fromEntries((names ?? [await shardOf(org.id)]).map((name) => [name, recording(bindings[name]!)]));
  return { env: recorded as Partial<Env>, starts };
}

describe("D1 sessions and bookmarks", () => {
  it("starts reads at any replica, writes at the primary, and a bookmarked read at its bookmark", async () => {
    const read = await recordingDb();
    expect((await get("/v1/policies", org.key, { env: read.env })).status).toBe(200);
    expect(read.starts).toEqual(["first-unconstrained"]);

    const write = await recordingDb();
    const made = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "Bookmarked" } } }, { env: write.env });
    expect(made.status).toBe(201);
    expect(write.starts).toEqual(["first-primary"]);

    const bookmark = made.headers.get("X-D1-Bookmark")!;
    expect(bookmark).toMatch(BOOKMARK);
    const after = await recordingDb();
    const again = await get(`/v1/policies/${made.body.data.id}`, org.key, {
      env: after.env,
      headers: { "X-D1-Bookmark": bookmark },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.attributes.name).toBe("Bookmarked");
    expect(after.starts).toEqual([bookmark]);
  });

  it("answers every authenticated request with the session's latest bookmark, errors included", async () => {
    const first = await get("/v1/policies", org.key);
    const missing = await get("/v1/policies/01900000-0000-7000-8000-00000000dead", org.key);
    const invalid = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { bogus: 1 } } });
    for (const res of [first, missing]) expect(res.headers.get("X-D1-Bookmark")).toMatch(BOOKMARK);
    expect(missing.status).toBe(404);
    // A 422 from the validator ran only the key lookup: its bookmark is that lookup's.
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("X-D1-Bookmark")).toMatch(BOOKMARK);
  });

  it("keeps bookmarks moving forward: a write's bookmark is not behind an earlier read's", async () => {
    const read = await get("/v1/policies", org.key);
    const write = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "Later" } } });
    expect(write.headers.get("X-D1-Bookmark")! >= read.headers.get("X-D1-Bookmark")!).toBe(true);
  });

  it.each(["garbage", "", "00000000-00000005-00000000", "00000000-00000005-00000000-zz000000000000000000000000000000"])(
    "answers a malformed bookmark %j with a 400 at source.header, on reads and writes, writing nothing",
    async (bookmark) => {
      const before = (await get("/v1/policies", org.key)).body.meta.page.total;
      for (const res of [
        await get("/v1/policies", org.key, { headers: { "X-D1-Bookmark": bookmark } }),
        await post(
          "/v1/policies",
          org.key,
          { data: { type: "policy", attributes: { name: "No" } } },
          { headers: { "X-D1-Bookmark": bookmark } },
        ),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body.errors[0]).toMatchObject({ code: "bad_request", source: { header: "X-D1-Bookmark" } });
      }
      expect((await get("/v1/policies", org.key)).body.meta.page.total).toBe(before);
    },
  );

  it("opens no session for a cached public read, and shows no bookmark on public routes", async () => {
    const b = await brief(org, { published_at: PUBLISHED });
    const miss = await api("GET", `/v1/p/briefs/${b.attributes.shortcode}`);
    expect(miss.headers.get("X-D1-Bookmark")).toBeNull();
    // No database at all: the catalog and every shard in a sharded world.
    const hit = await recordingDb(sharded() ? ["CATALOG", ...Object.keys(tenantBindings())] : ["DB"]);
    const res = await api("GET", `/v1/p/briefs/${b.attributes.shortcode}`, { env: hit.env });
    expect(res.headers.get("X-Cache")).toBe("HIT");
    expect(hit.starts).toEqual([]);
  });
});
