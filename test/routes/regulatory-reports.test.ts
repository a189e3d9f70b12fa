import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runScheduled } from "../../src/scheduled";
import { get, patch, post } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { eventsOf } from "../helpers/events";
import { interleaved } from "../helpers/d1-faults";
import { brief, operatorKey, organization, policy, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

// The EU Cyber Resilience Act's clock: a vuln flagged actively_exploited gets three deadlines of the
// law (24 hours, 72 hours, 14 days after a fix), which never pause, fire the deadline events, and are
// met by what the organization records it filed; and a draft of the text to file. Time is the test's.

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse("2026-10-05T08:00:00.000Z");
const { at } = testClock(T0);
const iso = (ms: number) => new Date(ms).toISOString();

async function report(attributes: Record<string, unknown> = {}) {
  const org = await organization({ name: "Acme Devices" });
  const p = await policy(org, { published_at: PUBLISHED });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  return { org, v: await vuln(org, b.id, { title: "Stored XSS in the router admin", ...attributes }) };
}
const move = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes } });
const file = (org: TestOrganization, vulnId: string, attributes: Record<string, unknown>, key = org.key) =>
  post(`/v1/vulns/${vulnId}/regulatory_reports`, key, {
    data: { type: "regulatory_report", attributes: { body: "Filed text", ...attributes } },
  });
const read = async (org: TestOrganization, id: string) => (await get(`/v1/vulns/${id}`, org.key)).body.data.attributes;

