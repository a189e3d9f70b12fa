import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { Browser, member, signedIn } from "../helpers/console";
import { brief, organization, policy, PUBLISHED, type TestOrganization, vuln } from "../helpers/factories";
import { COUNT_CAP } from "../../src/services/inbox";

// The console's inbox and its bulk change, through the Worker as a browser uses them: the views, the
// filters and cursor pages list what GET /v1/vulns lists for the same filters; a bulk change shows what
// it would do, changes nothing until confirmed, then changes it in one batch with its events and audit.
// Two organizations with look-alike reports in every test: the neighbour's never show.

async function world() {
  const org = await organization();
  const neighbour = await organization();
  const made: Record<string, { id: string; shortcode: string }> = {};
  for (const o of [org, neighbour]) {
    const b = await brief(o, { published_at: PUBLISHED });
    for (const title of ["SQL injection in search", "Open redirect on login", "Spam: buy now", "Spam: cheap pills", "Spam: win big"]) {
      const v = await vuln(o, b.id, { title, severity: title.startsWith("SQL") ? "high" : null });
      if (o === org) made[title] = { id: v.id, shortcode: v.attributes.shortcode };
    }
  }
  return { org, neighbour, made };
}

const signedInAs = async (org: TestOrganization, role: "owner" | "triager" | "viewer") => signedIn((await member(org, { role })).email);
const shortcodesIn = (text: string) => [...text.matchAll(/href="\/console\/reports\/([0-9A-Z-]+)"/g)].map((m) => m[1]);
const rowsOf = async (org: TestOrganization) =>
  (await env.DB.prepare("SELECT id, triage_state, read_at FROM vulns WHERE organization_id = ? ORDER BY id").bind(org.id).all()).results;

