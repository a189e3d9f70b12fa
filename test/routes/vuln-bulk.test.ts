import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { api, get } from "../helpers/api";
import { interleaved } from "../helpers/d1-faults";
import { eventTypes } from "../helpers/events";
import { brief, operatorKey, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

// PATCH /v1/vulns: up to 100 vulns changed at once, all or nothing, each change firing its events.

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
}, 30_000);

const bulk = (data: unknown, key: string = org.key) => api("PATCH", "/v1/vulns", { key, body: { data }, contentType: "application/json" });
const item = (id: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "vuln",
  id,
  attributes,
  ...extra,
});
/** A vuln as the list shows it (a GET of the vuln itself would mark it read and fire Vuln::Read). */
const state = async (v: { attributes: { shortcode: string } }) => {
  const a = (await get(`/v1/vulns?q[shortcode_eq]=${v.attributes.shortcode}`, org.key)).body.data[0].attributes;
  return { processing_state: a.processing_state, severity: a.severity, tags: a.tags };
};

describe("PATCH /v1/vulns", () => {
  it("changes each vuln as its own PATCH would, in one answer in the request's order, each firing its events", async () => {
    const [a, b, c] = [await vuln(org, briefId), await vuln(org, briefId), await vuln(org, briefId)];
    const res = await bulk([
      item(a.id, { processing_state: "closed", tags: ["duplicate"] }),
      item(b.id, { processing_state: "closed", tags: ["duplicate"] }),
      item(c.id, { severity: "high" }),
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.body.data.map((v: { id: string }) => v.id)).toEqual([a.id, b.id, c.id]);
    expect(
      res.body.data.map((v: { attributes: { processing_state: string; severity: string } }) => [
        v.attributes.processing_state,
        v.attributes.severity,
      ]),
    ).toEqual([
      ["closed", null],
      ["closed", null],
      ["open", "high"],
    ]);
    expect(await state(a)).toEqual({ processing_state: "closed", severity: null, tags: ["duplicate"] });
    expect(await eventTypes(a.id)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Processing::Closed", "Vuln::Triage::Changed"]);
    expect(await eventTypes(c.id)).toEqual(["Vuln::Created", "Vuln::Updated"]);
    // Unchanged members change nothing and fire nothing.
    const again = await bulk([item(c.id, { severity: "high" })]);
    expect([again.status, again.body.data[0].attributes.updated_at]).toEqual([200, res.body.data[2].attributes.updated_at]);
    expect(await eventTypes(c.id)).toEqual(["Vuln::Created", "Vuln::Updated"]);
  });

  it("is all or nothing: one bad member, one unknown or foreign vuln, and nothing is changed", async () => {
    const [a, b] = [await vuln(org, briefId), await vuln(org, briefId)];
    const before = [await state(a), await state(b)];
    const invalid = await bulk([item(a.id, { processing_state: "closed" }), item(b.id, { severity: "severe" })]);
    expect([invalid.status, invalid.body.errors[0].source.pointer]).toEqual([422, "/data/1/attributes/severity"]);
    const otherOrg = await organization();
    const foreign = await vuln(otherOrg, (await brief(otherOrg, { published_at: PUBLISHED })).id);
    for (const id of [foreign.id, "01900000-0000-7000-8000-00000000dead"]) {
      const missing = await bulk([item(a.id, { processing_state: "closed" }), item(id, { severity: "low" })]);
      expect([missing.status, missing.body.errors[0].code, missing.body.errors[0].source]).toEqual([
        404,
        "vuln_not_found",
        { pointer: "/data/1/id" },
      ]);
    }
    const movedAway = await bulk([
      item(a.id, { processing_state: "closed" }),
      item(b.id, {}, { relationships: { brief: { data: { type: "brief", id: "01900000-0000-7000-8000-00000000dead" } } } }),
    ]);
    expect([movedAway.status, movedAway.body.errors[0].source.pointer]).toEqual([422, "/data/1/relationships/brief/data/id"]);
    expect([await state(a), await state(b)]).toEqual(before);
    expect(await eventTypes(a.id)).toEqual(["Vuln::Created"]);
    expect(
      (await get(`/v1/vulns?q[shortcode_eq]=${foreign.attributes.shortcode}`, otherOrg.key)).body.data[0].attributes.severity,
    ).toBeNull();
  });

  it.each([
    ["an empty list", () => [], "/data", /at least 1/],
    [
      "101 vulns",
      () => Array.from({ length: 101 }, (_, i) => item(`01900000-0000-7000-8000-${String(i).padStart(12, "0")}`, {})),
      "/data",
      /at most 100/,
    ],
    ["a vuln twice", (id: string) => [item(id, {}), item(id, { severity: "low" })], "/data/1/id", /twice/],
    ["a document, not a list", (id: string) => item(id, {}), "/data", /./],
    ["another type", (id: string) => [{ ...item(id, {}), type: "brief" }], "/data/0/type", /./],
  ])("refuses %s with a 4xx at the right pointer", async (_name, data, pointer, detail) => {
    const v = await vuln(org, briefId);
    const res = await bulk((data as (id: string) => unknown)(v.id));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect([res.body.errors[0].source.pointer, res.body.errors[0].detail]).toEqual([pointer, expect.stringMatching(detail)]);
  });

  it("applies the rules of one PATCH to the request as a whole: no duplicate cycle, and a chain ends at the original", async () => {
    const [x, y, z, w] = [await vuln(org, briefId), await vuln(org, briefId), await vuln(org, briefId), await vuln(org, briefId)];
    const dup = (id: string, of: string) =>
      item(id, { triage_state: "duplicate" }, { relationships: { duplicate_of: { data: { type: "vuln", id: of } } } });
    const triage = async (v: { attributes: { shortcode: string } }) => {
      const a = (await get(`/v1/vulns?q[shortcode_eq]=${v.attributes.shortcode}`, org.key)).body.data[0];
      return [a.attributes.triage_state, a.relationships.duplicate_of.data?.id ?? null];
    };
    // X a duplicate of Y and Y of X: each alone is fine, together they close both on each other.
    const cycle = await bulk([dup(x.id, y.id), dup(y.id, x.id)]);
    expect(cycle.status, cycle.text).toBe(422);
    expect(cycle.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual(["/data/0/relationships/duplicate_of"]);
    // A longer one, through three reports.
    const three = await bulk([dup(x.id, y.id), dup(y.id, z.id), dup(z.id, x.id)]);
    expect(three.status, three.text).toBe(422);
    for (const v of [x, y, z]) expect(await triage(v)).toEqual(["new", null]);
    // A chain in one request: X of Y, Y of Z. Each duplicate names the original, as one PATCH after another would.
    const chain = await bulk([dup(x.id, y.id), dup(y.id, z.id), dup(w.id, x.id)]);
    expect(chain.status, chain.text).toBe(200);
    expect(await triage(x)).toEqual(["duplicate", z.id]);
    expect(await triage(y)).toEqual(["duplicate", z.id]);
    expect(await triage(w)).toEqual(["duplicate", z.id]);
    expect(await triage(z)).toEqual(["new", null]);
    // An original that the same request reopens from duplicate stays the original.
    const back = await bulk([item(y.id, { triage_state: "triaged" }), dup(x.id, y.id)]);
    expect(back.status, back.text).toBe(200);
    expect(await triage(x)).toEqual(["duplicate", y.id]);
    expect(await triage(y)).toEqual(["triaged", null]);
  });

  it("is refused whole, 409 naming the vuln, when another request edits one of them between the read and the write", async () => {
    const [a, b] = [await vuln(org, briefId), await vuln(org, briefId)];
    // Another PATCH of b lands just before this request's write batch (its second batch, after the read).
    const racing = interleaved(2, () =>
      env.DB.prepare("UPDATE vulns SET revision = revision + 1, tags = '[\"theirs\"]' WHERE id = ?1").bind(b.id).run(),
    );
    const res = await api("PATCH", "/v1/vulns", {
      key: org.key,
      body: { data: [item(a.id, { processing_state: "closed" }), item(b.id, { severity: "high" })] },
      contentType: "application/json",
      env: { DB: racing },
    });
    expect([res.status, res.body.errors[0].code, res.body.errors[0].detail]).toEqual([409, "conflict", expect.stringContaining("/data/1")]);
    expect([await state(a), await state(b)]).toEqual([
      { processing_state: "open", severity: null, tags: [] },
      { processing_state: "open", severity: null, tags: ["theirs"] },
    ]);
    expect([await eventTypes(a.id), await eventTypes(b.id)]).toEqual([["Vuln::Created"], ["Vuln::Created"]]);
  });

  it("is the organization's only: an operator key is refused", async () => {
    const v = await vuln(org, briefId);
    const res = await bulk([item(v.id, { severity: "low" })], await operatorKey());
    expect(res.status).toBe(403);
  });
});
