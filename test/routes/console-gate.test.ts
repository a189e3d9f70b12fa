import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { member, signedIn } from "../helpers/console";
import { brief, organization, PUBLISHED, type TestOrganization, vuln } from "../helpers/factories";
import { newReporterKey, signedVuln } from "../helpers/reporter-keys";

// What a triager sees of the gate in the console, through the Worker as a browser uses it: the report's
// Gate panel (how it passed, its evidence with what is missing marked, its AI use, its key's record and
// other reports, the possible duplicate and the similar reports), read in the page's one batch; the
// inbox's badges; and an owner's settings of a brief's gate. Reports come through the public door; the
// similarity rows and the columns the intake and the queue write are written here as they write them
// (their own tests make them through the API).

const signedInAs = async (org: TestOrganization, role: "owner" | "triager" | "viewer") => signedIn((await member(org, { role })).email);

/** The gate's columns of a report, as the public door and the intake leave them. */
async function stamp(id: string, columns: Record<string, string | number | null>) {
  const names = Object.keys(columns);
  await env.DB.prepare(`UPDATE vulns SET ${names.map((n) => `${n} = ?`).join(", ")} WHERE id = ?`)
    .bind(...names.map((n) => columns[n]!), id)
    .run();
}

/** A pair found similar, both ways, as the intake writes it. */
async function similar(org: TestOrganization, a: string, b: string, score: number, reasons: string[]) {
  const insert =
    "INSERT INTO vuln_similarities (vuln_id, similar_id, organization_id, score, reasons, created_at) VALUES (?, ?, ?, ?, ?, ?)";
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare(insert).bind(a, b, org.id, score, JSON.stringify(reasons), now),
    env.DB.prepare(insert).bind(b, a, org.id, score, JSON.stringify(reasons), now),
  ]);
}

const REQUIREMENTS = { evidence: { steps_to_reproduce: "required", impact: "optional" }, ai_disclosure: "optional" };

