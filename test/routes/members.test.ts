import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, browse } from "../helpers/api";
import { operatorKey, organization, type TestOrganization } from "../helpers/factories";
import { linkIn, mailbox, outbox, runMail } from "../helpers/mail";
import { NEIGHBOUR } from "../helpers/world";
import { LIMITS } from "../../src/lib/limits";

// Members: the organization's people who sign in. A new member gets one invitation e-mail whose link
// opens a page; only the page's button (a same-site POST) joins. The last owner stays an owner, and a
// member removed, demoted or readdressed loses their sessions in the change's own batch.

const SAME_SITE = { headers: { "Sec-Fetch-Site": "same-origin" } };

const addMember = (org: TestOrganization, attributes: Record<string, unknown>, key = org.key) =>
  api("POST", "/v1/members", { key, body: { data: { type: "member", attributes } } });
const patchMember = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  api("PATCH", `/v1/members/${id}`, { key: org.key, body: { data: { type: "member", id, attributes } } });
const showMember = (org: TestOrganization, id: string) => api("GET", `/v1/members/${id}`, { key: org.key });

async function member(org: TestOrganization, attributes: Record<string, unknown>): Promise<string> {
  const res = await addMember(org, attributes);
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

/** A session row as the sign-in writes one (written here in SQL: sign-in is another part). */
async function session(org: TestOrganization, memberId: string): Promise<void> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO sessions (id, token_hash, member_id, organization_id, method, last_seen_at, expires_at, created_at) VALUES (?, ?, ?, ?, 'email_link', ?, ?, ?)",
  )
    .bind(id, `hash-${id}`, memberId, org.id, now, new Date(Date.now() + 86_400_000).toISOString(), now)
    .run();
}

const liveSessions = async (memberId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE member_id = ? AND revoked_at IS NULL")
    .bind(memberId)
    .first<{ n: number }>())!.n;

const audits = async (targetId: string) =>
  (
    await env.DB.prepare("SELECT action, actor_type, changed FROM audit_events WHERE target_id = ? ORDER BY id")
      .bind(targetId)
      .all<{ action: string; actor_type: string; changed: string | null }>()
  ).results;

const owners = async (org: TestOrganization) =>
  (await api("GET", "/v1/members?q[role_eq]=owner", { key: org.key })).body.data.map((m: any) => m.attributes.email).sort();