describe("actively exploited", () => {
  it("starts the law's clock when flagged: 24 and 72 hours from the moment, the final report none until a fix", async () => {
    const { org, v } = await report();
    expect(v.attributes).toMatchObject({ actively_exploited: false, exploitation_known_at: null });
    expect(Object.keys(v.attributes.deadlines)).toEqual(["acknowledge", "triage", "resolve", "disclosure"]);
    at(T0 + 2 * H);
    const res = await move(org, v.id, { actively_exploited: true });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ actively_exploited: true, exploitation_known_at: iso(T0 + 2 * H) });
    expect(res.body.data.attributes.deadlines).toMatchObject({
      cra_early_warning: { due_at: iso(T0 + 26 * H), met_at: null, state: "pending" },
      cra_notification: { due_at: iso(T0 + 74 * H), met_at: null, state: "pending" },
      cra_final_report: { due_at: null, met_at: null, state: "none" },
    });
    // Other edits keep the moment it became known.
    at(T0 + 3 * H);
    expect((await move(org, v.id, { severity: "high" })).body.data.attributes.exploitation_known_at).toBe(iso(T0 + 2 * H));
    // Events: Vuln::Updated for the flag, as for any edit.
    expect((await eventsOf(v.id)).filter((e) => e.type === "Vuln::Updated")).toHaveLength(2);
  });

  it("takes an earlier moment it became known, never a later one than now, only with the flag; each refusal changes nothing", async () => {
    const { org, v } = await report();
    at(T0 + 10 * H);
    const earlier = await move(org, v.id, { actively_exploited: true, exploitation_known_at: iso(T0 - 30 * H) });
    expect(earlier.body.data.attributes.deadlines.cra_early_warning).toEqual({ due_at: iso(T0 - 6 * H), met_at: null, state: "breached" });
    for (const [attributes, detail] of [
      [{ exploitation_known_at: iso(T0 + 11 * H) }, /must not be in the future/],
      [{ exploitation_known_at: null }, /an actively exploited vuln has one/],
      [{ actively_exploited: false, exploitation_known_at: iso(T0) }, /only an actively exploited vuln has one/],
      [{ exploitation_known_at: "yesterday" }, /RFC 3339/],
    ] as const) {
      const res = await move(org, v.id, attributes);
      expect([res.status, res.body.errors[0].source, res.body.errors[0].detail]).toEqual([
        422,
        { pointer: "/data/attributes/exploitation_known_at" },
        expect.stringMatching(detail),
      ]);
    }
    expect((await read(org, v.id)).exploitation_known_at).toBe(iso(T0 - 30 * H));
    // In a bulk PATCH the pointer names the member.
    const bulk = await patch("/v1/vulns", org.key, {
      data: [{ type: "vuln", id: v.id, attributes: { exploitation_known_at: iso(T0 + D) } }],
    });
    expect([bulk.status, bulk.body.errors[0].source]).toEqual([422, { pointer: "/data/0/attributes/exploitation_known_at" }]);
    // Unflagged, the clock stops: the law's deadlines leave, and the moment with them.
    const off = await move(org, v.id, { actively_exploited: false });
    expect(off.body.data.attributes.exploitation_known_at).toBeNull();
    expect(Object.keys(off.body.data.attributes.deadlines)).not.toContain("cra_early_warning");
  });

  it("is flagged at creation too, and its deadlines never pause while the report waits for its reporter", async () => {
    const { org, v } = await report({ actively_exploited: true });
    expect(v.attributes).toMatchObject({ actively_exploited: true, exploitation_known_at: iso(T0) });
    await move(org, v.id, { triage_state: "needs_more_info" });
    at(T0 + 30 * H);
    const d = (await read(org, v.id)).deadlines;
    expect([d.acknowledge.state, d.cra_early_warning.state, d.cra_notification.state]).toEqual(["met", "breached", "pending"]);
    expect([d.triage.state]).toEqual(["paused"]);
    // Overdue counts the law's deadlines, paused or not.
    at(T0 + 31 * H);
    await runScheduled(env, new Date(T0 + 31 * H));
    const overdue = await get(`/v1/vulns?q[overdue_eq]=true`, org.key);
    expect(overdue.body.data.map((x: { id: string }) => x.id)).toEqual([v.id]);
  });

  it("starts the final report's 14 days at a close as resolved, and stops them at a reopen", async () => {
    const { org, v } = await report({ actively_exploited: true });
    at(T0 + 5 * D);
    const fixed = await move(org, v.id, { triage_state: "resolved" });
    expect(fixed.body.data.attributes.deadlines.cra_final_report).toEqual({ due_at: iso(T0 + 19 * D), met_at: null, state: "pending" });
    at(T0 + 6 * D);
    const reopened = await move(org, v.id, { triage_state: "triaged" });
    expect(reopened.body.data.attributes.deadlines.cra_final_report.state).toBe("none");
    const informative = await move(org, v.id, { triage_state: "informative" });
    expect(informative.body.data.attributes.deadlines.cra_final_report.state).toBe("none");
  });

  it("puts its deadline first in sort=next_due_at when it is the soonest", async () => {
    const { org, v } = await report();
    const b = await brief(org, { published_at: PUBLISHED });
    at(T0 + H);
    const exploited = await vuln(org, b.id, { actively_exploited: true });
    const sorted = await get("/v1/vulns?sort=next_due_at", org.key);
    // The plain report's first due time is 72 hours out; the exploited one's early warning is 24.
    expect(sorted.body.data.map((x: { id: string }) => x.id)).toEqual([exploited.id, v.id]);
  });

  it("fires the deadline events for the law's deadlines, once each", async () => {
    const { v } = await report({ actively_exploited: true });
    for (const t of [T0 + 19.2 * H + 30_000, T0 + 19.2 * H + 90_000, T0 + 24 * H + 30_000, T0 + 24 * H + 90_000]) {
      await runScheduled(env, new Date(t));
    }
    const fired = (await eventsOf(v.id))
      .filter((e) => e.type.startsWith("Vuln::Deadline::"))
      .map((e) => JSON.parse(e.payload).deadline)
      .filter((d) => d.kind.startsWith("cra_"));
    expect(fired).toEqual([
      { vuln_id: v.id, shortcode: v.attributes.shortcode, kind: "cra_early_warning", due_at: iso(T0 + 24 * H), state: "pending" },
      { vuln_id: v.id, shortcode: v.attributes.shortcode, kind: "cra_early_warning", due_at: iso(T0 + 24 * H), state: "breached" },
    ]);
  });
});

