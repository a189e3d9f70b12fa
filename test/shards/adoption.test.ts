import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADOPTED_NAMES, ADOPTED_ROWS, pageOf } from "../../src/db/adoption";
import { CATALOG_NAME_KINDS } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { del, post } from "../helpers/api";
import { Browser, signInLinks } from "../helpers/console";
import { brief, directory, listing, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { mailbox, type Mailbox } from "../helpers/mail";
import { softwarePasskey } from "../helpers/passkey";
import { runQueue } from "../helpers/queue";
import { submitReport } from "../helpers/reporter";
import { shardOf, tenantBindings } from "../helpers/shards";

// `npm run shard -- adopt` fills a new catalog from a one-database deployment's database with the queries of
// src/db/adoption.ts. Run on the tenant databases of a sharded world, they must yield exactly what the Worker
// claimed in the catalog for the organizations of that shard: a kind they miss, or a name they read that
// the Worker gave back (a revoked key, an ended session), would leave an adopted deployment's requests
// finding nothing, or a name held that nobody holds.

type Row = Record<string, unknown>;
const all = async (d1: D1Database, sql: string, ...values: unknown[]) =>
  (
    await d1
      .prepare(sql)
      .bind(...values)
      .all<Row>()
  ).results;
const line = (kind: string, r: Row) => `${kind} ${r.name} ${r.organization_id}`;

/** Sends every e-mail due in every shard, as the queue would. */
async function sendMail(box: Mailbox) {
  for (const [shard, d1] of Object.entries(tenantBindings())) {
    const due = await all(d1, "SELECT id FROM notifications WHERE status = 'pending' ORDER BY created_at");
    if (due.length)
      await runQueue(
        due.map((n) => ({ notification_id: n.id as string, shard })),
        { env: { EMAIL: box.email } },
      );
  }
}

/** An organization holding a name of every kind, some also given back (which the catalog no longer holds). */
async function namedOrganization(operator: string, directoryId: string): Promise<{ org: TestOrganization; deletedToken: string }> {
  const org = await organization();
  const revoked = await post(`/v1/organizations/${org.id}/api_keys`, operator, {
    data: { type: "api_key", attributes: { name: "spare" } },
  });
  expect((await del(`/v1/api_keys/${revoked.body.data.id}`, org.key)).status).toBe(204);
  const p = await policy(org, { name: "VDP", custom_domain: `VDP.${org.slug}.example.org`, published_at: PUBLISHED });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const report = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
  const deleted = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
  expect((await del(`/v1/vulns/${deleted.id}`, org.key)).status).toBe(204);
  const advisory = await post("/v1/advisories", org.key, {
    data: {
      type: "advisory",
      attributes: {
        title: "Draft",
        summary: "S",
        affected: [{ vendor: "Acme", product: "Web", versions: [{ version: "1", status: "affected" }] }],
      },
      relationships: { vulns: { data: [{ type: "vuln", id: report.id }] } },
    },
  });
  expect(advisory.status).toBe(201);
  const contact = await post("/v1/contacts", org.key, {
    data: { type: "contact", attributes: { name: "Ana Lima", email: `resp-${org.slug}@acme.example`, role: "responder" } },
  });
  expect(contact.status).toBe(201);
  await listing(operator, directoryId, org.id);

  // A member signs in by an e-mailed link (a link and a session), adds a passkey, and signs in again
  // elsewhere, then out there (a session ended).
  const email = `ana-${org.slug}@acme.example`;
  expect((await post("/v1/members", org.key, { data: { type: "member", attributes: { email, role: "owner" } } })).status).toBe(201);
  await sendMail(mailbox());
  const signIn = async (browser: Browser) => {
    const box = mailbox();
    expect((await browser.post("/console/sign-in", { form: { email } })).status).toBe(303);
    await sendMail(box);
    const [link] = signInLinks(box, email);
    expect((await browser.post(link!)).status).toBe(303);
    return browser;
  };
  const browser = await signIn(new Browser());
  const key = await softwarePasskey("https://api.vdp.test");
  const csrf = { "X-CSRF-Token": await browser.formToken() };
  const { challenge } = (await browser.post("/console/passkeys/options", { json: {}, headers: csrf })).json();
  const added = await browser.post("/console/passkeys", {
    json: { name: "Laptop", response: await key.register(challenge) },
    headers: csrf,
  });
  expect(added.status, added.text).toBe(201);
  const elsewhere = await signIn(new Browser());
  expect((await elsewhere.post("/console/sign-out", { form: { csrf: await elsewhere.formToken() } })).status).toBe(303);
  return { org, deletedToken: await sha256Hex(deleted.token) };
}

describe("adopting a one-database deployment's database as the first shard", () => {
  it("reads every kind of catalog name, each by one query", () => {
    expect(Object.keys(ADOPTED_NAMES).sort()).toEqual([...CATALOG_NAME_KINDS].sort());
  });

  it("reads from each tenant database exactly the names, placements and copies the Worker keeps in the catalog for its organizations", async () => {
    const operator = (await organization()).operatorKey;
    const d = await directory(operator);
    const made = [await namedOrganization(operator, d.id), await namedOrganization(operator, d.id)];
    expect(new Set(await Promise.all(made.map(({ org }) => shardOf(org.id))))).toEqual(new Set(["TENANT_1", "TENANT_2"]));

    const claimedKinds = new Set<string>();
    for (const [shard, d1] of Object.entries(tenantBindings())) {
      const adopted: string[] = [];
      for (const [kind, sql] of Object.entries(ADOPTED_NAMES)) adopted.push(...(await all(d1, sql)).map((r) => line(kind, r)));
      const claimed = await all(
        env.CATALOG,
        "SELECT n.kind, n.name, n.organization_id FROM catalog_names n JOIN tenants t ON t.organization_id = n.organization_id WHERE t.shard = ?",
        shard,
      );
      for (const r of claimed) claimedKinds.add(r.kind as string);
      // The one name a tenant database cannot give back: a deleted report's token keeps no organization there.
      const unreadable = made.filter(({ org }) => claimed.some((r) => r.organization_id === org.id)).map((m) => m.deletedToken);
      expect(unreadable).toHaveLength(1);
      expect(adopted.sort()).toEqual(
        claimed
          .filter((r) => !(r.kind === "report_token" && unreadable.includes(r.name as string)))
          .map((r) => line(r.kind as string, r))
          .sort(),
      );

      // A placement and a copy of each organization's row, as the Worker made them; the directories every shard keeps.
      const organizations = await all(d1, ADOPTED_ROWS.organizations);
      const placed = await all(env.CATALOG, "SELECT organization_id AS id FROM tenants WHERE shard = ?", shard);
      expect(organizations.map((o) => o.id).sort()).toEqual(placed.map((p) => p.id).sort());
      const copies = await all(
        env.CATALOG,
        `SELECT * FROM organizations WHERE id IN (SELECT organization_id FROM tenants WHERE shard = ?)`,
        shard,
      );
      const byId = (rows: Row[]) => [...rows].sort((a, b) => String(a.id).localeCompare(String(b.id)));
      expect(byId(copies)).toEqual(byId(organizations));
      expect(byId(await all(d1, ADOPTED_ROWS.directories))).toEqual(byId(await all(env.CATALOG, "SELECT * FROM directories")));
      // Operators' keys live in the catalog here; the query reads them where a one-database deployment keeps them.
      expect(await all(d1, ADOPTED_ROWS.api_keys)).toEqual([]);
    }
    expect([...claimedKinds].sort()).toEqual([...CATALOG_NAME_KINDS].sort());

    // The catalog names each unrevoked operator's key as no organization's, which is what adopt writes for the rows it reads.
    const operators = (await all(env.CATALOG, ADOPTED_ROWS.api_keys)).filter((k) => k.revoked_at === null).map((k) => k.key_hash);
    const operatorNames = await all(env.CATALOG, "SELECT name FROM catalog_names WHERE kind = 'api_key' AND organization_id = ''");
    expect(operators.sort()).toEqual(operatorNames.map((n) => n.name).sort());
  });

  it("pages a query in the order of its key, from past the last row read", async () => {
    const org = await organization();
    const d1 = tenantBindings()[await shardOf(org.id)]!;
    const slugs = (await all(d1, ADOPTED_NAMES.organization_slug)).map((r) => r.name as string).sort();
    const paged: string[] = [];
    for (let after = ""; ; ) {
      const page = await all(d1, pageOf(ADOPTED_NAMES.organization_slug, "name", after, 1));
      if (!page.length) break;
      paged.push(page[0]!.name as string);
      after = page[0]!.name as string;
    }
    expect(paged).toEqual(slugs);
    // A key holding a quote is written as text, not as SQL.
    const past = await all(d1, pageOf(ADOPTED_NAMES.organization_slug, "name", "it's", 1));
    expect(past.map((r) => r.name)).toEqual(slugs.filter((s) => s > "it's").slice(0, 1));
  });
});
