import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { AUTHENTICATED, inProcess, label, type Endpoint, type Fixture } from "../helpers/endpoints";
import { operatorKey } from "../helpers/factories";
import { buildFixture } from "../helpers/fixture";
import { type Browser, member, signedIn, type Answer } from "../helpers/console";

// Every operation an organization's key may call, made by a signed-in member of each role through the
// console's session (a same-site request with the session's form token): allowed, or 403
// insufficient_scope naming the scope it needs, with nothing written. What a role may do is written
// here, from the product's words (README, "Members and keys"), apart from the services' ROLE_SCOPES,
// and what each operation needs is the endpoint table's `scope`: a wrong mapping on either side fails.

type Role = "viewer" | "triager" | "owner";
type Scope = "read" | "vulns" | "advisories" | "settings" | "members";
const ROLES: Role[] = ["viewer", "triager", "owner"];
const MAY: Record<Role, readonly Scope[]> = {
  viewer: ["read"],
  triager: ["read", "vulns", "advisories"],
  owner: ["read", "vulns", "advisories", "settings", "members"],
};
const allowed = (role: Role, e: Endpoint) => e.scope === "none" || MAY[role].includes(e.scope as Scope);

const OPERATIONS = AUTHENTICATED.filter((e) => !e.operatorOnly);
// As the scopes test orders them: reads, changes, creates, then deletes children before parents, so
// each operation finds the records its row names whatever the ones before it did.
const ORDERED = [
  ...OPERATIONS.filter((e) => e.method === "GET"),
  ...OPERATIONS.filter((e) => e.method === "PATCH"),
  ...OPERATIONS.filter((e) => e.method === "POST"),
  ...OPERATIONS.filter((e) => e.method === "DELETE").reverse(),
];
const success = (e: Endpoint) => e.success ?? (e.method === "POST" ? 201 : e.method === "DELETE" ? 204 : 200);

/**
 * Every row of every table but the sessions' (a signed-in request may refresh its session's
 * `last_seen_at`, the door's own bookkeeping): a refused request must leave the rest exactly as it was.
 */
async function snapshot(): Promise<string> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('d1_migrations', 'sessions') ORDER BY name",
  ).all<{ name: string }>();
  const rows = await env.DB.batch(results.map(({ name }) => env.DB.prepare(`SELECT * FROM "${name}"`)));
  return JSON.stringify(results.map(({ name }, i) => [name, rows[i]!.results.map((row) => JSON.stringify(row)).sort()]));
}

/** A member's browser calls the API as the console's pages would: same-site, with the form token. */
class MemberClient {
  constructor(
    readonly browser: Browser,
    readonly token: string,
  ) {}

  call(e: Endpoint, f: Fixture): Promise<Answer> {
    const body = e.body?.(f);
    return this.browser.request(e.method, e.path(f), {
      ...(body === undefined ? {} : { json: body }),
      headers: {
        "X-CSRF-Token": this.token,
        ...(body === undefined ? {} : { "Content-Type": "application/vnd.api+json" }),
      },
    });
  }
}

async function membersOf(f: Fixture, roles: readonly Role[]): Promise<Partial<Record<Role, MemberClient>>> {
  const clients: Partial<Record<Role, MemberClient>> = {};
  for (const role of roles) {
    const who = await member(f.org, { role, email: `${role}-${f.org.id.slice(-12)}@acme.example` });
    const browser = await signedIn(who.email);
    clients[role] = new MemberClient(browser, await browser.formToken());
  }
  return clients;
}

// `mine` takes every refusal and every role's reads; the owner's and the triager's allowed changes are
// made in organizations of their own (`owners`, `triagers`), so each change is made once where it lands.
let mine: Fixture;
let owners: Fixture;
let triagers: Fixture;
let inMine: Partial<Record<Role, MemberClient>>;
let owner: MemberClient;
let triager: MemberClient;
beforeAll(async () => {
  const made = async () => (await buildFixture(inProcess, { operatorKey: await operatorKey(), submitted: true })) as Fixture;
  [mine, owners, triagers] = await Promise.all([made(), made(), made()]);
  inMine = await membersOf(mine, ROLES);
  owner = (await membersOf(owners, ["owner"])).owner!;
  triager = (await membersOf(triagers, ["triager"])).triager!;
});

it("every operation says the scope it needs, and the roles hold what the product says", () => {
  expect(OPERATIONS.filter((e) => e.scope === undefined).map(label)).toEqual([]);
  expect(OPERATIONS.length).toBeGreaterThan(60);
});

describe.each(ORDERED.map((e) => [`${label(e)} needs ${e.scope}`, e] as const))("%s", (_name, e) => {
  const refused = ROLES.filter((role) => !allowed(role, e));
  if (refused.length)
    it.each(refused)("a %s: 403 insufficient_scope, nothing written", async (role) => {
      const before = await snapshot();
      const res = await inMine[role]!.call(e, mine);
      expect([res.status, res.json().errors?.[0]?.code]).toEqual([403, "insufficient_scope"]);
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", scope="${e.scope}"`);
      expect(await snapshot()).toBe(before);
    });

  if (e.method === "GET")
    it.each(ROLES.filter((role) => allowed(role, e)))("a %s: allowed", async (role) => {
      const res = await inMine[role]!.call(e, mine);
      expect([res.status, res.text.slice(0, 300)]).toEqual([success(e), expect.any(String)]);
    });
  else {
    if (allowed("owner", e))
      it("an owner: allowed", async () => {
        const res = await owner.call(e, owners);
        expect([res.status, res.text.slice(0, 300)]).toEqual([success(e), expect.any(String)]);
      });
    if (allowed("triager", e))
      it("a triager: allowed", async () => {
        const res = await triager.call(e, triagers);
        expect([res.status, res.text.slice(0, 300)]).toEqual([success(e), expect.any(String)]);
      });
  }
});