describe("POST /v1/vulns/{id}/regulatory_reports", () => {
  it("records a filing, meets its deadline at the first filing's submitted_at, and lists the filings oldest first", async () => {
    const { org, v } = await report({ actively_exploited: true });
    at(T0 + 20 * H);
    const first = await file(org, v.id, { kind: "early_warning", submitted_at: iso(T0 + 18 * H), reference: "CSIRT-2026-0042" });
    expect(first.status).toBe(201);
    expect(first.headers.get("Location")).toBe(first.body.data.links.self);
    expect(first.body.data).toMatchObject({
      type: "regulatory_report",
      attributes: { kind: "early_warning", submitted_at: iso(T0 + 18 * H), reference: "CSIRT-2026-0042", body: "Filed text" },
      relationships: { vuln: { data: { type: "vuln", id: v.id } } },
    });
    const met = { due_at: iso(T0 + 24 * H), met_at: iso(T0 + 18 * H), state: "met" };
    expect((await read(org, v.id)).deadlines.cra_early_warning).toEqual(met);
    // A later filing of the same kind keeps the first time; an earlier one recorded late moves it earlier.
    at(T0 + 21 * H);
    await file(org, v.id, { kind: "early_warning", submitted_at: iso(T0 + 19 * H) });
    expect((await read(org, v.id)).deadlines.cra_early_warning.met_at).toBe(iso(T0 + 18 * H));
    await file(org, v.id, { kind: "early_warning", submitted_at: iso(T0 + 17 * H) });
    expect((await read(org, v.id)).deadlines.cra_early_warning.met_at).toBe(iso(T0 + 17 * H));
    // A filing of another kind meets only its own.
    expect((await read(org, v.id)).deadlines.cra_notification.state).toBe("pending");
    const list = await get(`/v1/vulns/${v.id}/regulatory_reports`, org.key);
    expect(list.body.meta.page.total).toBe(3);
    expect(list.body.data.map((r: { attributes: { submitted_at: string } }) => r.attributes.submitted_at)).toEqual([
      iso(T0 + 18 * H),
      iso(T0 + 19 * H),
      iso(T0 + 17 * H),
    ]);
    expect((await get(first.body.data.links.self, org.key)).body.data.id).toBe(first.body.data.id);
    // A filing the vuln does not have is not_found; a vuln that is not there, vuln_not_found.
    const unknown = await get(`/v1/vulns/${v.id}/regulatory_reports/${crypto.randomUUID()}`, org.key);
    expect([unknown.status, unknown.body.errors[0].code]).toEqual([404, "not_found"]);
    const noVuln = await get(`/v1/vulns/${crypto.randomUUID()}/regulatory_reports`, org.key);
    expect([noVuln.status, noVuln.body.errors[0].code]).toEqual([404, "vuln_not_found"]);
  });

  it("clears the overdue flag when the breached filing is made", async () => {
    const { org, v } = await report({ actively_exploited: true });
    await move(org, v.id, { triage_state: "triaged" });
    at(T0 + 25 * H);
    await runScheduled(env, new Date(T0 + 25 * H));
    expect((await get("/v1/vulns?q[overdue_eq]=true", org.key)).body.meta.page.total).toBe(1);
    await file(org, v.id, { kind: "early_warning", submitted_at: iso(T0 + 25 * H) });
    expect((await get("/v1/vulns?q[overdue_eq]=true", org.key)).body.meta.page.total).toBe(0);
    expect((await read(org, v.id)).deadlines.cra_early_warning).toMatchObject({ state: "met", met_at: iso(T0 + 25 * H) });
  });

  it("refuses a filing in the future, without a body, of an unknown kind, and any from an operator; each writes nothing", async () => {
    const { org, v } = await report({ actively_exploited: true });
    for (const [attributes, pointer] of [
      [{ kind: "early_warning", submitted_at: iso(T0 + H) }, "/data/attributes/submitted_at"],
      [{ kind: "early_warning", submitted_at: iso(T0), body: "  " }, "/data/attributes/body"],
      [{ kind: "press_release", submitted_at: iso(T0) }, "/data/attributes/kind"],
      [{ kind: "early_warning", submitted_at: iso(T0), reference: "x".repeat(201) }, "/data/attributes/reference"],
    ] as const) {
      const res = await file(org, v.id, attributes);
      expect([res.status, res.body.errors[0].source]).toEqual([422, { pointer }]);
    }
    const op = await operatorKey();
    const refused = await file(org, v.id, { kind: "early_warning", submitted_at: iso(T0) }, op);
    expect([refused.status, refused.body.errors[0].code]).toEqual([403, "forbidden"]);
    // The operator reads them, like everything of every organization.
    expect((await get(`/v1/vulns/${v.id}/regulatory_reports`, op)).body.meta.page.total).toBe(0);
    expect((await read(org, v.id)).deadlines.cra_early_warning.state).toBe("pending");
  });
});