describe("the console's inbox", () => {
  it("lists the organization's reports by view, with counts, filters and search, never the neighbour's", async () => {
    const { org, made } = await world();
    const browser = await signedInAs(org, "viewer");
    const inbox = await browser.get("/console");
    expect(inbox.status).toBe(200);
    const all = Object.values(made).map((m) => m.shortcode);
    expect(shortcodesIn(inbox.text).sort()).toEqual(all.sort());
    expect(inbox.text).toMatch(/New\s*<span class="count">\(5\)<\/span>/);
    expect(inbox.text).toContain("Not rated");
    expect(inbox.text).toContain("Unread");

    const high = await browser.get("/console?view=open&severity=high");
    expect(shortcodesIn(high.text)).toEqual([made["SQL injection in search"]!.shortcode]);
    const found = await browser.get(`/console?view=open&q=${encodeURIComponent("redirect")}`);
    expect(shortcodesIn(found.text)).toEqual([made["Open redirect on login"]!.shortcode]);
    expect((await browser.get("/console?view=closed")).text).toContain("No reports here.");
    // A viewer is offered no bulk change.
    expect(inbox.text).not.toContain('action="/console/bulk"');
  });

  it("pages by cursor, the pages together holding every report once", async () => {
    const { org } = await world();
    const b = await brief(org, { published_at: PUBLISHED });
    for (let i = 0; i < 26; i++) await vuln(org, b.id, { title: `Finding ${i}` });
    const browser = await signedInAs(org, "triager");
    const first = await browser.get("/console?view=open&sort=-created_at");
    const next = /href="(\/console\?[^"]*after=[^"]+)"/.exec(first.text)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    const second = await browser.get(next!);
    const seen = [...shortcodesIn(first.text), ...shortcodesIn(second.text)];
    expect(seen).toHaveLength(31);
    expect(new Set(seen).size).toBe(31);
    expect(second.text).toContain("Previous page");
  });

  it("counts a view without a counter row only as far as the cap, so the inbox reads a bounded number of rows", async () => {
    const org = await organization();
    // Acknowledge within an hour: every report is due within 24 hours from the moment it arrives.
    const p = await policy(org, { response_targets: { acknowledge_hours: 1 } });
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    for (let i = 0; i < COUNT_CAP; i++) await vuln(org, b.id, { title: `Due ${i}` });
    const browser = await signedInAs(org, "viewer");
    expect((await browser.get("/console")).text).toMatch(
      new RegExp(`Overdue or due in 24 hours\\s*<span class="count">\\(${COUNT_CAP}\\)</span>`),
    );
    await vuln(org, b.id, { title: "One more" });
    const over = await browser.get("/console?view=due");
    expect(over.text).toMatch(new RegExp(`Overdue or due in 24 hours\\s*<span class="count">\\(${COUNT_CAP}\\+\\)</span>`));
    // The view itself lists them all, soonest first, a page at a time.
    expect(shortcodesIn(over.text)).toHaveLength(25);
    expect(over.text).toContain(`${COUNT_CAP + 1} reports in Overdue or due in 24 hours`);
  });

  it("answers a bad filter with a 400 page that names it, and sends a stranger to sign in", async () => {
    const { org } = await world();
    const browser = await signedInAs(org, "viewer");
    for (const q of ["view=everything", "severity=urgent", "sort=title", "brief=nope", "after=%%%"]) {
      const res = await browser.get(`/console?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.headers.get("Content-Type")).toContain("text/html");
      expect(res.text).toContain(q.slice(0, q.indexOf("=")));
    }
    const stranger = await new Browser().get("/console");
    expect(stranger.status).toBe(303);
    expect(stranger.headers.get("Location")).toBe("/console/sign-in");
  });
});

describe("the inbox's bulk change", () => {
  it("shows the change first, then closes three spam reports with their reason in one change", async () => {
    const { org, neighbour, made } = await world();
    const browser = await signedInAs(org, "triager");
    const csrf = await browser.formToken();
    const spam = ["Spam: buy now", "Spam: cheap pills", "Spam: win big"].map((t) => made[t]!.id);
    const before = await rowsOf(org);
    const neighbourBefore = await rowsOf(neighbour);
    const form = new URLSearchParams([
      ["csrf", csrf],
      ...spam.map((id) => ["id", id]),
      ["change", "state:spam"],
      ["reason", "Machine-made"],
    ]);
    const sent = await browser.request("POST", "/console/bulk", { form: form });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain("Move them to Spam: 3 reports. Nothing has changed yet.");
    expect(await rowsOf(org)).toEqual(before);

    const applied = await browser.request("POST", "/console/bulk/apply", { form: form });
    expect(applied.status).toBe(200);
    expect(applied.text).toContain("3 of 3 reports changed");
    const states = new Map((await rowsOf(org)).map((r) => [r.id, r.triage_state]));
    expect(spam.map((id) => states.get(id))).toEqual(["spam", "spam", "spam"]);
    expect(states.get(made["SQL injection in search"]!.id)).toBe("new");
    expect(await rowsOf(neighbour)).toEqual(neighbourBefore);
    const notes = await env.DB.prepare("SELECT vuln_id, visibility, body FROM comments WHERE organization_id = ?").bind(org.id).all();
    expect(notes.results.map((n) => [n.visibility, n.body])).toEqual(spam.map(() => ["internal", "Machine-made"]));
    const audited = await env.DB.prepare("SELECT action, target_id FROM audit_events WHERE organization_id = ? AND action = 'vuln.update'")
      .bind(org.id)
      .all();
    expect(audited.results.map((a) => a.target_id).sort()).toEqual([...spam].sort());
    const listed = await api("GET", "/v1/vulns?q[triage_state_eq]=spam", { key: org.key });
    expect(listed.body.data.map((v: { id: string }) => v.id).sort()).toEqual([...spam].sort());
  });

  it("marks reports read, and refuses a viewer's change and the neighbour's ids with nothing written", async () => {
    const { org, neighbour, made } = await world();
    const triager = await signedInAs(org, "triager");
    const ids = [made["Open redirect on login"]!.id];
    const form = (csrf: string, more: string[] = []) =>
      new URLSearchParams([["csrf", csrf], ...[...ids, ...more].map((id) => ["id", id]), ["change", "read"]]);
    const neighbourIds = (await rowsOf(neighbour)).map((r) => String(r.id));
    const neighbourBefore = await rowsOf(neighbour);
    const done = await triager.request("POST", "/console/bulk/apply", { form: form(await triager.formToken(), neighbourIds) });
    expect(done.status).toBe(200);
    expect(done.text).toContain("Mark them read: 1 of 1 report changed");
    expect((await rowsOf(org)).find((r) => r.id === ids[0])!.read_at).not.toBeNull();
    expect(await rowsOf(neighbour)).toEqual(neighbourBefore);

    const viewer = await signedInAs(org, "viewer");
    const before = await rowsOf(org);
    const refused = await viewer.request("POST", "/console/bulk/apply", {
      form: new URLSearchParams([
        ["csrf", await viewer.formToken()],
        ["id", made["Spam: win big"]!.id],
        ["change", "state:spam"],
      ]),
    });
    expect(refused.status).toBe(403);
    expect(await rowsOf(org)).toEqual(before);
    // Without the form token, nothing at all.
    const forged = await triager.request("POST", "/console/bulk/apply", {
      form: new URLSearchParams([
        ["id", made["Spam: win big"]!.id],
        ["change", "state:spam"],
      ]),
    });
    expect(forged.status).toBe(403);
    expect(await rowsOf(org)).toEqual(before);
  });
});