describe("the report's Gate panel", () => {
  it("shows the gate, the evidence with what is missing, AI use, the key's record and reports, and the similar ones, in one batch", async () => {
    const org = await organization();
    // Proof of work on, and a lane for a key with one valid report: the report in view takes it.
    const b = await brief(org, {
      published_at: PUBLISHED,
      submission_requirements: REQUIREMENTS,
      proof_of_work: "on",
      verified_lane_min_valid: 1,
    });
    const code = b.attributes.shortcode as string;
    const key = await newReporterKey();
    const earlier = await signedVuln(code, key, { title: "Earlier report by the key", evidence: { steps_to_reproduce: "1. Log in" } });
    await api("PATCH", `/v1/vulns/${earlier.id}`, {
      key: org.key,
      body: { data: { type: "vuln", id: earlier.id, attributes: { triage_state: "triaged" } } },
    });
    const original = await vuln(org, b.id, { title: "The original SQL injection" });
    const report = await signedVuln(code, key, {
      title: "The report in view",
      evidence: { steps_to_reproduce: "1. Open /search?q=1 OR 1=1" },
      ai_use: { level: "writing", tools: "ModelX 3", verified_by_reporter: true },
    });
    // What the intake's similarity step leaves.
    await stamp(report.id, { possible_duplicate_of_id: original.id, possible_duplicate_score: 0.62 });
    await similar(org, report.id, original.id, 0.62, ["text 0.42", "same endpoint /search?q"]);
    await similar(org, report.id, earlier.id, 0.31, ["CWE-89"]);
    // The same key with another organization: its report and record are that organization's alone.
    const neighbour = await organization();
    const theirBrief = await brief(neighbour, { published_at: PUBLISHED });
    const theirs = await signedVuln(theirBrief.attributes.shortcode as string, key, { title: "The neighbour's report by the key" });

    const browser = await signedInAs(org, "viewer");
    await browser.get(`/console/reports/${report.shortcode}`);
    const page = await browser.get(`/console/reports/${report.shortcode}`);
    expect(page.status).toBe(200);
    // The session's lookup and the page's one batch, the gate's reads included.
    expect(page.roundTrips).toBe(2);
    const gate = page.text.slice(page.text.indexOf('id="gate"'), page.text.indexOf('id="deadlines"'));
    expect(gate).toContain('<span class="badge">Verified</span>');
    // Evidence: the required field as sent, the optional one left empty marked.
    expect(gate).toContain("Some fields the brief listed were left empty");
    expect(gate).toMatch(
      /Steps to reproduce <span class="muted">\(required\)<\/span><\/dt>\s*<dd><pre class="received">1\. Open \/search\?q=1 OR 1=1<\/pre>/,
    );
    expect(gate).toMatch(/Impact <span class="muted">\(optional\)<\/span><\/dt>\s*<dd><span class="state overdue">Missing<\/span>/);
    expect(gate).toContain("Helped write the report");
    expect(gate).toContain("ModelX 3");
    // The key's record with this organization: 2 reports, 1 valid; its other report linked, not the neighbour's.
    expect(gate).toContain(key.thumbprint);
    expect(gate).toMatch(
      /Reports to your organization<\/dt><dd>2<\/dd>\s*<dt>Valid \(triaged, resolved or risk accepted\)<\/dt><dd>1<\/dd>/,
    );
    expect(gate).toContain(`<a href="/console/reports/${earlier.shortcode}">${earlier.shortcode}</a> Earlier report by the key`);
    expect(gate).not.toContain(theirs.shortcode);
    expect(gate).not.toContain(`<a href="/console/reports/${report.shortcode}">`);
    // The possible duplicate, and the similar reports best first with their reasons.
    expect(gate).toContain(
      `<span class="badge">Possible duplicate</span> of\n<a href="/console/reports/${original.attributes.shortcode}">`,
    );
    expect(gate).toContain("(similarity 62%)");
    const rows = [...gate.matchAll(/<td data-label="Report"><a href="\/console\/reports\/([^"]+)">/g)].map((m) => m[1]);
    expect(rows).toEqual([original.attributes.shortcode, earlier.shortcode]);
    expect(gate).toContain("text 0.42; same endpoint /search?q");

    // The neighbour's console sees its own record of the key: one report, none valid, nothing of ours.
    const theirBrowser = await signedInAs(neighbour, "viewer");
    const theirPage = await theirBrowser.get(`/console/reports/${theirs.shortcode}`);
    expect(theirPage.text).toMatch(/Reports to your organization<\/dt><dd>1<\/dd>\s*<dt>Valid[^<]*<\/dt><dd>0<\/dd>/);
    expect(theirPage.text).toContain("No other report signed with this key.");
    expect(theirPage.text).not.toContain(earlier.shortcode);
  });

  it("says plainly what an unsigned report the organization entered did not go through", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const v = await vuln(org, b.id);
    const page = await (await signedInAs(org, "triager")).get(`/console/reports/${v.attributes.shortcode}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<span class="badge">Not required</span>');
    expect(page.text).toContain("The brief asks for no evidence fields, and none came.");
    expect(page.text).toContain("Not asked.");
    expect(page.text).toContain("Not signed.");
    expect(page.text).toContain("No similar report found.");
    expect(page.text).not.toContain("Possible duplicate");
  });
});

describe("the inbox's gate badges", () => {
  it("marks unverified, possible duplicate and queued reports, and nothing on the others", async () => {
    const org = await organization();
    const open = await brief(org, { published_at: PUBLISHED });
    const guarded = await brief(org, { published_at: PUBLISHED, proof_of_work: "on" });
    const capped = await brief(org, { published_at: PUBLISHED, daily_cap: 1 });
    const key = await newReporterKey();
    const plain = await vuln(org, open.id, { title: "Plain" });
    // Sent with no proof of work to a brief that asks for it; past a cap of one a day.
    const unverified = { attributes: { shortcode: (await signedVuln(guarded.attributes.shortcode as string, key)).shortcode } };
    await signedVuln(capped.attributes.shortcode as string, key);
    const queuedOne = await signedVuln(capped.attributes.shortcode as string, key);
    const queued = { attributes: { shortcode: queuedOne.shortcode } };
    // Read from the list, which marks nothing read (a GET of the vuln would take it out of the New view).
    const listed = await api("GET", "/v1/vulns?q%5Binbox_state_eq%5D=queued", { key: org.key });
    expect(listed.body.data.map((v: { id: string }) => v.id)).toEqual([queuedOne.id]);
    const expectedOn = listed.body.data[0].attributes.release_expected_on;
    expect(expectedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const duplicate = await vuln(org, open.id, { title: "Possible duplicate" });
    await stamp(duplicate.id, { possible_duplicate_of_id: plain.id, possible_duplicate_score: 0.7 });
    const page = await (await signedInAs(org, "viewer")).get("/console");
    expect(page.status).toBe(200);
    const cell = (v: { attributes: { shortcode: string } }) => {
      const code = v.attributes.shortcode;
      const at = page.text.indexOf(`<a href="/console/reports/${code}">${code}</a>`);
      expect(at, code).toBeGreaterThan(0);
      return page.text.slice(at, page.text.indexOf("</td>", at));
    };
    const badges = (v: { attributes: { shortcode: string } }) =>
      [...cell(v).matchAll(/<span class="badge">([^<]+)<\/span>/g)].map((m) => m[1]);
    expect(badges(plain)).toEqual(["Unread"]);
    expect(badges(unverified)).toEqual(["Unread", "Unverified"]);
    expect(badges(duplicate)).toEqual(["Unread", "Possible duplicate"]);
    expect(badges(queued)).toEqual(["Unread", `Queued until ${expectedOn}`]);
  });
});

describe("a brief's gate settings", () => {
  it("lets an owner set the seven gate fields through the brief's own update, and refuses a bad one beside its field", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const browser = await signedInAs(org, "owner");
    const form = await browser.get(`/console/settings/briefs?brief=${b.id}`);
    for (const name of ["evidence_steps_to_reproduce", "ai_disclosure", "proof_of_work", "expected_hourly", "daily_cap"])
      expect(form.text).toContain(`name="${name}"`);
    for (const name of ["intake_paused_until", "intake_paused_message", "verified_lane_min_valid"])
      expect(form.text).toContain(`name="${name}"`);
    const csrf = await browser.formToken();
    const sent = {
      csrf,
      name: "Web",
      short_description: "",
      state: "published",
      evidence_steps_to_reproduce: "required",
      evidence_impact: "optional",
      ai_disclosure: "required",
      proof_of_work: "auto",
      expected_hourly: "25",
      daily_cap: "40",
      intake_paused_until: "2099-01-02T03:04",
      intake_paused_message: "Back after the holidays.",
      verified_lane_min_valid: "3",
    };
    const saved = await browser.post(`/console/settings/briefs/${b.id}`, { form: sent });
    expect(saved.status, saved.text).toBe(303);
    const read = await api("GET", `/v1/briefs/${b.id}`, { key: org.key });
    expect(read.body.data.attributes).toMatchObject({
      submission_requirements: { evidence: { steps_to_reproduce: "required", impact: "optional" }, ai_disclosure: "required" },
      proof_of_work: "auto",
      expected_hourly: 25,
      daily_cap: 40,
      intake_paused_until: "2099-01-02T03:04:00.000Z",
      intake_paused_message: "Back after the holidays.",
      verified_lane_min_valid: 3,
    });
    // The form shows what is saved.
    const again = await browser.get(`/console/settings/briefs?brief=${b.id}`);
    expect(again.text).toContain('<option value="auto" selected>');
    expect(again.text).toContain('value="2099-01-02T03:04"');

    // A cap of zero is refused beside its field, with what was typed kept, and nothing changes.
    const bad = await browser.post(`/console/settings/briefs/${b.id}`, { form: { ...sent, daily_cap: "0", proof_of_work: "on" } });
    expect(bad.status).toBe(422);
    expect(bad.text).toMatch(/id="daily_cap-error">Daily cap must be at least 1\.</);
    expect(bad.text).toContain('<option value="on" selected>');
    expect((await api("GET", `/v1/briefs/${b.id}`, { key: org.key })).body.data.attributes.proof_of_work).toBe("auto");

    // Emptied, the cap, the pause and the lane are off again; the requirements as chosen.
    const cleared = {
      ...sent,
      daily_cap: "",
      intake_paused_until: "",
      intake_paused_message: "",
      verified_lane_min_valid: "",
      ai_disclosure: "off",
    };
    expect((await browser.post(`/console/settings/briefs/${b.id}`, { form: { ...cleared, evidence_impact: "" } })).status).toBe(303);
    expect((await api("GET", `/v1/briefs/${b.id}`, { key: org.key })).body.data.attributes).toMatchObject({
      submission_requirements: { evidence: { steps_to_reproduce: "required" }, ai_disclosure: "off" },
      daily_cap: null,
      intake_paused_until: null,
      intake_paused_message: null,
      verified_lane_min_valid: null,
    });

    // A triager reads the gate in words, with no form.
    const triager = await (await signedInAs(org, "triager")).get(`/console/settings/briefs?brief=${b.id}`);
    expect(triager.text).not.toContain('name="proof_of_work"');
    expect(triager.text).toContain("Auto: on while reports come faster than expected (expecting 25 an hour)");
    expect(triager.text).toContain("Steps to reproduce (required)");
  });
});

describe("the owner's release of a brief's queue", () => {
  it("releases the queued reports oldest first from the brief's settings, says how many, and refuses a triager", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED, daily_cap: 1 });
    const key = await newReporterKey();
    const code = b.attributes.shortcode as string;
    await signedVuln(code, key);
    const queued = [await signedVuln(code, key), await signedVuln(code, key)];
    const stateOf = async (id: string) =>
      (await env.DB.prepare("SELECT inbox_state FROM vulns WHERE id = ?").bind(id).first<{ inbox_state: string }>())!.inbox_state;
    expect(await Promise.all(queued.map((v) => stateOf(v.id)))).toEqual(["queued", "queued"]);

    const triager = await signedInAs(org, "triager");
    const settings = await triager.get(`/console/settings/briefs?brief=${b.id}`);
    expect(settings.text).not.toContain('id="release-queued"');
    const refused = await triager.post(`/console/settings/briefs/${b.id}/release-queued`, { form: { csrf: await triager.formToken() } });
    expect(refused.status).toBe(403);
    expect(await stateOf(queued[0]!.id)).toBe("queued");

    const owner = await signedInAs(org, "owner");
    expect((await owner.get(`/console/settings/briefs?brief=${b.id}`)).text).toContain(
      `action="/console/settings/briefs/${b.id}/release-queued"`,
    );
    const released = await owner.post(`/console/settings/briefs/${b.id}/release-queued`, { form: { csrf: await owner.formToken() } });
    expect(released.status).toBe(303);
    const page = await owner.get(released.headers.get("Location")!);
    expect(page.text).toContain("Released 2 queued reports; 0 still queued.");
    expect(await Promise.all(queued.map((v) => stateOf(v.id)))).toEqual(["dispatching", "dispatching"]);
    const audited = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'brief.release_queued' AND target_id = ?")
      .bind(b.id)
      .first<{ n: number }>();
    expect(audited!.n).toBe(1);
  });
});