describe("members", () => {
  it("are created invited, read, listed with filters, changed and removed by the organization's key, each change audited", async () => {
    const org = await organization();
    const created = await addMember(org, { email: "Ana@Acme.example", name: "Ana Lima", role: "triager" });
    expect(created.status).toBe(201);
    expect(created.headers.get("Location")).toBe(`/v1/members/${created.body.data.id}`);
    expect(created.body.data.attributes).toMatchObject({
      email: "ana@acme.example",
      name: "Ana Lima",
      role: "triager",
      invited_at: expect.any(String),
      joined_at: null,
      last_sign_in_at: null,
    });
    expect(created.body.data.relationships.organization.data.id).toBe(org.id);
    const id = created.body.data.id;
    const bo = await member(org, { email: "bo@acme.example", role: "owner" });

    expect((await showMember(org, id)).body.data.attributes.email).toBe("ana@acme.example");
    const list = async (query: string) =>
      (await api("GET", `/v1/members?${query}`, { key: org.key })).body.data.map((m: any) => m.attributes.email).sort();
    expect(await list("")).toEqual(["ana@acme.example", "bo@acme.example"]);
    expect(await list("q[role_eq]=owner")).toEqual(["bo@acme.example"]);
    expect(await list("q[email_eq]=ANA@acme.example")).toEqual(["ana@acme.example"]);
    expect(await list("q[joined_eq]=true")).toEqual([]);
    expect(await list("q[joined_eq]=false")).toEqual(["ana@acme.example", "bo@acme.example"]);
    const paged = await api("GET", "/v1/members?page[size]=1", { key: org.key });
    expect(paged.body.data).toHaveLength(1);
    expect((await api("GET", paged.body.links.next, { key: org.key })).body.data).toHaveLength(1);
    expect((await api("GET", "/v1/members?q[role_eq]=boss", { key: org.key })).body.errors[0].source.parameter).toBe("q[role_eq]");

    const renamed = await patchMember(org, id, { name: "Ana L.", role: "viewer" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.attributes).toMatchObject({ name: "Ana L.", role: "viewer", email: "ana@acme.example" });
    const bad = await patchMember(org, id, { role: "boss", email: "nope", invited_at: "2020-01-01T00:00:00Z" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => e.source.pointer).sort()).toEqual([
      "/data/attributes/email",
      "/data/attributes/invited_at",
      "/data/attributes/role",
    ]);

    expect((await api("DELETE", `/v1/members/${id}`, { key: org.key })).status).toBe(204);
    expect((await showMember(org, id)).status).toBe(404);
    expect((await api("DELETE", `/v1/members/${id}`, { key: org.key })).status).toBe(404);
    expect(await audits(id)).toEqual([
      { action: "member.create", actor_type: "api_key", changed: JSON.stringify(["email", "role", "name"]) },
      { action: "member.update", actor_type: "api_key", changed: JSON.stringify(["name", "role"]) },
      { action: "member.delete", actor_type: "api_key", changed: null },
    ]);
    expect((await audits(bo)).map((a) => a.action)).toEqual(["member.create"]);
    // The removed member's invitation, not sent yet, is not sent.
    const box = mailbox();
    await runMail(box, []);
    expect(box.sent.map((m) => m.to)).toEqual(["bo@acme.example"]);
    expect((await outbox()).find((n) => n.to === "ana@acme.example")).toMatchObject({ status: "cancelled" });
  });

  it("are changed only with the members scope, refused in the service whoever calls it", async () => {
    const org = await organization();
    const id = await member(org, { email: "sam@acme.example", role: "viewer" });
    // A key narrowed to reading (scopes are written by the keys' own part; here straight in SQL).
    await env.DB.prepare(`UPDATE api_keys SET scopes = '["read"]' WHERE id = ?`).bind(org.keyId).run();
    expect((await showMember(org, id)).status).toBe(200);
    expect((await addMember(org, { email: "tom@acme.example", role: "viewer" })).status).toBe(403);
    expect((await patchMember(org, id, { role: "owner" })).status).toBe(403);
    expect((await api("DELETE", `/v1/members/${id}`, { key: org.key })).status).toBe(403);
    expect((await api("DELETE", `/v1/members/${id}/sessions`, { key: org.key })).status).toBe(403);
    expect((await api("POST", `/v1/members/${id}/invitation`, { key: org.key })).status).toBe(403);
    expect((await showMember(org, id)).body.data.attributes.role).toBe("viewer");
    expect((await audits(id)).map((a) => a.action)).toEqual(["member.create"]);
  });

  it("are one per address in an organization, any case, while another organization may have the same address", async () => {
    const org = await organization();
    await member(org, { email: "dana@acme.example", role: "viewer" });
    const twice = await addMember(org, { email: "DANA@acme.example", role: "owner" });
    expect([twice.status, twice.body.errors[0].source.pointer, twice.body.errors[0].detail]).toEqual([
      422,
      "/data/attributes/email",
      "The organization already has a member with this address.",
    ]);
    const eve = await member(org, { email: "eve@acme.example", role: "viewer" });
    expect((await patchMember(org, eve, { email: "Dana@acme.example" })).status).toBe(422);
    expect((await organization().then((other) => addMember(other, { email: "dana@acme.example", role: "owner" }))).status).toBe(201);
    // Nothing refused wrote a member or an e-mail.
    expect((await outbox()).filter((n) => n.to === "dana@acme.example" && n.kind === "member_invitation")).toHaveLength(2);
  });

  it("are the organization's own: another organization (the neighbour among them) reads and changes none; operators read only", async () => {
    const org = await organization();
    const id = await member(org, { email: "fay@acme.example", role: "owner" });
    const neighbour = (await env.DB.prepare("SELECT id FROM organizations WHERE slug = ?").bind(NEIGHBOUR.slug).first<{ id: string }>())!
      .id;
    const other = await organization();
    const theirs = await member(other, { email: "fay@acme.example", role: "owner" });

    expect((await showMember(other, id)).status).toBe(404);
    expect((await patchMember(other, id, { role: "viewer" })).status).toBe(404);
    expect((await api("DELETE", `/v1/members/${id}`, { key: other.key })).status).toBe(404);
    expect((await api("DELETE", `/v1/members/${id}/sessions`, { key: other.key })).status).toBe(404);
    expect((await api("POST", `/v1/members/${id}/invitation`, { key: other.key })).status).toBe(404);
    const mine = await api("GET", `/v1/members?q[organization_id_eq]=${neighbour}`, { key: org.key });
    expect(mine.body.data).toEqual([]);
    expect((await api("GET", "/v1/members", { key: other.key })).body.data.map((m: any) => m.id)).toEqual([theirs]);
    // Naming another organization on a create is a 422, as naming none that exists.
    const elsewhere = await api("POST", "/v1/members", {
      key: org.key,
      body: {
        data: {
          type: "member",
          attributes: { email: "gus@acme.example", role: "viewer" },
          relationships: { organization: { data: { type: "organization", id: other.id } } },
        },
      },
    });
    expect([elsewhere.status, elsewhere.body.errors[0].source.pointer]).toEqual([422, "/data/relationships/organization/data/id"]);

    const operator = org.operatorKey;
    const read = await api("GET", `/v1/members?q[organization_id_eq]=${org.id}`, { key: operator });
    expect(read.body.data.map((m: any) => m.id)).toEqual([id]);
    expect((await api("GET", `/v1/members/${theirs}`, { key: operator })).status).toBe(200);
    expect((await addMember(org, { email: "op@acme.example", role: "owner" }, operator)).status).toBe(403);
    expect(
      (await api("PATCH", `/v1/members/${id}`, { key: operator, body: { data: { type: "member", id, attributes: {} } } })).status,
    ).toBe(403);
    expect((await api("DELETE", `/v1/members/${id}`, { key: operator })).status).toBe(403);
    expect((await showMember(org, id)).body.data.attributes.role).toBe("owner");
  });

  it(`are at most ${LIMITS.membersPerOrganization}: of two adds racing for the last place, one is refused whole`, async () => {
    const org = await organization();
    const now = new Date().toISOString();
    // All but one place taken straight in SQL (a hundred requests would say nothing more).
    const seeded = Array.from({ length: LIMITS.membersPerOrganization - 1 }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO members (id, organization_id, email, role, invited_at, created_at, updated_at) VALUES (?, ?, ?, 'viewer', ?, ?, ?)",
      ).bind(crypto.randomUUID(), org.id, `seat${i}@acme.example`, now, now, now),
    );
    await env.DB.batch(seeded);
    const [a, b] = await Promise.all([
      addMember(org, { email: "last-a@acme.example", role: "viewer" }),
      addMember(org, { email: "last-b@acme.example", role: "viewer" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 422]);
    const refused = a.status === 422 ? a : b;
    expect(refused.body.errors[0]).toMatchObject({ source: { pointer: "/data" } });
    expect(refused.body.errors[0].detail).toContain(`${LIMITS.membersPerOrganization} members`);
    const total = await api("GET", "/v1/members?page[size]=1", { key: org.key });
    expect(total.body.meta.page.total).toBe(LIMITS.membersPerOrganization);
    // The refused add wrote no invitation.
    const invited = (await outbox()).filter((n) => String(n.to).startsWith("last-")).map((n) => n.to);
    expect(invited).toEqual([a.status === 201 ? "last-a@acme.example" : "last-b@acme.example"]);
    // Removing one makes room.
    const one = (await api("GET", "/v1/members?q[email_eq]=seat0@acme.example", { key: org.key })).body.data[0].id;
    expect((await api("DELETE", `/v1/members/${one}`, { key: org.key })).status).toBe(204);
    expect((await addMember(org, { email: "again@acme.example", role: "viewer" })).status).toBe(201);
  });

  it("keep a last owner: neither removed nor demoted (409), and of two concurrent demotions of the last two owners one is refused", async () => {
    const org = await organization();
    const ana = await member(org, { email: "ana@acme.example", role: "owner" });
    const refusedDemotion = await patchMember(org, ana, { role: "triager" });
    expect([refusedDemotion.status, refusedDemotion.body.errors[0].code]).toEqual([409, "conflict"]);
    expect(refusedDemotion.body.errors[0].detail).toContain("last owner");
    expect((await api("DELETE", `/v1/members/${ana}`, { key: org.key })).status).toBe(409);
    // An owner may still be renamed, and stays one.
    expect((await patchMember(org, ana, { name: "Ana", role: "owner" })).status).toBe(200);
    expect(await owners(org)).toEqual(["ana@acme.example"]);
    expect((await audits(ana)).map((a) => a.action)).toEqual(["member.create", "member.update"]);

    const bo = await member(org, { email: "bo@acme.example", role: "owner" });
    const both = await Promise.all([patchMember(org, ana, { role: "viewer" }), patchMember(org, bo, { role: "viewer" })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await owners(org)).length).toBe(1);

    // And two concurrent removals of the last two owners: one stays.
    const [kept] = await owners(org);
    const demoted = kept === "ana@acme.example" ? bo : ana;
    expect((await patchMember(org, demoted, { role: "owner" })).status).toBe(200);
    const removals = await Promise.all([ana, bo].map((id) => api("DELETE", `/v1/members/${id}`, { key: org.key })));
    expect(removals.map((r) => r.status).sort()).toEqual([204, 409]);
    expect((await owners(org)).length).toBe(1);
  });

  it("send one invitation e-mail whose page joins only by its button (a same-site POST), then tells how to sign in", async () => {
    const org = await organization({ name: "Acme Security" });
    const id = await member(org, { email: "ivy@acme.example", name: "Ivy", role: "triager" });
    expect((await outbox()).filter((n) => n.to === "ivy@acme.example")).toMatchObject([
      { kind: "member_invitation", recipient: "member", status: "pending" },
    ]);
    const box = mailbox();
    await runMail(box, []);
    expect(box.to("ivy@acme.example").map((m) => m.subject)).toEqual(["You are invited to Acme Security's vulnerability reports"]);
    const mail = box.to("ivy@acme.example")[0]!;
    expect(mail.from).toBe(env.EMAIL_FROM);
    expect(mail.text).toContain(`${env.PUBLIC_ORIGIN}/console/sign-in`);
    const link = linkIn(mail.text, "i");

    // Fetching the link (a mail scanner does) shows a button and changes nothing.
    const shown = await browse("GET", link);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`<form method="post" action="${link}">`);
    expect(shown.headers.get("Cache-Control")).toContain("no-store");
    expect(shown.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect((await showMember(org, id)).body.data.attributes.joined_at).toBeNull();
    // Another site's form cannot press it.
    expect((await browse("POST", link, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    expect((await browse("POST", link, { headers: { Origin: "https://evil.example" } })).status).toBe(403);
    expect((await showMember(org, id)).body.data.attributes.joined_at).toBeNull();
    // A forged or altered link finds nothing.
    const altered = link.slice(0, -1) + (link.endsWith("a") ? "b" : "a");
    expect((await browse("POST", altered, SAME_SITE)).status).toBe(404);
    expect((await browse("GET", "/i/not-a-token")).status).toBe(404);

    const pressed = await browse("POST", link, SAME_SITE);
    expect(pressed.status).toBe(200);
    expect(pressed.text).toContain("Invitation accepted");
    expect(pressed.text).toContain('href="/console/sign-in"');
    const joinedAt = (await showMember(org, id)).body.data.attributes.joined_at;
    expect(joinedAt).toEqual(expect.any(String));
    // Pressing again changes nothing; the join is audited as the member's own act.
    expect((await browse("POST", link, SAME_SITE)).status).toBe(200);
    expect((await showMember(org, id)).body.data.attributes.joined_at).toBe(joinedAt);
    expect((await audits(id)).map((a) => [a.action, a.actor_type])).toEqual([
      ["member.create", "api_key"],
      ["member.join", "member"],
    ]);
    expect((await api("GET", "/v1/members?q[joined_eq]=true", { key: org.key })).body.data.map((m: any) => m.id)).toEqual([id]);
    // The log says the e-mail went, and names the member, never the link.
    const log = await api("GET", "/v1/notifications", { key: org.key });
    expect(
      log.body.data.map((n: any) => [n.attributes.kind, n.attributes.recipient, n.attributes.status, n.relationships.member.data.id]),
    ).toEqual([["member_invitation", "member", "sent", id]]);
    expect(JSON.stringify(log.body)).not.toContain("/i/");
    // A joined member is invited no more.
    const again = await api("POST", `/v1/members/${id}/invitation`, { key: org.key });
    expect(again.status).toBe(409);
  });

  it("invite again on request or with a new address; the old address's link no longer joins", async () => {
    const org = await organization();
    const id = await member(org, { email: "jo@acme.example", role: "viewer" });
    const first = mailbox();
    await runMail(first, []);
    const oldLink = linkIn(first.to("jo@acme.example")[0]!.text, "i");

    const invitedAt = (await showMember(org, id)).body.data.attributes.invited_at;
    const resent = await api("POST", `/v1/members/${id}/invitation`, { key: org.key });
    expect(resent.status).toBe(200);
    expect(resent.body.data.attributes.invited_at > invitedAt).toBe(true);
    const second = mailbox();
    await runMail(second, []);
    expect(second.to("jo@acme.example")).toHaveLength(1);

    await session(org, id);
    const moved = await patchMember(org, id, { email: "jo.new@acme.example" });
    expect(moved.status).toBe(200);
    expect(moved.body.data.attributes).toMatchObject({ email: "jo.new@acme.example", joined_at: null });
    expect(await liveSessions(id)).toBe(0);
    expect((await browse("POST", oldLink, SAME_SITE)).status).toBe(404);
    const third = mailbox();
    await runMail(third, []);
    expect(third.sent.map((m) => m.to)).toEqual(["jo.new@acme.example"]);
    expect((await browse("POST", linkIn(third.sent[0]!.text, "i"), SAME_SITE)).status).toBe(200);
    expect((await showMember(org, id)).body.data.attributes.joined_at).not.toBeNull();
    expect((await audits(id)).map((a) => a.action)).toEqual(["member.create", "member.invite", "member.update", "member.join"]);
  });

  it("lose their sessions at once when removed, demoted, or when an owner revokes them; a rename keeps them", async () => {
    const org = await organization();
    const owner = await member(org, { email: "owner@acme.example", role: "owner" });
    const kim = await member(org, { email: "kim@acme.example", role: "triager" });
    const lee = await member(org, { email: "lee@acme.example", role: "owner" });
    const ora = await member(org, { email: "ora@acme.example", role: "viewer" });
    for (const id of [owner, owner, kim, lee, ora]) await session(org, id);

    expect((await patchMember(org, kim, { name: "Kim" })).status).toBe(200);
    expect(await liveSessions(kim)).toBe(1);
    expect((await patchMember(org, kim, { role: "viewer" })).status).toBe(200);
    expect(await liveSessions(kim)).toBe(0);

    expect((await api("DELETE", `/v1/members/${lee}`, { key: org.key })).status).toBe(204);
    expect(await liveSessions(lee)).toBe(0);

    expect((await api("DELETE", `/v1/members/${ora}/sessions`, { key: org.key })).status).toBe(204);
    expect(await liveSessions(ora)).toBe(0);
    expect((await showMember(org, ora)).status).toBe(200);
    expect((await audits(ora)).map((a) => a.action)).toEqual(["member.create", "member.sessions_revoke"]);
    // Nobody else's.
    expect(await liveSessions(owner)).toBe(2);
    // A refused demotion ends nothing.
    expect((await patchMember(org, owner, { role: "viewer" })).status).toBe(409);
    expect(await liveSessions(owner)).toBe(2);
  });
});

describe("an organization's first owner (owner_email)", () => {
  it("is made with the organization, invited, in the same batch", async () => {
    const operator = await operatorKey();
    const slug = `owned-${crypto.randomUUID().slice(0, 8)}`;
    const res = await api("POST", "/v1/organizations", {
      key: operator,
      body: { data: { type: "organization", attributes: { name: "Owned Org", slug, owner_email: "Boss@Owned.example" } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).not.toHaveProperty("owner_email");
    const orgId = res.body.data.id;
    const list = await api("GET", `/v1/members?q[organization_id_eq]=${orgId}`, { key: operator });
    expect(list.body.data.map((m: any) => [m.attributes.email, m.attributes.role, m.attributes.joined_at])).toEqual([
      ["boss@owned.example", "owner", null],
    ]);
    const box = mailbox();
    await runMail(box, []);
    expect(box.to("boss@owned.example").map((m) => m.subject)).toEqual(["You are invited to Owned Org's vulnerability reports"]);
    expect((await browse("POST", linkIn(box.to("boss@owned.example")[0]!.text, "i"), SAME_SITE)).status).toBe(200);
    const audit = await audits(list.body.data[0].id);
    expect(audit.map((a) => [a.action, a.actor_type])).toEqual([
      ["member.create", "operator"],
      ["member.join", "member"],
    ]);

    const bad = await api("POST", "/v1/organizations", {
      key: operator,
      body: { data: { type: "organization", attributes: { name: "Bad", slug: `${slug}-bad`, owner_email: "not an address" } } },
    });
    expect([bad.status, bad.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/owner_email"]);
    expect(await env.DB.prepare("SELECT 1 FROM organizations WHERE slug = ?").bind(`${slug}-bad`).first()).toBeNull();
    // A slug taken refuses the owner and the e-mail with it.
    const taken = await api("POST", "/v1/organizations", {
      key: operator,
      body: { data: { type: "organization", attributes: { name: "Again", slug, owner_email: "twice@owned.example" } } },
    });
    expect(taken.status).toBe(422);
    expect((await outbox()).filter((n) => n.to === "twice@owned.example")).toEqual([]);
  });
});
