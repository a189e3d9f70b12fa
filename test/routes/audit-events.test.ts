import { env } from "cloudflare:workers";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/lib/ids";
import { runScheduled } from "../../src/scheduled";
import { api, del, get, patch, post } from "../helpers/api";
import { asset, organization, type TestOrganization } from "../helpers/factories";
import { NEIGHBOUR } from "../helpers/world";

// The audit log through its API: a change's row as the change's own request wrote it, the filters and
// cursor pages, CSV, tenancy; and the rows' life: immutable, kept 400 days, then deleted by the cron.

const DAY = 86_400_000;

const log = (key: string, query = "") => get(`/v1/audit_events${query}`, key);

async function renamed(org: TestOrganization, assetId: string, description: string, headers: Record<string, string> = {}) {
  const res = await patch(
    `/v1/assets/${assetId}`,
    org.key,
    { data: { type: "asset", attributes: { short_description: description } } },
    { headers },
  );
  expect(res.status).toBe(200);
  return res;
}

/** A row written straight into the table, as old as asked (the API writes only rows of now). */
async function rawRow(organizationId: string, at: string): Promise<string> {
  const id = uuidv7();
  await env.DB.prepare(
    "INSERT INTO audit_events (id, organization_id, at, actor_type, action, target_type, target_id) VALUES (?, ?, ?, 'system', 'vuln.update', 'vuln', ?)",
  )
    .bind(id, organizationId, at, id)
    .run();
  return id;
}

const rowExists = async (id: string) => (await env.DB.prepare("SELECT 1 AS one FROM audit_events WHERE id = ?").bind(id).first()) !== null;

describe("GET /v1/audit_events", () => {
  it("shows a change as its request made it: who, what, to what, which members, from where", async () => {
    const org = await organization();
    const a = await asset(org);
    const res = await renamed(org, a.id, "Shop front", { "User-Agent": "audit-test/1.0", "CF-Connecting-IP": "203.0.113.9" });
    const page = await log(org.key, `?q[target_id_eq]=${a.id}`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: any) => e.attributes.action)).toEqual(["asset.update", "asset.create"]);
    expect(page.body.data[0]).toMatchObject({
      type: "audit_events",
      attributes: {
        actor: { type: "api_key", id: org.keyId, name: "test" },
        target: { type: "asset", id: a.id },
        changed: ["short_description"],
        request_id: res.headers.get("X-Request-Id"),
        ip: "203.0.113.9",
        user_agent: "audit-test/1.0",
      },
      relationships: { organization: { data: { type: "organization", id: org.id } } },
    });
    // Names only: the value it was set to is nowhere in the row.
    expect(JSON.stringify(page.body.data[0])).not.toContain("Shop front");
    const one = await get(page.body.data[0].links.self, org.key);
    expect(one.body.data).toEqual(page.body.data[0]);
  });

  it("filters by actor, action, target and time, and pages by cursor, newest first", async () => {
    const org = await organization();
    const a = await asset(org);
    for (let i = 0; i < 5; i++) await renamed(org, a.id, `Take ${i}`);
    const updates = `?q[action_eq]=asset.update&q[target_id_eq]=${a.id}&q[actor_id_eq]=${org.keyId}`;
    const all = await log(org.key, updates);
    expect(all.body.meta.page.total).toBe(5);
    const ids: string[] = all.body.data.map((e: any) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);

    const walked: string[] = [];
    let next: string | null = `/v1/audit_events${updates}&page[size]=2&page[after]=`;
    while (next) {
      const res: { status: number; body: any } = await get(next, org.key);
      expect(res.status).toBe(200);
      walked.push(...res.body.data.map((e: any) => e.id));
      next = res.body.links.next;
    }
    expect(walked).toEqual(ids);

    const at = all.body.data[2].attributes.at;
    const since = await log(org.key, `${updates}&q[at_gteq]=${encodeURIComponent(at)}`);
    expect(since.body.data.every((e: any) => e.attributes.at >= at)).toBe(true);
    const until = await log(org.key, `${updates}&q[at_lteq]=${encodeURIComponent(at)}`);
    expect(until.body.data.every((e: any) => e.attributes.at <= at)).toBe(true);
    expect(new Set([...since.body.data, ...until.body.data].map((e: any) => e.id))).toEqual(new Set(ids));
    expect((await log(org.key, `${updates}&sort=at`)).body.data.map((e: any) => e.id)).toEqual([...ids].reverse());
  });

  it("refuses a filter it cannot read, at its parameter", async () => {
    const org = await organization();
    for (const [query, parameter] of [
      ["?q[action_eq]=DROP TABLE", "q[action_eq]"],
      ["?q[actor_id_eq]=someone", "q[actor_id_eq]"],
      ["?q[at_gteq]=yesterday", "q[at_gteq]"],
      ["?q[at_gteq]=2026-02-01T00:00:00Z&q[at_lteq]=2026-01-01T00:00:00Z", "q[at_gteq]"],
      ["?q[verb_eq]=x", "q[verb_eq]"],
    ]) {
      const res = await log(org.key, query!);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0].source.parameter, query).toBe(parameter);
    }
  });

  it("is the organization's own: another's rows are neither listed nor shown, and naming it is refused", async () => {
    const org = await organization();
    const other = await organization();
    const theirs = (await log(other.key)).body.data[0];
    expect(theirs).toBeDefined();
    const mine = await log(org.key, "?page[size]=100");
    expect(mine.body.data.every((e: any) => e.relationships.organization.data.id === org.id)).toBe(true);
    expect((await get(`/v1/audit_events/${theirs.id}`, org.key)).status).toBe(404);
    const named = await log(org.key, `?q[organization_id_eq]=${other.id}`);
    expect(named.status).toBe(400);
    expect(named.body.errors[0].source.parameter).toBe("q[organization_id_eq]");
    expect((await log(org.key, `?q[organization_id_eq]=${org.id}`)).status).toBe(200);
    expect((await get("/v1/audit_events", null)).status).toBe(401);
  });

  it("lets an operator read any organization's log, one at a time if asked, with the operator's own changes in it", async () => {
    const org = await organization();
    const one = await log(org.operatorKey, `?q[organization_id_eq]=${org.id}&page[size]=100`);
    expect(one.status).toBe(200);
    expect(one.body.data.length).toBeGreaterThan(0);
    expect(one.body.data.every((e: any) => e.relationships.organization.data.id === org.id)).toBe(true);
    // The operator made the organization and its key: those rows are the operator's, in the organization's log.
    const made = one.body.data.find((e: any) => e.attributes.action === "organization.create");
    expect(made.attributes.actor.type).toBe("operator");
    expect(one.body.data.find((e: any) => e.attributes.action === "api_key.create").attributes.target.id).toBe(org.keyId);
    const everyone = await log(org.operatorKey, "?page[size]=100");
    expect(new Set(everyone.body.data.map((e: any) => e.relationships.organization.data?.id)).size).toBeGreaterThan(1);
  });

  it("answers the same page as CSV (RFC 4180) that a parser reads back, with the next page in Link", async () => {
    const org = await organization();
    const a = await asset(org);
    // What a client sends lands in the log: quotes, commas and a would-be formula stay text.
    await renamed(org, a.id, "x", { "User-Agent": '=HYPERLINK("http://evil.example","click"), "quoted"' });
    await renamed(org, a.id, "y");
    const query = `?q[target_id_eq]=${a.id}&page[size]=2&page[after]=`;
    const json = await log(org.key, query);
    const csv = await api("GET", `/v1/audit_events${query}`, { key: org.key, headers: { Accept: "text/csv" } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toBe("text/csv; charset=utf-8; header=present");
    expect(csv.headers.get("Vary")).toContain("Accept");
    expect(csv.headers.get("Link")).toBe(`<${json.body.links.next}>; rel="next"`);
    const parsed = Papa.parse<Record<string, string>>(csv.text.replace(/\r\n$/, ""), { header: true, newline: "\r\n" });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.id)).toEqual(json.body.data.map((e: any) => e.id));
    const [newest, before] = parsed.data;
    expect(newest).toMatchObject({ action: "asset.update", actor_type: "api_key", actor_id: org.keyId, target_id: a.id });
    expect(newest!.changed).toBe("short_description");
    expect(before!.user_agent).toBe(`'=HYPERLINK("http://evil.example","click"), "quoted"`);
    expect(newest!.organization_id).toBe(org.id);
  });
});

