import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { api, del, get } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { member, signedIn } from "../helpers/console";
import { interleaved } from "../helpers/d1-faults";
import { eventTypes } from "../helpers/events";
import { brief, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";
import { mailbox, mailOf, outbox } from "../helpers/mail";
import { databaseOf, shardOf } from "../helpers/shards";

// A vuln's assignee: a joined member of the vuln's own organization, or nobody; set by PATCH (one or
// many), filtered by q[assignee_id_eq], told by e-mail, and let go when the member is removed.

const T0 = Date.parse("2026-03-02T09:00:00.000Z");
testClock(T0);

let org: TestOrganization;
let other: TestOrganization;
let briefId: string;
let otherBriefId: string;
beforeAll(async () => {
  // Two organizations with look-alike data: each a brief, reports and members of the same shape.
  org = await organization({ name: "Acme Security" });
  other = await organization({ name: "Acme Security" });
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
  otherBriefId = (await brief(other, { published_at: PUBLISHED })).id;
}, 30_000);

const assignee = (id: string | null) => ({ assignee: { data: id === null ? null : { type: "member", id } } });
const assign = (v: { id: string }, id: string | null, key = org.key, env?: { DB: D1Database }) =>
  api("PATCH", `/v1/vulns/${v.id}`, {
    key,
    body: { data: { type: "vuln", id: v.id, relationships: assignee(id) } },
    contentType: "application/json",
    ...(env ? { env } : {}),
  });
const bulk = (data: unknown) => api("PATCH", "/v1/vulns", { key: org.key, body: { data }, contentType: "application/json" });
const assigneeOf = async (v: { id: string }) =>
  (await env.DB.prepare("SELECT assignee_id FROM vulns WHERE id = ?").bind(v.id).first<{ assignee_id: string | null }>())!.assignee_id;
const audits = async (v: { id: string }) =>
  (
    await env.DB.prepare("SELECT action, changed FROM audit_events WHERE target_id = ? AND action <> 'vuln.create' ORDER BY at")
      .bind(v.id)
      .all<{ action: string; changed: string | null }>()
  ).results.map((r) => [r.action, JSON.parse(r.changed ?? "null")]);
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((v) => v.id).sort();

describe("PATCH /v1/vulns/{id} relationships.assignee", () => {
  it("assigns a joined member: the relationship, Vuln::Updated, the audit row, and an e-mail linking to the console", async () => {
    const v = await vuln(org, briefId);
    const ana = await member(org, { role: "triager" });
    const res = await assign(v, ana.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.relationships.assignee).toEqual({ data: { type: "member", id: ana.id } });
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated"]);
    expect(await audits(v)).toEqual([["vuln.update", ["assignee"]]]);
    const sent = (await mailOf(v.id, mailbox())).filter((m) => m.to === ana.email);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.subject).toBe(`Assigned to you: ${v.attributes.shortcode}: ${v.attributes.title}`);
    expect(sent[0]!.text).toContain(`${env.PUBLIC_ORIGIN}/console/reports/${v.attributes.shortcode}`);
    expect(sent[0]!.html).toContain(`href="${env.PUBLIC_ORIGIN}/console/reports/${v.attributes.shortcode}"`);
    // The same assignee again changes nothing and tells nobody.
    expect((await assign(v, ana.id)).status).toBe(200);
    expect((await eventTypes(v.id)).filter((t) => t === "Vuln::Updated")).toHaveLength(1);
    expect((await outbox({ vulnId: v.id })).filter((n) => n.kind === "vuln_assigned")).toHaveLength(1);
  });

  it("unassigns with null: Vuln::Updated, no e-mail", async () => {
    const v = await vuln(org, briefId);
    const ana = await member(org);
    expect((await assign(v, ana.id)).status).toBe(200);
    const res = await assign(v, null);
    expect([res.status, res.body.data.relationships.assignee]).toEqual([200, { data: null }]);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Updated"]);
    expect((await outbox({ vulnId: v.id })).filter((n) => n.kind === "vuln_assigned")).toHaveLength(1);
  });

  it("refuses another organization's member, an unknown id and an invitee who has not joined: 422 at the relationship, nothing written", async () => {
    const v = await vuln(org, briefId);
    const foreign = await member(other, { role: "owner" });
    const invitee = await member(org, { joined: false });
    for (const id of [foreign.id, crypto.randomUUID(), invitee.id]) {
      const res = await assign(v, id);
      expect([res.status, res.body.errors[0].source]).toEqual([422, { pointer: "/data/relationships/assignee/data/id" }]);
    }
    expect(await assigneeOf(v)).toBeNull();
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created"]);
    expect(await audits(v)).toEqual([]);
    expect(await outbox({ vulnId: v.id })).toEqual([]);
  });

  it("refuses a member removed between the read and the write (the write's own guard): 422, nothing written", async () => {
    const v = await vuln(org, briefId);
    const ana = await member(org);
    const racing = interleaved(2, () => env.DB.prepare("DELETE FROM members WHERE id = ?").bind(ana.id).run());
    const res = await assign(v, ana.id, org.key, { DB: racing });
    expect([res.status, res.body.errors?.[0]?.source]).toEqual([422, { pointer: "/data/relationships/assignee/data/id" }]);
    expect(await assigneeOf(v)).toBeNull();
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created"]);
    expect(await outbox({ vulnId: v.id })).toEqual([]);
  });

  it("sends no e-mail to a member who assigns the report to themself", async () => {
    const v = await vuln(org, briefId);
    const me = await member(org, { role: "triager" });
    const browser = await signedIn(me.email);
    const token = await browser.formToken();
    const res = await browser.request("PATCH", `/v1/vulns/${v.id}`, {
      json: { data: { type: "vuln", id: v.id, relationships: assignee(me.id) } },
      headers: { "X-CSRF-Token": token },
    });
    expect(res.status, res.text).toBe(200);
    expect(await assigneeOf(v)).toBe(me.id);
    expect(await eventTypes(v.id)).toEqual(["Vuln::Created", "Vuln::Updated"]);
    expect((await outbox({ vulnId: v.id })).filter((n) => n.kind === "vuln_assigned")).toEqual([]);
  });
});

