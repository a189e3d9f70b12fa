import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { get, post } from "../helpers/api";
import { member, signedIn } from "../helpers/console";
import { organization, webhook, type TestOrganization } from "../helpers/factories";

// The settings' guards through HTTP: the services refuse a triager's and a viewer's changes (403, nothing
// written), another organization's records read as missing (404), and the audit log's page: its filters
// (the API's), cursor pages, the CSV, and what a client sent (a user agent) shown as text.

const VULN_CREATED = "0b1e7f1a-5c52-5d7e-9a01-000000000001";

async function signedInAs(org: TestOrganization, role: "owner" | "triager" | "viewer") {
  const m = await member(org, { role });
  const browser = await signedIn(m.email);
  return { ...m, browser, csrf: await browser.formToken() };
}

/** Every row of the tables the settings write, for an organization: "nothing written" is these unchanged. */
async function snapshot(org: TestOrganization) {
  const out: Record<string, unknown> = {};
  for (const table of ["contacts", "webhooks", "webhook_deliveries", "members", "api_keys", "audit_events"])
    out[table] = (await env.DB.prepare(`SELECT * FROM ${table} WHERE organization_id = ? ORDER BY id`).bind(org.id).all()).results;
  out.sessions = (
    await env.DB.prepare("SELECT s.* FROM sessions s JOIN members m ON m.id = s.member_id WHERE m.organization_id = ? ORDER BY s.id")
      .bind(org.id)
      .all()
  ).results;
  return out;
}