describe("a filing's time", () => {
  it("is never before the vuln's exploitation became known (nor in the future), and the record says when it was made", async () => {
    const { org, v } = await report();
    at(T0 + 10 * H);
    await move(org, v.id, { actively_exploited: true, exploitation_known_at: iso(T0 + 2 * H + 400) });
    at(T0 + 20 * H);
    for (const submitted of [iso(T0 + H), iso(T0 - 400 * D), iso(T0 + 21 * H)]) {
      const res = await file(org, v.id, { kind: "early_warning", submitted_at: submitted });
      expect([res.status, res.body.errors.map((e: any) => e.source)]).toEqual([422, [{ pointer: "/data/attributes/submitted_at" }]]);
    }
    expect((await get(`/v1/vulns/${v.id}/regulatory_reports`, org.key)).body.meta.page.total).toBe(0);
    expect((await read(org, v.id)).deadlines.cra_early_warning.state).toBe("pending");
    // The second it became known (times are written to the second) is a time it may be filed;
    // created_at says when it was recorded here.
    const filed = await file(org, v.id, { kind: "early_warning", submitted_at: iso(T0 + 2 * H).replace(".000Z", "Z") });
    expect([filed.status, filed.body.data.attributes.submitted_at, filed.body.data.attributes.created_at]).toEqual([
      201,
      iso(T0 + 2 * H),
      iso(T0 + 20 * H),
    ]);
  });

  it("is held to the moment of knowledge as the filing commits, when a change moves it later in between", async () => {
    const { org, v } = await report();
    at(T0 + 10 * H);
    await move(org, v.id, { actively_exploited: true, exploitation_known_at: iso(T0) });
    at(T0 + 20 * H);
    const db = interleaved(2, async () => expect((await move(org, v.id, { exploitation_known_at: iso(T0 + 5 * H) })).status).toBe(200));
    const res = await post(
      `/v1/vulns/${v.id}/regulatory_reports`,
      org.key,
      { data: { type: "regulatory_report", attributes: { kind: "early_warning", submitted_at: iso(T0 + H), body: "Filed text" } } },
      { env: { DB: db } },
    );
    expect([res.status, res.body.errors?.[0].source]).toEqual([422, { pointer: "/data/attributes/submitted_at" }]);
    expect((await get(`/v1/vulns/${v.id}/regulatory_reports`, org.key)).body.meta.page.total).toBe(0);
    expect((await read(org, v.id)).deadlines.cra_early_warning).toMatchObject({ met_at: null });
  });
});

