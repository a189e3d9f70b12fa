import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { unsubscribeToken } from "../../src/notifications/links";
import { api, browse } from "../helpers/api";
import { Browser, signInLinks } from "../helpers/console";
import { organization, type TestOrganization } from "../helpers/factories";
import { linkIn, mailbox, type Mailbox } from "../helpers/mail";
import { softwarePasskey } from "../helpers/passkey";
import { runQueue } from "../helpers/queue";
import { submitReport } from "../helpers/reporter";
import { databaseOf, shardOf, tenantBindings } from "../helpers/shards";

// The console and the e-mails' links in a sharded deployment. A person may be a member of organizations
// in different shards: asking for links asks every shard, each link signs in to its own organization's
// shard, and its session, its passkeys and the links' records are named in the catalog while they live.

const holder = (kind: string, name: string) =>
  env.CATALOG.prepare("SELECT organization_id AS id FROM catalog_names WHERE kind = ? AND name = ?").bind(kind, name).first<string>("id");

/** Sends every e-mail due in every shard, as the queue would (each message names its row's shard). */
async function sendMail(box: Mailbox) {
  for (const [shard, d1] of Object.entries(tenantBindings())) {
    const due = (await d1.prepare("SELECT id FROM notifications WHERE status = 'pending' ORDER BY created_at").all<{ id: string }>())
      .results;
    if (due.length)
      await runQueue(
        due.map((n) => ({ notification_id: n.id, shard })),
        { env: { EMAIL: box.email } },
      );
  }
}

/** Two organizations in different shards, named alike. */
async function apart(): Promise<[TestOrganization, TestOrganization]> {
  const a = await organization({ name: "Acme Security" });
  const b = await organization({ name: "Acme Labs" });
  expect(await shardOf(a.id)).not.toBe(await shardOf(b.id));
  return [a, b];
}

const invite = async (org: TestOrganization, email: string, role = "owner") => {
  const res = await api("POST", "/v1/members", { key: org.key, body: { data: { type: "member", attributes: { email, role } } } });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
};

/** The links of a request for sign-in links to `email`, from `browser`. */
async function linksFor(browser: Browser, email: string): Promise<string[]> {
  // What was waiting goes first (an invitation to the same address).
  await sendMail(mailbox());
  const box = mailbox();
  const asked = await browser.post("/console/sign-in", { form: { email } });
  expect(asked.status, asked.text).toBe(303);
  await sendMail(box);
  return signInLinks(box, email);
}

/** Signs `browser` in by a link's page and its button; answers the landing page. */
async function signIn(browser: Browser, link: string) {
  const shown = await browser.get(link);
  expect(shown.status, shown.text).toBe(200);
  const done = await browser.post(link);
  expect([done.status, done.headers.get("Location")]).toEqual([303, "/console"]);
  return browser.get("/console");
}

