import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, browse, get, patch, post } from "../helpers/api";
import { eventsOf, eventTypes } from "../helpers/events";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";
import { asReporter, submitReport } from "../helpers/reporter";
import { runScheduled } from "../../src/scheduled";

// A report's triage: the states and their moves, the duplicate's original, the request for more
// information and its return or timeout, the times each move leaves, the filters, what the reporter sees.

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
}, 30_000);

type Attrs = Record<string, unknown>;
const move = (id: string, attributes: Attrs, relationships?: Attrs, key = org.key) =>
  patch(`/v1/vulns/${id}`, key, { data: { type: "vuln", id, attributes, ...(relationships ? { relationships } : {}) } });
const original = (id: string | null) => ({ duplicate_of: { data: id === null ? null : { type: "vuln", id } } });
const triageBodies = async (id: string) =>
  (await eventsOf(id)).filter((e) => e.type === "Vuln::Triage::Changed").map((e) => JSON.parse(e.payload).vuln);
const row = (id: string) =>
  env.DB.prepare("SELECT triage_state, processing_state, revision, updated_at FROM vulns WHERE id = ?").bind(id).first<Attrs>();

const OPEN = ["new", "triaged", "needs_more_info"];
const CLOSED = ["resolved", "informative", "not_applicable", "spam", "accepted_risk"];

