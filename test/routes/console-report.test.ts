import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { member, signedIn } from "../helpers/console";
import { organization, type TestOrganization } from "../helpers/factories";
import { asReporter, reporterFixture, submitReport, untilStored } from "../helpers/reporter";

// A report's console page, through the Worker as a browser uses it: read in one batch, the record as
// received with its hash, and its forms going through the API's own services: triage (with the API's
// schema: CVSS scored here, CWE named, a duplicate by shortcode), a reply whose visibility must be
// chosen, a question that waits for the reporter, a CRA filing. Two organizations with look-alike
// reports; a viewer changes nothing; everything a person typed is text.

const signedInAs = async (org: TestOrganization, role: "owner" | "triager" | "viewer") => signedIn((await member(org, { role })).email);
const vulnRow = (id: string) =>
  env.DB.prepare("SELECT triage_state, severity, cvss_score, cwe_ids, read_at, duplicate_of_id, revision FROM vulns WHERE id = ?")
    .bind(id)
    .first();
const commentsOf = async (id: string) =>
  (await env.DB.prepare("SELECT author, visibility, body FROM comments WHERE vuln_id = ? ORDER BY created_at, id").bind(id).all()).results;

describe("a report's console page", () => {
  it("shows the record as received with its hash in one read batch, marks it read once, and 404s the neighbour's", async () => {
    const { report } = await reporterFixture();
    const neighbour = await submitReport(await organization(), {}, { realQueue: true });
    await untilStored(neighbour);
    const browser = await signedInAs(report.org, "viewer");
    const first = await browser.get(`/console/reports/${report.shortcode}`);
    expect(first.status).toBe(200);
    const record = await env.DB.prepare("SELECT sha256 FROM vuln_records WHERE vuln_id = ?").bind(report.id).first<{ sha256: string }>();
    expect(first.text).toContain(record!.sha256);
    expect(first.text).toContain("Thanks, we are looking.");
    expect(first.text).toContain("internal note, not shown to the reporter");
    expect(first.text).toContain("fix-plan.json");
    expect((await vulnRow(report.id))!.read_at).not.toBeNull();
    const reads = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE vuln_id = ? AND type = 'Vuln::Read'")
      .bind(report.id)
      .first();
    expect(reads!.n).toBe(1);
    // Read again: the session's lookup and the page's one batch.
    const again = await browser.get(`/console/reports/${report.shortcode}`);
    expect(again.status).toBe(200);
    expect(again.roundTrips).toBe(2);
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM events WHERE vuln_id = ? AND type = 'Vuln::Read'").bind(report.id).first())!.n,
    ).toBe(1);
    // A viewer gets no forms.
    expect(again.text).not.toContain('id="triage"');
    expect(again.text).not.toContain('id="reply"');
    const theirs = await browser.get(`/console/reports/${neighbour.shortcode}`);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain(neighbour.shortcode.slice(5));
  });

  it("triages through the API's own rules: CVSS scored here, CWE named, a duplicate by shortcode, bad input kept and refused", async () => {
    const { report } = await reporterFixture();
    const original = await submitReport(report.org, { title: "The first report of it" });
    const browser = await signedInAs(report.org, "triager");
    const csrf = await browser.formToken();
    const path = `/console/reports/${report.shortcode}`;
    const base = {
      csrf,
      triage_state: "triaged",
      duplicate_of: "",
      reason: "",
      severity: "high",
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
      cwe_ids: "79, CWE-89",
      exploitation_known_at: "",
      assignee: "",
    };
    const saved = await browser.post(`${path}/triage`, { form: base });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.get("Location")).toBe(`${path}?saved=triage`);
    const page = await browser.get(`${path}?saved=triage`);
    expect(page.text).toContain("The triage was saved.");
    expect(page.text).toContain("<strong>7.5</strong>");
    expect(page.text).toContain("CWE-79: Improper Neutralization of Input During Web Page Generation");
    const api1 = await api("GET", `/v1/vulns/${report.id}`, { key: report.org.key });
    expect(api1.body.data.attributes).toMatchObject({
      triage_state: "triaged",
      severity: "high",
      cvss_score: 7.5,
      cwe_ids: ["CWE-79", "CWE-89"],
    });

    const before = await vulnRow(report.id);
    const bad = await browser.post(`${path}/triage`, { form: { ...base, cvss_vector: "CVSS:3.1/AV:Q", severity: "low" } });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('id="cvss_vector-message"');
    expect(bad.text).toContain('value="CVSS:3.1/AV:Q"');
    expect(await vulnRow(report.id)).toEqual(before);
    const noOriginal = await browser.post(`${path}/triage`, {
      form: { ...base, triage_state: "duplicate", duplicate_of: "ZZZZ-ZZZZ-ZZZZ" },
    });
    expect(noOriginal.status).toBe(422);
    expect(noOriginal.text).toContain('id="duplicate_of-message"');
    expect(await vulnRow(report.id)).toEqual(before);

    const dup = await browser.post(`${path}/triage`, {
      form: { ...base, triage_state: "duplicate", duplicate_of: original.shortcode.toLowerCase(), reason: "Same as the first" },
    });
    expect(dup.status, dup.text).toBe(303);
    expect((await vulnRow(report.id))!.duplicate_of_id).toBe(original.id);
    expect((await commentsOf(report.id)).at(-1)).toEqual({ author: "organization", visibility: "internal", body: "Same as the first" });
    expect((await browser.get(path)).text).toContain(`href="/console/reports/${original.shortcode}"`);
  });

  it("asks the reporter for more information, whose answer brings the report back, and refuses a reply with no visibility chosen", async () => {
    const { report } = await reporterFixture();
    const browser = await signedInAs(report.org, "triager");
    const csrf = await browser.formToken();
    const path = `/console/reports/${report.shortcode}`;
    const count = (await commentsOf(report.id)).length;
    const unchosen = await browser.post(`${path}/comments`, { form: { csrf, body: "Which browser?", send: "reply" } });
    expect(unchosen.status).toBe(422);
    expect(unchosen.text).toContain("Choose who sees the message");
    expect(unchosen.text).toContain("Which browser?");
    expect(await commentsOf(report.id)).toHaveLength(count);

    // A textarea's line breaks come as CRLF; the conversation keeps them as LF, as the API's comments do.
    const typed = await browser.post(`${path}/comments`, {
      form: { csrf, body: "Thanks.\r\nWe are on it.", visibility: "internal", send: "reply" },
    });
    expect(typed.status, typed.text).toBe(303);
    expect((await commentsOf(report.id)).at(-1)).toEqual({
      author: "organization",
      visibility: "internal",
      body: "Thanks.\nWe are on it.",
    });
    const asked = await browser.post(`${path}/comments`, { form: { csrf, body: "Which browser?", visibility: "reporter", send: "ask" } });
    expect(asked.status, asked.text).toBe(303);
    expect((await vulnRow(report.id))!.triage_state).toBe("needs_more_info");
    expect((await commentsOf(report.id)).at(-1)).toEqual({ author: "organization", visibility: "reporter", body: "Which browser?" });
    const answer = await asReporter("POST", "/v1/p/report/comments", report.token, {
      body: { data: { type: "comment", attributes: { body: "Firefox 140" } } },
    });
    expect(answer.status).toBe(201);
    expect((await vulnRow(report.id))!.triage_state).toBe("new");
    const page = await browser.get(path);
    expect(page.text).toContain("Firefox 140");
    expect(page.text).toContain("The reporter,");
  });

  it("refuses a viewer's every form with nothing written, and shows what people typed as text", async () => {
    const org = await organization();
    const xss = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    const report = await submitReport(org, { title: `Title ${xss}`, description: `Body ${xss}` }, { realQueue: true });
    await untilStored(report);
    await api("POST", `/v1/vulns/${report.id}/comments`, {
      key: org.key,
      body: { data: { type: "comment", attributes: { body: `Note ${xss}` } } },
    });
    const viewer = await signedInAs(org, "viewer");
    const page = await viewer.get(`/console/reports/${report.shortcode}`);
    expect(page.text).not.toContain("<script>alert(1)");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const csrf = await viewer.formToken();
    const before = [await vulnRow(report.id), await commentsOf(report.id)];
    for (const [action, form] of [
      ["triage", { csrf, triage_state: "spam", severity: "", cvss_vector: "", cwe_ids: "" }],
      ["comments", { csrf, body: "hello", visibility: "internal", send: "reply" }],
      ["filings", { csrf, kind: "early_warning", body: "x", submitted_at: "2026-01-01T00:00" }],
    ] as const) {
      const res = await viewer.post(`/console/reports/${report.shortcode}/${action}`, { form });
      expect(res.status, action).toBe(403);
    }
    expect([await vulnRow(report.id), await commentsOf(report.id)]).toEqual(before);
  });
});