describe("the console in a sharded deployment", () => {
  it("sends one e-mail with a link for each membership in any shard, and each link signs in to its own organization", async () => {
    const [a, b] = await apart();
    const email = `ana-${a.slug}@acme.example`;
    const ids = [await invite(a, email), await invite(b, email)];
    const browser = new Browser();
    const links = await linksFor(browser, email);
    // In the e-mail's order: by organization name, whichever shard each is in.
    expect(links).toHaveLength(2);
    const hashes = await Promise.all(links.map((l) => sha256Hex(l.split("/").at(-1)!)));
    expect([await holder("sign_in_link", hashes[0]!), await holder("sign_in_link", hashes[1]!)]).toEqual([b.id, a.id]);

    const cookieHash = () => sha256Hex(browser.cookies.get("__Host-vdp_session")!);
    // Each link in the browser that asked: each session is its organization's shard's, named in the catalog.
    expect((await signIn(browser, links[0]!)).text).toContain("Acme Labs");
    const ofB = await cookieHash();
    expect((await signIn(browser, links[1]!)).text).toContain("Acme Security");
    const ofA = await cookieHash();
    expect([await holder("session", ofA), await holder("session", ofB)]).toEqual([a.id, b.id]);
    const joined = async (org: TestOrganization, memberId: string) =>
      (await databaseOf(org.id)).prepare("SELECT joined_at AS at FROM members WHERE id = ?").bind(memberId).first<string | null>("at");
    expect([Boolean(await joined(a, ids[0]!)), Boolean(await joined(b, ids[1]!))]).toEqual([true, true]);
    // A used link says so, from its own shard.
    expect((await browser.get(links[0]!)).status).toBe(410);

    // Signing out ends the session and its name; the cookie opens nothing any more.
    const form = { csrf: await browser.formToken() };
    expect((await browser.post("/console/sign-out", { form })).status).toBe(303);
    expect([await holder("session", ofA), await holder("session", ofB)]).toEqual([null, b.id]);
    expect((await browser.get("/console")).status).toBe(303);
  });

  it("answers an address of nobody's and an unknown link as before, and counts the budget in the catalog", async () => {
    const browser = new Browser();
    const nobody = `nobody-${crypto.randomUUID()}@acme.example`;
    expect(await linksFor(browser, nobody).catch(() => [])).toEqual([]);
    const subject = await sha256Hex(nobody);
    expect(await env.CATALOG.prepare("SELECT count(*) AS n FROM sign_in_failures WHERE subject = ?").bind(subject).first("n")).toBe(1);
    for (const d1 of Object.values(tenantBindings()))
      expect(await d1.prepare("SELECT count(*) AS n FROM sign_in_failures WHERE subject = ?").bind(subject).first("n")).toBe(0);
    const unknown = `/console/sign-in/${"A".repeat(43)}`;
    expect((await browser.get(unknown)).status).toBe(404);
    expect((await browser.post(unknown)).status).toBe(404);
  });

  it("ends a member's sessions by an owner's revocation, and forgets their names with the member", async () => {
    const [, b] = await apart();
    const email = `bo-${b.slug}@acme.example`;
    const id = await invite(b, email, "triager");
    const browser = new Browser();
    await signIn(browser, (await linksFor(browser, email))[0]!);
    const hash = await sha256Hex(browser.cookies.get("__Host-vdp_session")!);
    expect(await holder("session", hash)).toBe(b.id);
    expect((await api("DELETE", `/v1/members/${id}/sessions`, { key: b.key })).status).toBe(204);
    expect(await holder("session", hash)).toBeNull();
    expect((await browser.get("/console")).status).toBe(303);
    expect(await holder("member", id)).toBe(b.id);
    expect((await api("DELETE", `/v1/members/${id}`, { key: b.key })).status).toBe(204);
    expect(await holder("member", id)).toBeNull();
  });

  it("adds a passkey in the member's shard and signs in with it there, by its id", async () => {
    const [, b] = await apart();
    const email = `cy-${b.slug}@acme.example`;
    await invite(b, email);
    const browser = new Browser();
    await signIn(browser, (await linksFor(browser, email))[0]!);
    const key = await softwarePasskey("https://api.vdp.test");
    const csrf = { "X-CSRF-Token": await browser.formToken() };
    const { challenge } = (await browser.post("/console/passkeys/options", { json: {}, headers: csrf })).json();
    const added = await browser.post("/console/passkeys", {
      json: { name: "Laptop", response: await key.register(challenge) },
      headers: csrf,
    });
    expect(added.status, added.text).toBe(201);
    expect(await holder("passkey", key.id)).toBe(b.id);

    const elsewhere = new Browser();
    const options = (await elsewhere.post("/console/sign-in/passkey/options", { json: {} })).json();
    // The challenge is nobody's yet: the catalog keeps it.
    expect(
      await env.CATALOG.prepare("SELECT count(*) AS n FROM webauthn_challenges WHERE challenge = ?").bind(options.challenge).first("n"),
    ).toBe(1);
    const signed = await elsewhere.post("/console/sign-in/passkey", { json: { response: await key.assert(options.challenge) } });
    expect([signed.status, signed.text]).toEqual([200, JSON.stringify({ redirect: "/console" })]);
    expect((await elsewhere.get("/console")).text).toContain("Acme Labs");
    // An unknown passkey signs nobody in, read nowhere but the catalog.
    const again = (await elsewhere.post("/console/sign-in/passkey/options", { json: {} })).json();
    const stranger = await softwarePasskey("https://api.vdp.test");
    expect((await elsewhere.post("/console/sign-in/passkey", { json: { response: await stranger.assert(again.challenge) } })).status).toBe(
      401,
    );
    // Removed, its name goes.
    const removed = await browser.post(`/console/passkeys/${encodeURIComponent(key.id)}/delete`, { form: { csrf: csrf["X-CSRF-Token"] } });
    expect(removed.status).toBe(303);
    expect(await holder("passkey", key.id)).toBeNull();
  });

  it("opens the e-mails' links in their organization's shard: a contact's confirmation, a member's invitation, a reporter's unsubscribe", async () => {
    const [a, b] = await apart();
    for (const org of [a, b]) {
      const box = mailbox();
      const contact = `resp-${org.slug}@acme.example`;
      const made = await api("POST", "/v1/contacts", {
        key: org.key,
        body: { data: { type: "contact", attributes: { name: "Ana Lima", email: contact, role: "responder" } } },
      });
      expect(made.status).toBe(201);
      const invited = `dee-${org.slug}@acme.example`;
      await invite(org, invited);
      await sendMail(box);
      const same = { headers: { "Sec-Fetch-Site": "same-origin" } };
      const confirm = linkIn(box.to(contact)[0]?.text, "c");
      expect((await browse("GET", confirm)).status).toBe(200);
      expect((await browse("POST", confirm, same)).status).toBe(200);
      expect((await api("GET", `/v1/contacts/${made.body.data.id}`, { key: org.key })).body.data.attributes.confirmed_at).not.toBeNull();
      expect(await holder("contact", made.body.data.id)).toBe(org.id);
      expect((await api("DELETE", `/v1/contacts/${made.body.data.id}`, { key: org.key })).status).toBe(204);
      expect(await holder("contact", made.body.data.id)).toBeNull();
      expect((await browse("GET", confirm)).status).toBe(404);
      const join = linkIn(box.to(invited)[0]?.text, "i");
      expect((await browse("POST", join, same)).status).toBe(200);

      const report = await submitReport(org, { contact_email: `finder-${org.slug}@researcher.example` });
      const stop = `/u/${await unsubscribeToken(report.id)}`;
      const page = await browse("GET", stop);
      expect([page.status, page.text.includes(report.shortcode)]).toEqual([200, true]);
      expect((await browse("POST", stop)).status).toBe(200);
      expect(
        await (await databaseOf(org.id)).prepare("SELECT notify_reporter AS n FROM vulns WHERE id = ?").bind(report.id).first("n"),
      ).toBe(0);
    }
    // Unknown records are 404s as before.
    expect((await browse("GET", `/c/${crypto.randomUUID()}.${"a".repeat(24)}`)).status).toBe(404);
    expect((await browse("GET", `/i/${crypto.randomUUID()}.${"a".repeat(24)}`)).status).toBe(404);
    expect((await browse("GET", `/u/${crypto.randomUUID()}.${"a".repeat(24)}`)).status).toBe(404);
  });
});