describe("moving between triage states", () => {
  it.each([...OPEN.slice(1), ...CLOSED])("moves from new to %s, derives processing_state, and fires each event once", async (state) => {
    const v = await vuln(org, briefId);
    const res = await move(v.id, { triage_state: state });
    expect(res.status).toBe(200);
    const closed = CLOSED.includes(state);
    expect(res.body.data.attributes).toMatchObject({
      triage_state: state,
      processing_state: closed ? "closed" : "open",
      closed_by: closed ? "organization" : null,
    });
    expect(await eventTypes(v.id)).toEqual([
      "Vuln::Created",
      "Vuln::Updated",
      ...(closed ? ["Vuln::Processing::Closed"] : []),
      "Vuln::Triage::Changed",
    ]);
    expect(await triageBodies(v.id)).toEqual([
      {
        id: v.id,
        shortcode: v.attributes.shortcode,
        triage_state: state,
        previous_triage_state: "new",
        duplicate_of: null,
        changed_at: res.body.data.attributes.updated_at,
      },
    ]);
  });

  it("changes nothing and fires nothing when moved to the state it is in", async () => {
    const v = await vuln(org, briefId);
    await move(v.id, { triage_state: "triaged" });
    const before = await row(v.id);
    const again = await move(v.id, { triage_state: "triaged", processing_state: "open" });
    expect(again.status).toBe(200);
    expect(await row(v.id)).toEqual(before);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Triage::Changed"]);
  });

  it("reads processing_state alone: closed is resolved; open goes back to new, or to triaged once ever triaged", async () => {
    const fresh = await vuln(org, briefId);
    expect((await move(fresh.id, { processing_state: "closed" })).body.data.attributes.triage_state).toBe("resolved");
    expect((await move(fresh.id, { processing_state: "open" })).body.data.attributes).toMatchObject({
      triage_state: "new",
      processing_state: "open",
      closed_at: null,
      closed_by: null,
    });
    const worked = await vuln(org, briefId);
    await move(worked.id, { triage_state: "triaged" });
    await move(worked.id, { triage_state: "spam" });
    expect((await move(worked.id, { processing_state: "open" })).body.data.attributes.triage_state).toBe("triaged");
    expect((await triageBodies(worked.id)).map((b) => `${b.previous_triage_state}>${b.triage_state}`)).toEqual([
      "new>triaged",
      "triaged>spam",
      "spam>triaged",
    ]);
  });

  it("answers 422 at processing_state when the two states disagree, and changes nothing", async () => {
    const v = await vuln(org, briefId);
    for (const [triage_state, processing_state] of [
      ["resolved", "open"],
      ["triaged", "closed"],
    ]) {
      const res = await move(v.id, { triage_state, processing_state });
      expect([res.status, res.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/processing_state"]);
    }
    expect((await move(v.id, { triage_state: "resolved", processing_state: "closed" })).status).toBe(200);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Processing::Closed", "Vuln::Triage::Changed"]);
  });

  it("refuses an unknown state with 422 at triage_state", async () => {
    const v = await vuln(org, briefId);
    const res = await move(v.id, { triage_state: "wontfix" });
    expect([res.status, res.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/triage_state"]);
  });
});

describe("a duplicate and its original", () => {
  it("needs an original of the organization, not itself; points to the original's original; leaving duplicate clears it", async () => {
    const [a, b, c] = [await vuln(org, briefId), await vuln(org, briefId), await vuln(org, briefId)];
    const other = await organization();
    const foreign = await vuln(other, (await brief(other, { published_at: PUBLISHED })).id);
    const refused = [
      await move(b.id, { triage_state: "duplicate" }),
      await move(b.id, { triage_state: "duplicate" }, original(null)),
      await move(b.id, { triage_state: "duplicate" }, original(foreign.id)),
      await move(b.id, { triage_state: "duplicate" }, original("01900000-0000-7000-8000-00000000dead")),
      await move(b.id, { triage_state: "duplicate" }, original(b.id)),
      await move(b.id, { triage_state: "triaged" }, original(a.id)),
    ];
    for (const res of refused) expect([res.status, res.body.errors[0].source.pointer]).toEqual([422, "/data/relationships/duplicate_of"]);
    expect(await eventTypes(b.id)).toEqual(["Vuln::Created"]);

    const dup = await move(b.id, { triage_state: "duplicate" }, original(a.id));
    expect(dup.status).toBe(200);
    expect(dup.body.data.relationships.duplicate_of).toEqual({ data: { type: "vuln", id: a.id } });
    expect(dup.body.data.attributes).toMatchObject({ triage_state: "duplicate", processing_state: "closed" });
    // A duplicate of the duplicate is one of the original.
    const chained = await move(c.id, { triage_state: "duplicate" }, original(b.id));
    expect(chained.body.data.relationships.duplicate_of.data.id).toBe(a.id);
    expect((await triageBodies(c.id)).at(-1)).toMatchObject({ triage_state: "duplicate", duplicate_of: a.id });
    // The original cannot now duplicate its own duplicate (that would be itself).
    const loop = await move(a.id, { triage_state: "duplicate" }, original(b.id));
    expect([loop.status, loop.body.errors[0].source.pointer]).toEqual([422, "/data/relationships/duplicate_of"]);

    const list = await get(`/v1/vulns?q[duplicate_of_eq]=${a.id}&sort=created_at`, org.key);
    expect(list.body.data.map((v: { id: string }) => v.id)).toEqual([b.id, c.id]);
    expect(list.body.meta.page.total).toBe(2);
    expect((await get(`/v1/vulns?q[duplicate_of_eq]=${a.id}`, other.key)).body.data).toEqual([]);

    const left = await move(c.id, { triage_state: "triaged" });
    expect(left.body.data.relationships.duplicate_of).toEqual({ data: null });
    expect((await triageBodies(c.id)).at(-1)).toMatchObject({ previous_triage_state: "duplicate", duplicate_of: null });
  });

  it("closes several reports as duplicates of one in one bulk PATCH, each with its events", async () => {
    const [a, b, c] = [await vuln(org, briefId), await vuln(org, briefId), await vuln(org, briefId)];
    const res = await api("PATCH", "/v1/vulns", {
      key: org.key,
      body: {
        data: [b, c].map((v) => ({ type: "vuln", id: v.id, attributes: { triage_state: "duplicate" }, relationships: original(a.id) })),
      },
    });
    expect(res.status).toBe(200);
    for (const v of [b, c]) {
      expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Processing::Closed", "Vuln::Triage::Changed"]);
    }
    const bad = await api("PATCH", "/v1/vulns", {
      key: org.key,
      body: { data: [{ type: "vuln", id: a.id, attributes: { triage_state: "duplicate" } }] },
    });
    expect([bad.status, bad.body.errors[0].source.pointer]).toEqual([422, "/data/0/relationships/duplicate_of"]);
  });

  it("deleting the original leaves the duplicate closed, pointing nowhere", async () => {
    const [a, b] = [await vuln(org, briefId), await vuln(org, briefId)];
    await move(b.id, { triage_state: "duplicate" }, original(a.id));
    expect((await api("DELETE", `/v1/vulns/${a.id}`, { key: org.key })).status).toBe(204);
    expect((await get(`/v1/vulns/${b.id}`, org.key)).body.data).toMatchObject({
      attributes: { triage_state: "duplicate" },
      relationships: { duplicate_of: { data: null } },
    });
  });
});

describe("asking the reporter for more information", () => {
  it("returns to the state it came from when the reporter answers, with that move's events, once", async () => {
    const r = await submitReport(org, {}, { briefId, shortcode: await shortcodeOf(briefId) });
    await move(r.id, { triage_state: "triaged" });
    const asked = await move(r.id, { triage_state: "needs_more_info" });
    expect(asked.body.data.attributes).toMatchObject({ triage_state: "needs_more_info", processing_state: "open" });
    expect((await asReporter("GET", "/v1/p/report", r.token)).body.data.attributes.triage_state).toBe("needs_more_info");
    const answer = await asReporter("POST", "/v1/p/report/comments", r.token, {
      body: { data: { type: "comment", attributes: { body: "It is /profile, logged in." } } },
    });
    expect(answer.status).toBe(201);
    expect((await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes.triage_state).toBe("triaged");
    expect((await triageBodies(r.id)).map((b) => `${b.previous_triage_state}>${b.triage_state}`)).toEqual([
      "new>triaged",
      "triaged>needs_more_info",
      "needs_more_info>triaged",
    ]);
    // A second answer is a comment and nothing more.
    const before = (await eventTypes(r.id)).length;
    await asReporter("POST", "/v1/p/report/comments", r.token, {
      body: { data: { type: "comment", attributes: { body: "Also /team." } } },
    });
    expect((await eventTypes(r.id)).slice(before)).toEqual(["Vuln::Comment::Created"]);
  });

  it("closes again when asked from a closed state, and the page form answers it too", async () => {
    const r = await submitReport(org, {}, { briefId, shortcode: await shortcodeOf(briefId) });
    await move(r.id, { triage_state: "not_applicable" });
    await move(r.id, { triage_state: "needs_more_info" });
    const page = await browse("GET", `/r/${r.token}`);
    expect(page.text).toContain("The organization needs more information from you");
    const form = new FormData();
    form.set("body", "Here is the version: 2.3.1");
    const sent = await browse("POST", `/r/${r.token}/comments`, { body: form });
    expect(sent.status).toBe(303);
    const now = (await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes;
    expect(now).toMatchObject({ triage_state: "not_applicable", processing_state: "closed", closed_by: "organization" });
    // (The organization's GET above read it first: Vuln::Read comes last.)
    const types = (await eventTypes(r.id)).filter((t) => t !== "Vuln::Read");
    expect(types.slice(-4)).toEqual(["Vuln::Comment::Created", "Vuln::Updated", "Vuln::Triage::Changed", "Vuln::Processing::Closed"]);
    expect((await browse("GET", `/r/${r.token}`)).text).toContain("Closed as not applicable");
  });

  it(`closes as informative (closed_by timeout) after 30 days without an answer, exactly once however often the cron runs`, async () => {
    const r = await submitReport(org, {}, { briefId, shortcode: await shortcodeOf(briefId) });
    const asked = await move(r.id, { triage_state: "needs_more_info" });
    const askedAt = Date.parse(asked.body.data.attributes.updated_at);
    const day = 86_400_000;
    await runScheduled(env, new Date(askedAt + 30 * day - 60_000));
    expect((await row(r.id))!.triage_state).toBe("needs_more_info");
    for (let run = 0; run < 3; run++) await runScheduled(env, new Date(askedAt + 30 * day + run * 60_000));
    const closed = (await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes;
    expect(closed).toMatchObject({ triage_state: "informative", processing_state: "closed", closed_by: "timeout" });
    expect(closed.closed_at).toBe(new Date(askedAt + 30 * day).toISOString());
    expect((await eventTypes(r.id)).filter((t) => !["Vuln::Inbox::Received", "Vuln::Inbox::Stored", "Vuln::Read"].includes(t))).toEqual([
      "Vuln::Created",
      "Vuln::Updated",
      "Vuln::Triage::Changed",
      "Vuln::Updated",
      "Vuln::Processing::Closed",
      "Vuln::Triage::Changed",
    ]);
    expect((await asReporter("GET", "/v1/p/report", r.token)).body.data.attributes.triage_state).toBe("informative");
  });
});

describe("the times a report's triage leaves", () => {
  it("acknowledged_at is the first organization reply the reporter can read, not an internal note", async () => {
    const r = await submitReport(org, {}, { briefId, shortcode: await shortcodeOf(briefId) });
    const comment = (body: string, visibility: string) =>
      post(`/v1/vulns/${r.id}/comments`, org.key, { data: { type: "comment", attributes: { body, visibility } } });
    await comment("Looking", "internal");
    expect((await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes.acknowledged_at).toBeNull();
    const reply = await comment("Thanks, we are on it.", "reporter");
    await comment("Second", "reporter");
    await move(r.id, { triage_state: "triaged" });
    const a = (await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes;
    expect(a.acknowledged_at).toBe(reply.body.data.attributes.created_at);
    expect(a.triaged_at).toBe(a.updated_at);
  });

  it("triaged_at is the first move to triaged; closed_at the last close, null when open again", async () => {
    const v = await vuln(org, briefId);
    const first = (await move(v.id, { triage_state: "triaged" })).body.data.attributes;
    await move(v.id, { triage_state: "new" });
    await move(v.id, { triage_state: "triaged" });
    const closed = (await move(v.id, { triage_state: "resolved" })).body.data.attributes;
    const reclosed = (await move(v.id, { triage_state: "accepted_risk" })).body.data.attributes;
    expect([closed.triaged_at, closed.acknowledged_at, closed.closed_at]).toEqual([first.updated_at, first.updated_at, closed.updated_at]);
    expect(reclosed.closed_at).toBe(reclosed.updated_at);
    expect((await move(v.id, { processing_state: "open" })).body.data.attributes).toMatchObject({ closed_at: null, closed_by: null });
  });

  it("takes none of them as input: each is read-only", async () => {
    const v = await vuln(org, briefId);
    for (const member of ["acknowledged_at", "triaged_at", "closed_at", "closed_by"]) {
      const res = await move(v.id, { [member]: null });
      expect([res.status, res.body.errors[0].detail]).toEqual([422, `${member} is read-only.`]);
    }
  });
});

describe("filtering by triage state", () => {
  it("q[triage_state_eq] and q[triage_state_in] list exactly those states, with exact totals", async () => {
    const mine = await organization();
    const b = (await brief(mine, { published_at: PUBLISHED })).id;
    const states = ["new", "triaged", "triaged", "needs_more_info", "spam", "resolved"];
    for (const state of states) {
      const v = await vuln(mine, b);
      if (state !== "new") await move(v.id, { triage_state: state }, undefined, mine.key);
    }
    const listed = async (query: string) => {
      const res = await get(`/v1/vulns?${query}&page[size]=2`, mine.key);
      expect(res.status).toBe(200);
      return { total: res.body.meta.page.total, states: res.body.data.map((v: { attributes: Attrs }) => v.attributes.triage_state) };
    };
    expect(await listed("q[triage_state_eq]=triaged")).toEqual({ total: 2, states: ["triaged", "triaged"] });
    const some = await listed("q[triage_state_in]=needs_more_info,spam,new");
    expect(some.total).toBe(3);
    expect(some.states.every((s: string) => ["needs_more_info", "spam", "new"].includes(s))).toBe(true);
    expect((await listed("q[triage_state_in]=resolved")).total).toBe(1);
    expect((await listed("q[triage_state_in]=spam&q[processing_state_eq]=closed")).total).toBe(1);
    for (const bad of ["q[triage_state_eq]=open", "q[triage_state_in]=", "q[triage_state_in]=new,,spam", "q[triage_state_in]=New"]) {
      const res = await get(`/v1/vulns?${bad}`, mine.key);
      expect([bad, res.status, res.body.errors[0].source.parameter]).toEqual([bad, 400, bad.split("=")[0]]);
    }
  });
});

async function shortcodeOf(id: string): Promise<string> {
  return (await get(`/v1/briefs/${id}`, org.key)).body.data.attributes.shortcode;
}