describe("PATCH /v1/vulns (bulk) relationships.assignee", () => {
  it("assigns several at once, and one refused assignee refuses the whole request at its item", async () => {
    const [a, b] = [await vuln(org, briefId), await vuln(org, briefId)];
    const ana = await member(org);
    const foreign = await member(other);
    const item = (v: { id: string }, id: string) => ({ type: "vuln", id: v.id, relationships: assignee(id) });
    const refused = await bulk([item(a, ana.id), item(b, foreign.id)]);
    expect([refused.status, refused.body.errors[0].source]).toEqual([422, { pointer: "/data/1/relationships/assignee/data/id" }]);
    expect([await assigneeOf(a), await assigneeOf(b)]).toEqual([null, null]);
    expect([await eventTypes(a.id), await eventTypes(b.id)]).toEqual([["Vuln::Created"], ["Vuln::Created"]]);
    const res = await bulk([item(a, ana.id), item(b, ana.id)]);
    expect(res.status, res.text).toBe(200);
    expect([await assigneeOf(a), await assigneeOf(b)]).toEqual([ana.id, ana.id]);
    expect((await outbox({ vulnId: b.id })).map((n) => [n.kind, n.to])).toEqual([["vuln_assigned", ana.email]]);
  });
});

describe("GET /v1/vulns?q[assignee_id_eq]", () => {
  it("lists a member's reports, or the unassigned ones, of the caller's organization only", async () => {
    const ana = await member(org);
    const [mine, theirs] = [await vuln(org, briefId), await vuln(org, briefId)];
    const lookAlike = await vuln(other, otherBriefId);
    const foreignAna = await member(other);
    expect((await assign(mine, ana.id)).status).toBe(200);
    expect((await assign(lookAlike, foreignAna.id, other.key)).status).toBe(200);
    const byAna = await get(`/v1/vulns?q[assignee_id_eq]=${ana.id}`, org.key);
    expect([byAna.status, ids(byAna), byAna.body.meta.page.total]).toEqual([200, [mine.id], 1]);
    // Another organization's member names nothing here.
    expect(ids(await get(`/v1/vulns?q[assignee_id_eq]=${foreignAna.id}`, org.key))).toEqual([]);
    const nobody = await get("/v1/vulns?q[assignee_id_eq]=null&page[size]=100", org.key);
    expect(ids(nobody)).toContain(theirs.id);
    expect(ids(nobody)).not.toContain(mine.id);
    expect(ids(nobody)).not.toContain(lookAlike.id);
    const bad = await get("/v1/vulns?q[assignee_id_eq]=nobody", org.key);
    expect([bad.status, bad.body.errors[0].source]).toEqual([400, { parameter: "q[assignee_id_eq]" }]);
  });

  it("seeks on vulns_organization_assignee_idx", async () => {
    const ana = await member(org);
    const seen: { sql: string; params: unknown[] }[] = [];
    const recorded = <T extends D1Database | D1DatabaseSession>(inner: T): T =>
      new Proxy(inner, {
        get(target, prop) {
          if (prop === "withSession") return (...args: [string]) => recorded((target as D1Database).withSession(...args));
          if (prop === "prepare")
            return (sql: string) => {
              const stmt = target.prepare(sql);
              return new Proxy(stmt, {
                get(s, p) {
                  if (p === "bind")
                    return (...params: unknown[]) => {
                      seen.push({ sql, params });
                      return s.bind(...params);
                    };
                  const value = Reflect.get(s, p, s);
                  return typeof value === "function" ? value.bind(s) : value;
                },
              });
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    // The organization's own database (its shard when sharded) runs the page's query and answers its plan.
    const shard = await shardOf(org.id);
    const own = await databaseOf(org.id);
    const recording = { [shard]: recorded(own) } as Partial<Env>;
    for (const filter of [ana.id, "null"]) {
      seen.length = 0;
      const res = await api("GET", `/v1/vulns?q[assignee_id_eq]=${filter}`, { key: org.key, env: recording });
      expect(res.status).toBe(200);
      const page = seen.find((s) => s.sql.includes('"assignee_id"') && s.sql.includes("limit"));
      expect(page, seen.map((s) => s.sql).join("\n")).toBeDefined();
      const plan = await own
        .prepare(`EXPLAIN QUERY PLAN ${page!.sql}`)
        .bind(...page!.params)
        .all<{ detail: string }>();
      expect(plan.results.map((r) => r.detail).join("\n")).toMatch(/SEARCH vulns USING (COVERING )?INDEX vulns_organization_assignee_idx/);
    }
  });
});

describe("DELETE /v1/members/{id}", () => {
  it("unassigns the member's reports in the same batch, each firing Vuln::Updated", async () => {
    const leaving = await member(org, { role: "triager" });
    const [a, b] = [await vuln(org, briefId), await vuln(org, briefId)];
    const lookAlike = await vuln(other, otherBriefId);
    const foreignMember = await member(other);
    expect((await assign(a, leaving.id)).status).toBe(200);
    expect((await assign(b, leaving.id)).status).toBe(200);
    expect((await assign(lookAlike, foreignMember.id, other.key)).status).toBe(200);
    const res = await del(`/v1/members/${leaving.id}`, org.key);
    expect(res.status, res.text).toBe(204);
    expect([await assigneeOf(a), await assigneeOf(b), await assigneeOf(lookAlike)]).toEqual([null, null, foreignMember.id]);
    expect(await eventTypes(a.id)).toEqual(["Vuln::Created", "Vuln::Updated", "Vuln::Updated"]);
    expect(await eventTypes(lookAlike.id)).toEqual(["Vuln::Created", "Vuln::Updated"]);
  });
});