describe("the audit log's rows", () => {
  it("cannot be changed, nor deleted before 400 days, by anyone (the database refuses)", async () => {
    const org = await organization();
    const young = await rawRow(org.id, new Date().toISOString());
    const old = await rawRow(org.id, new Date(Date.now() - 401 * DAY).toISOString());
    await expect(env.DB.prepare("UPDATE audit_events SET action = 'vuln.delete' WHERE id = ?").bind(young).run()).rejects.toThrow(
      /audit_events are immutable/,
    );
    await expect(env.DB.prepare("UPDATE audit_events SET actor_name = 'someone' WHERE id = ?").bind(old).run()).rejects.toThrow(
      /audit_events are immutable/,
    );
    await expect(env.DB.prepare("DELETE FROM audit_events WHERE id = ?").bind(young).run()).rejects.toThrow(/kept 400 days/);
    expect(await rowExists(young)).toBe(true);
  });

  it("are deleted by the cron once older than 400 days, and only then", async () => {
    const org = await organization();
    const now = new Date();
    const old = await rawRow(org.id, new Date(now.getTime() - 401 * DAY).toISOString());
    const almost = await rawRow(org.id, new Date(now.getTime() - 399 * DAY).toISOString());
    const young = await rawRow(org.id, now.toISOString());
    await runScheduled(env, now);
    expect(await rowExists(old)).toBe(false);
    expect(await rowExists(almost)).toBe(true);
    expect(await rowExists(young)).toBe(true);
    // The neighbour's log, made when this file's database was, is young: all of it stays.
    const neighbour = await env.DB.prepare(
      "SELECT count(*) AS n FROM audit_events WHERE organization_id = (SELECT id FROM organizations WHERE slug = ?)",
    )
      .bind(NEIGHBOUR.slug)
      .first<{ n: number }>();
    expect(neighbour!.n).toBeGreaterThan(0);
  });
});

describe("writes without their audit row", () => {
  it("write nothing at all: a refused change leaves no row, a change that found nothing none either", async () => {
    const org = await organization();
    const missing = "01900000-0000-7000-8000-000000000000";
    expect((await del(`/v1/assets/${missing}`, org.key)).status).toBe(404);
    expect((await del(`/v1/webhooks/${missing}`, org.key)).status).toBe(404);
    const bad = await post("/v1/assets", org.key, { data: { type: "asset", attributes: { kind: "domain", value: "not a domain" } } });
    expect(bad.status).toBe(422);
    const rows = await log(org.key, `?q[target_id_eq]=${missing}`);
    expect(rows.body.data).toEqual([]);
  });
});
