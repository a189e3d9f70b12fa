import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { del, get, patch, post } from "../helpers/api";
import { operatorKey, organization, type TestOrganization } from "../helpers/factories";
import { LIMITS } from "../../src/lib/limits";

// /v1/canned_responses: an organization's replies kept ready, names unique within it.

let org: TestOrganization;
let other: TestOrganization;
beforeAll(async () => {
  org = await organization();
  other = await organization();
}, 30_000);

const doc = (attributes: Record<string, unknown>) => ({ data: { type: "canned_response", attributes } });
const create = (attributes: Record<string, unknown>, key = org.key) =>
  post("/v1/canned_responses", key, doc({ visibility: "reporter", body: "Thank you, {{reporter_name}}.", ...attributes }));
const rows = async (organizationId: string) =>
  (await env.DB.prepare("SELECT name FROM canned_responses WHERE organization_id = ?").bind(organizationId).all<{ name: string }>()).results
    .length;

describe("/v1/canned_responses", () => {
  it("creates, shows, lists, updates and deletes, each audited", async () => {
    const made = await create({ name: "Acknowledged", body: "Hi {{reporter_name}}, we got {{shortcode}}.", visibility: "internal" });
    expect(made.status, made.text).toBe(201);
    const { id, attributes, relationships } = made.body.data;
    expect(attributes).toMatchObject({ name: "Acknowledged", body: "Hi {{reporter_name}}, we got {{shortcode}}.", visibility: "internal" });
    expect(relationships.organization.data.id).toBe(org.id);
    expect((await get(`/v1/canned_responses/${id}`, org.key)).body.data.attributes.name).toBe("Acknowledged");
    const changed = await patch(`/v1/canned_responses/${id}`, org.key, {
      data: { type: "canned_response", id, attributes: { visibility: "reporter" } },
    });
    expect([changed.status, changed.body.data.attributes.visibility, changed.body.data.attributes.name]).toEqual([
      200,
      "reporter",
      "Acknowledged",
    ]);
    expect((await del(`/v1/canned_responses/${id}`, org.key)).status).toBe(204);
    expect((await get(`/v1/canned_responses/${id}`, org.key)).status).toBe(404);
    const audit = await env.DB.prepare("SELECT action, changed FROM audit_events WHERE target_id = ? ORDER BY at, id").bind(id).all();
    expect(audit.results.map((r) => [r.action, r.changed])).toEqual([
      ["canned_response.create", null],
      ["canned_response.update", '["visibility"]'],
      ["canned_response.delete", null],
    ]);
  });

  it("keeps names unique within an organization (422 at /data/attributes/name), not across organizations", async () => {
    expect((await create({ name: "Duplicate" })).status).toBe(201);
    const again = await create({ name: "Duplicate" });
    expect([again.status, again.body.errors[0].source]).toEqual([422, { pointer: "/data/attributes/name" }]);
    expect((await create({ name: "Duplicate" }, other.key)).status).toBe(201);
    const second = await create({ name: "Second" });
    const renamed = await patch(`/v1/canned_responses/${second.body.data.id}`, org.key, {
      data: { type: "canned_response", id: second.body.data.id, attributes: { name: "Duplicate" } },
    });
    expect([renamed.status, renamed.body.errors[0].source]).toEqual([422, { pointer: "/data/attributes/name" }]);
    expect((await get(`/v1/canned_responses/${second.body.data.id}`, org.key)).body.data.attributes.name).toBe("Second");
  });

  it("holds name and body to their limits, and refuses an empty body or another visibility, writing nothing", async () => {
    const before = await rows(org.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "x".repeat(LIMITS.nameLength + 1) }, "/data/attributes/name"],
      [{ name: "Long", body: "x".repeat(LIMITS.cannedResponseBodyLength + 1) }, "/data/attributes/body"],
      [{ name: "Empty", body: "   " }, "/data/attributes/body"],
      [{ name: "Public", visibility: "public" }, "/data/attributes/visibility"],
      [{ name: "" }, "/data/attributes/name"],
    ];
    for (const [attributes, pointer] of cases) {
      const res = await create(attributes);
      expect([res.status, res.body.errors[0].source]).toEqual([422, { pointer }]);
    }
    expect(await rows(org.id)).toBe(before);
    const longest = await create({ name: "y".repeat(LIMITS.nameLength), body: "z".repeat(LIMITS.cannedResponseBodyLength) });
    expect(longest.status).toBe(201);
  });

  it("is the organization's own: another organization's key gets 404 and changes nothing; operators read, never change", async () => {
    const mine = await create({ name: "Mine" });
    const id = mine.body.data.id;
    expect((await get(`/v1/canned_responses/${id}`, other.key)).status).toBe(404);
    expect(
      (await patch(`/v1/canned_responses/${id}`, other.key, { data: { type: "canned_response", id, attributes: { name: "Theirs" } } }))
        .status,
    ).toBe(404);
    expect((await del(`/v1/canned_responses/${id}`, other.key)).status).toBe(404);
    const listed = await get("/v1/canned_responses?page[size]=100", other.key);
    expect(listed.body.data.map((r: { id: string }) => r.id)).not.toContain(id);
    const operator = await operatorKey();
    expect((await get(`/v1/canned_responses/${id}`, operator)).status).toBe(200);
    expect((await create({ name: "Operator's" }, operator)).status).toBe(403);
    expect((await get(`/v1/canned_responses/${id}`, org.key)).body.data.attributes.name).toBe("Mine");
  });

  it("pages by cursor, newest first with sort=-created_at", async () => {
    const fresh = await organization();
    const names = ["A", "B", "C"];
    for (const name of names) expect((await create({ name }, fresh.key)).status).toBe(201);
    const first = await get("/v1/canned_responses?sort=-created_at&page[size]=2", fresh.key);
    expect(first.body.data.map((r: { attributes: { name: string } }) => r.attributes.name)).toEqual(["C", "B"]);
    const next = await get(first.body.links.next, fresh.key);
    expect(next.body.data.map((r: { attributes: { name: string } }) => r.attributes.name)).toEqual(["A"]);
  });
});