/** One of each record the settings change, and every change of them as a console form sends it. */
async function changes(org: TestOrganization) {
  const contact = (
    await post("/v1/contacts", org.key, {
      data: { type: "contact", attributes: { name: "Sec", email: `sec-${org.id}@acme.example`, role: "responder" } },
    })
  ).body.data;
  const hook = await webhook(org);
  const delivery = (await post(`/v1/webhooks/${hook.id}/ping`, org.key, undefined)).body.data;
  const other = await member(org, { role: "triager", joined: false });
  const key = (await get("/v1/api_keys", org.key)).body.data[0];
  return [
    ["/console/settings/contacts", { name: "New", email: "new@acme.example", role: "responder" }],
    [`/console/settings/contacts/${contact.id}/delete`, {}],
    ["/console/settings/webhooks", { name: "Hook", url: "https://hooks.example.com/x", trigger_event_types: VULN_CREATED }],
    [`/console/settings/webhooks/${hook.id}/disable`, {}],
    [`/console/settings/webhooks/${hook.id}/delete`, {}],
    [`/console/settings/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, {}],
    ["/console/settings/members", { email: "invitee@acme.example", name: "Invitee", role: "viewer" }],
    [`/console/settings/members/${other.id}/role`, { role: "owner" }],
    [`/console/settings/members/${other.id}/invitation`, {}],
    [`/console/settings/members/${other.id}/sessions`, {}],
    [`/console/settings/members/${other.id}/delete`, {}],
    ["/console/settings/api-keys", { name: "Mine", scopes: "read" }],
    [`/console/settings/api-keys/${key.id}/revoke`, {}],
  ] as [string, Record<string, string>][];
}

describe("the settings' guards", () => {
  it("refuses every change of a triager and of a viewer (403, by the services), writing nothing", async () => {
    const org = await organization();
    const forms = await changes(org);
    for (const role of ["triager", "viewer"] as const) {
      const { browser, csrf } = await signedInAs(org, role);
      const before = await snapshot(org);
      for (const [path, fields] of forms) {
        const res = await browser.post(path, { form: { csrf, ...fields } });
        expect(res.status, `${role} ${path}`).toBe(403);
        expect(res.text).toContain("scope");
      }
      expect(await snapshot(org), role).toEqual(before);
    }
  });

  it("answers another organization's webhook, member, key and contact ids as missing (404), changing nothing of theirs", async () => {
    const org = await organization();
    const { browser, csrf } = await signedInAs(org, "owner");
    const theirs = await organization();
    const forms = await changes(theirs);
    const before = await snapshot(theirs);
    for (const [path, fields] of forms.filter(([p]) => /\/[0-9a-f-]{36}\//.test(p))) {
      const res = await browser.post(path, { form: { csrf, ...fields } });
      expect(res.status, path).toBe(404);
    }
    const hook = (await get("/v1/webhooks", theirs.key)).body.data[0];
    expect((await browser.get(`/console/settings/webhooks/${hook.id}`)).status).toBe(404);
    expect(await snapshot(theirs)).toEqual(before);
  });

  it("shows the audit log with the API's filters, cursor pages and the page as CSV; what a client sent is text", async () => {
    const org = await organization();
    const { browser, csrf, id } = await signedInAs(org, "owner");
    const agent = `Probe/1.0 <script>alert(1)</script><img src=x onerror=alert(1)>`;
    const added = await browser.post("/console/settings/contacts", {
      form: { csrf, name: "Audited", email: "audited@acme.example", role: "responder" },
      headers: { "User-Agent": agent },
    });
    expect(added.status).toBe(303);
    // Enough rows for three pages of the console's 100.
    const insert = env.DB.prepare(
      "INSERT INTO audit_events (id, organization_id, at, actor_type, actor_id, actor_name, action, target_type, target_id) VALUES (?, ?, ?, 'system', NULL, NULL, 'test.filler', 'test', NULL)",
    );
    await env.DB.batch(
      Array.from({ length: 205 }, (_, i) =>
        insert.bind(
          `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`,
          org.id,
          `2020-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`,
        ),
      ),
    );

    const mine = await browser.get(`/console/settings/audit?actor=${id}`);
    expect(mine.status).toBe(200);
    expect(mine.text).toContain("contact.create");
    expect(mine.text).not.toContain("test.filler");
    expect(mine.text).toContain("Probe/1.0 &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(mine.text).not.toContain("<script>alert");
    expect(mine.text).not.toContain("<img src=x");

    const first = await browser.get("/console/settings/audit?action=test.filler");
    expect(first.text).toContain("205 events match");
    expect(first.text).not.toContain("Newer events");
    const next = /href="([^"]+)">Older events/.exec(first.text)![1]!.replaceAll("&amp;", "&");
    const second = await browser.get(next);
    expect(second.status).toBe(200);
    const prev = /href="([^"]+)">Newer events/.exec(second.text)![1]!.replaceAll("&amp;", "&");
    const third = await browser.get(/href="([^"]+)">Older events/.exec(second.text)![1]!.replaceAll("&amp;", "&"));
    expect(third.text).not.toContain("Older events");
    expect((third.text.match(/test\.filler<\/code>/g) ?? []).length).toBe(5);
    const back = await browser.get(prev);
    expect(back.status).toBe(200);
    expect(back.text).not.toContain("Newer events");
    expect(back.text).toContain("Older events");

    const csv = await browser.get(`/console/settings/audit.csv?actor=${id}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("Content-Disposition")).toBe('attachment; filename="audit-log.csv"');
    expect(csv.text.split("\r\n")[0]).toBe(
      "id,at,organization_id,actor_type,actor_id,actor_name,action,target_type,target_id,changed,request_id,ip,user_agent",
    );
    expect(csv.text).toContain("contact.create");
    // The same rows as the API's CSV of the same filter.
    const api = await get(`/v1/audit_events?q[actor_id_eq]=${id}`, org.key, { headers: { Accept: "text/csv" } });
    expect(csv.text).toBe(api.text);

    const bad = await browser.get("/console/settings/audit?actor=nobody&from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    expect(bad.text).toMatch(/Who [^<]*uuid|Who must/i);
    expect(bad.text).toContain("From must be an RFC 3339 date-time");
    const backwards = await browser.get("/console/settings/audit?from=2030-01-02T00:00&to=2030-01-01T00:00");
    expect(backwards.status).toBe(400);
    expect(backwards.text).toContain("no event could match");
  });
});
