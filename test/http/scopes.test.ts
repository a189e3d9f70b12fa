import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, post } from "../helpers/api";
import { AUTHENTICATED, inProcess, label, type Endpoint, type Fixture } from "../helpers/endpoints";
import { operatorKey } from "../helpers/factories";
import { buildFixture } from "../helpers/fixture";

// Every operation an organization's key may call, against a key of each single scope and one with all
// of them: allowed, or 403 insufficient_scope naming the scope it needs, with nothing written. What
// each operation needs is the endpoint table's `scope`, written apart from the services' mapping
// (src/services/access.ts), so a wrong mapping on either side fails here.

type Scope = "read" | "vulns" | "advisories" | "settings" | "members";
const SINGLE: Scope[] = ["read", "vulns", "advisories", "settings", "members"];
const ORGANIZATION_OPERATIONS = AUTHENTICATED.filter((e) => !e.operatorOnly);
// Reads, then changes, then creates (a new directory item would change what a reorder must name),
// then deletes, children before their parents (the table lists a parent before its children), so each
// operation finds the records its row names whatever the others did.
const ORDERED = [
  ...ORGANIZATION_OPERATIONS.filter((e) => e.method === "GET"),
  ...ORGANIZATION_OPERATIONS.filter((e) => e.method === "PATCH"),
  ...ORGANIZATION_OPERATIONS.filter((e) => e.method === "POST"),
  ...ORGANIZATION_OPERATIONS.filter((e) => e.method === "DELETE").reverse(),
];

const success = (e: Endpoint) => e.success ?? (e.method === "POST" ? 201 : e.method === "DELETE" ? 204 : 200);

/** Every row of every table: a refused request must leave the database exactly as it was. */
async function snapshot(): Promise<string> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const rows = await env.DB.batch(results.map(({ name }) => env.DB.prepare(`SELECT * FROM "${name}"`)));
  return JSON.stringify(results.map(({ name }, i) => [name, rows[i]!.results.map((row) => JSON.stringify(row)).sort()]));
}

async function keyWith(f: Fixture, scopes: Scope[]): Promise<string> {
  const res = await post(`/v1/organizations/${f.org.id}/api_keys`, f.org.operatorKey, {
    data: { type: "api_key", attributes: { name: scopes.join(" "), scopes } },
  });
  expect(res.status).toBe(201);
  expect(res.body.data.attributes.scopes).toEqual(scopes);
  return res.body.data.attributes.key;
}

// `mine` takes every refusal and the single-scope keys' allowed calls; the key with every scope makes
// its allowed writes on `twin`, so each write is made once per organization.
let mine: Fixture;
let twin: Fixture;
const keys = {} as Record<Scope, string>;
beforeAll(async () => {
  // Through the brief, so the report has a reporter a reply may be visible to.
  const made = async () => (await buildFixture(inProcess, { operatorKey: await operatorKey(), submitted: true })) as Fixture;
  [mine, twin] = await Promise.all([made(), made()]);
  for (const scope of SINGLE) keys[scope] = await keyWith(mine, [scope]);
});

it("every operation an organization's key may call says the scope it needs", () => {
  expect(ORGANIZATION_OPERATIONS.filter((e) => e.scope === undefined).map(label)).toEqual([]);
  expect(ORGANIZATION_OPERATIONS.length).toBeGreaterThan(60);
});

describe.each(ORDERED.map((e) => [`${label(e)} needs ${e.scope}`, e] as const))("%s", (_name, e) => {
  const allowed = (scope: Scope) => e.scope === "none" || e.scope === scope;

  const refused = SINGLE.filter((s) => !allowed(s));
  if (refused.length)
    it.each(refused)("a %s key: 403 insufficient_scope, nothing written", async (scope) => {
      const before = await snapshot();
      const res = await api(e.method, e.path(mine), { key: keys[scope], body: e.body?.(mine) });
      expect([res.status, res.body?.errors?.[0]?.code]).toEqual([403, "insufficient_scope"]);
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", scope="${e.scope}"`);
      expect(res.body.errors[0].detail).toContain(`the ${e.scope} scope`);
      expect(await snapshot()).toBe(before);
    });

  it.each(SINGLE.filter(allowed))("a %s key: allowed", async (scope) => {
    const res = await api(e.method, e.path(mine), { key: keys[scope], body: e.body?.(mine) });
    expect([res.status, res.text.slice(0, 300)]).toEqual([success(e), expect.any(String)]);
  });

  it("a key with every scope: allowed", async () => {
    const f = e.method === "GET" ? mine : twin;
    const res = await api(e.method, e.path(f), { key: f.org.key, body: e.body?.(f) });
    expect([res.status, res.text.slice(0, 300)]).toEqual([success(e), expect.any(String)]);
  });
});

describe("the document", () => {
  it("says each operation's scope where tools look (x-scope), with the 403 and its challenge", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    for (const e of ORGANIZATION_OPERATIONS) {
      const where = label(e).replace(/\{org\}|[0-9a-f-]{36}/g, "{id}");
      const [method, path] = where.split(" ") as [string, string];
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect([where, op?.["x-scope"] ?? "none"]).toEqual([where, e.scope]);
      if (e.scope === "none") continue;
      expect([where, op.responses["403"]?.headers?.["WWW-Authenticate"]]).toEqual([
        where,
        { $ref: "#/components/headers/WWWAuthenticateScope" },
      ]);
      expect(op.description).toContain(`needs the \`${e.scope}\` scope`);
    }
  });
});