describe("GET /v1/vulns/{id}/regulatory_reports/draft", () => {
  it("fills the text to file from the vuln and lists what the organization must still complete", async () => {
    const { org, v } = await report({
      actively_exploited: true,
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
      cwe_ids: ["CWE-79"],
    });
    const res = await get(`/v1/vulns/${v.id}/regulatory_reports/draft?kind=notification`, org.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      type: "regulatory_report_draft",
      id: v.id,
      attributes: { kind: "notification", deadline: { due_at: iso(T0 + 72 * H), met_at: null, state: "pending" } },
    });
    const fields = Object.fromEntries(
      res.body.data.attributes.fields.map((f: { name: string; value: string | null }) => [f.name, f.value]),
    );
    expect(fields).toMatchObject({
      manufacturer: "Acme Devices",
      reference: v.attributes.shortcode,
      vulnerability: "Stored XSS in the router admin",
      exploitation_known_at: iso(T0),
      severity: "medium",
      cvss: "6.1 (CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N)",
      cwe_ids: "CWE-79",
      corrective_measures: null,
    });
    expect(res.body.meta.missing).toEqual(["affected_products", "exploit_nature", "corrective_measures", "user_measures", "sensitivity"]);
    expect(res.body.data.attributes.body).toContain("Vulnerability: Stored XSS in the router admin");
    expect(res.body.data.attributes.body).toContain("General nature of the exploit: [to complete: general nature of the exploit]");
    // Once a fix is out, the measures taken are filled; the final report's clock runs.
    at(T0 + 3 * D);
    await move(org, v.id, { triage_state: "resolved" });
    const final = await get(`/v1/vulns/${v.id}/regulatory_reports/draft?kind=final_report`, org.key);
    expect(final.body.data.attributes.deadline.due_at).toBe(iso(T0 + 17 * D));
    expect(final.body.meta.missing).toEqual(["affected_products", "impact", "security_update", "malicious_actor"]);
    const early = await get(`/v1/vulns/${v.id}/regulatory_reports/draft?kind=early_warning`, org.key);
    expect(early.body.meta.missing).toEqual(["affected_products", "suspected_malicious", "member_states"]);
  });

  it("fills the affected products and versions from the report's advisory: its draft first, never a withdrawn one", async () => {
    const { org, v } = await report({ actively_exploited: true });
    const advisory = (title: string, affected: unknown[]) =>
      post("/v1/advisories", org.key, {
        data: {
          type: "advisory",
          attributes: { title, summary: "Script in the admin page.", affected },
          relationships: { vulns: { data: [{ type: "vuln", id: v.id }] } },
        },
      });
    const affected = async () => {
      const res = await get(`/v1/vulns/${v.id}/regulatory_reports/draft?kind=notification`, org.key);
      const field = res.body.data.attributes.fields.find((f: { name: string }) => f.name === "affected_products");
      return { value: field.value, missing: res.body.meta.missing.includes("affected_products"), body: res.body.data.attributes.body };
    };
    expect(await affected()).toMatchObject({ value: null, missing: true });
    const first = await advisory("Stored XSS in the router admin", [
      {
        vendor: "Acme",
        product: "Router",
        purl: "pkg:generic/acme/router",
        versions: [
          { range: { introduced: "2.0.0", fixed: "2.3.1" }, status: "affected" },
          { version: "2.3.1", status: "fixed" },
        ],
      },
      { vendor: "Acme", product: "Router Mini", versions: [{ version: "1.1", status: "affected" }] },
    ]);
    expect(first.status, first.text).toBe(201);
    const words = "Acme Router (pkg:generic/acme/router): from 2.0.0 before 2.3.1 affected, 2.3.1 fixed; Acme Router Mini: 1.1 affected";
    expect(await affected()).toEqual({
      value: words,
      missing: false,
      body: expect.stringContaining(`Affected products and versions: ${words}`),
    });
    // Published, then withdrawn: a withdrawn advisory speaks for nothing.
    const id = first.body.data.id;
    const change = (attributes: Record<string, unknown>) =>
      patch(`/v1/advisories/${id}`, org.key, { data: { type: "advisory", id, attributes } });
    expect((await change({ state: "published" })).status).toBe(200);
    expect((await affected()).value).toBe(words);
    expect((await change({ state: "withdrawn", revision_note: "Wrong product." })).status).toBe(200);
    expect(await affected()).toMatchObject({ value: null, missing: true });
    // Another organization's advisory never speaks for this report.
    const other = await report({ actively_exploited: true });
    expect((await get(`/v1/vulns/${other.v.id}/regulatory_reports/draft?kind=notification`, other.org.key)).body.meta.missing).toContain(
      "affected_products",
    );
  });

  it("needs a known kind, and answers for a vuln not exploited with no deadline", async () => {
    const { org, v } = await report();
    for (const query of ["", "?kind=bogus", "?kind=notification&extra=1"]) {
      expect((await get(`/v1/vulns/${v.id}/regulatory_reports/draft${query}`, org.key)).status).toBe(400);
    }
    const res = await get(`/v1/vulns/${v.id}/regulatory_reports/draft?kind=early_warning`, org.key);
    expect([res.status, res.body.data.attributes.deadline]).toEqual([200, { due_at: null, met_at: null, state: "none" }]);
    expect(res.body.meta.missing).toContain("exploitation_known_at");
  });
});
