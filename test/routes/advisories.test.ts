import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, browse, del, get, patch, post } from "../helpers/api";
import { organization, type TestOrganization } from "../helpers/factories";
import { interleaved } from "../helpers/d1-faults";
import { asReporter, submitReport } from "../helpers/reporter";

// Advisories: drafts, publication (revision 1, the disclosure deadline met, Advisory::Published),
// revisions that never rewrite the past, withdrawal, credits by the reporter's consent, and the public
// reads (drafts never public, nothing of them cached; each publication evicts what was cached).

const AFFECTED = [
  {
    vendor: "Acme",
    product: "Widget",
    purl: "pkg:npm/%40acme/widget",
    versions: [
      { range: { introduced: "1.0.0", fixed: "1.4.2" }, status: "affected" },
      { version: "1.4.2", status: "fixed" },
    ],
  },
];

function draft(vulnIds: string[], attributes: Record<string, unknown> = {}) {
  return {
    data: {
      type: "advisory",
      attributes: { title: "Open redirect in login", summary: "The login page redirects anywhere.", affected: AFFECTED, ...attributes },
      relationships: { vulns: { data: vulnIds.map((id) => ({ type: "vuln", id })) } },
    },
  };
}

const change = (id: string, attributes: Record<string, unknown>) => ({ data: { type: "advisory", id, attributes } });

async function triaged(org: TestOrganization, attributes: Record<string, unknown> = {}) {
  const r = await submitReport(org, { contact_email: "finder@researcher.example" });
  const res = await patch(`/v1/vulns/${r.id}`, org.key, {
    data: {
      type: "vuln",
      id: r.id,
      attributes: { cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N/E:P", cwe_ids: ["CWE-601"], ...attributes },
    },
  });
  expect(res.status).toBe(200);
  return r;
}

describe("advisories", () => {
  it("are drafts first, take their CVSS base vector and CWE from their vulns, and stay private until published", async () => {
    const org = await organization();
    const r = await triaged(org);
    const made = await post("/v1/advisories", org.key, draft([r.id]));
    expect(made.status).toBe(201);
    const a = made.body.data;
    expect(a.attributes).toMatchObject({
      state: "draft",
      revision: 0,
      published_at: null,
      // The base of the vuln's vector: its temporal metric left out.
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
      cwe_ids: ["CWE-601"],
    });
    expect(a.relationships.vulns.data).toEqual([{ type: "vuln", id: r.id }]);
    // Not public, and nothing of it is cached: publishing answers at once.
    for (const path of [
      `/v1/p/advisories/${a.id}`,
      `/v1/p/advisories/${a.id}/csaf`,
      `/v1/p/advisories/${a.id}/osv`,
      `/v1/p/advisories/${a.id}/cve`,
    ])
      expect([path, (await api("GET", path)).status]).toEqual([path, 404]);
    // A draft changes in place, and may be deleted.
    expect((await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { title: "Open redirect" }))).body.data.attributes.revision).toBe(
      0,
    );
    const other = await post("/v1/advisories", org.key, draft([r.id], { cve_id: null }));
    expect((await del(`/v1/advisories/${other.body.data.id}`, org.key)).status).toBe(204);
    // The 404s above were not kept: published, it answers at once.
    await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { state: "published" }));
    for (const path of [`/v1/p/advisories/${a.id}`, `/v1/p/advisories/${a.id}/csaf`, `/a/${a.id}`])
      expect([path, (await browse("GET", path)).status]).toEqual([path, 200]);
  });

  it("keep a draft's reports when a change of them loses a race: 409, and the other change's reports stand", async () => {
    const org = await organization();
    const [first, second, third] = [await triaged(org), await triaged(org), await triaged(org)];
    const a = (await post("/v1/advisories", org.key, draft([first.id]))).body.data;
    const withVulns = (ids: string[]) => ({
      data: { type: "advisory", id: a.id, relationships: { vulns: { data: ids.map((id) => ({ type: "vuln", id })) } } },
    });
    // Another change of the draft lands between this one's read and its write.
    const racing = interleaved(2, () => patch(`/v1/advisories/${a.id}`, org.key, withVulns([second.id])));
    const lost = await api("PATCH", `/v1/advisories/${a.id}`, { key: org.key, body: withVulns([third.id]), env: { DB: racing } });
    expect([lost.status, lost.body.errors[0].detail]).toEqual([
      409,
      "The advisory changed while this request ran; read it again and retry.",
    ]);
    const now = (await get(`/v1/advisories/${a.id}`, org.key)).body.data;
    expect(now.relationships.vulns.data).toEqual([{ type: "vuln", id: second.id }]);
    const rows = await env.DB.prepare("SELECT vuln_id FROM advisory_vulns WHERE advisory_id = ?").bind(a.id).all<{ vuln_id: string }>();
    expect(rows.results.map((row) => row.vuln_id)).toEqual([second.id]);
  });

  it("publish as revision 1, meet the disclosure deadline, fire Advisory::Published, then revise without rewriting the past", async () => {
    const org = await organization();
    const r = await triaged(org);
    const a = (await post("/v1/advisories", org.key, draft([r.id], { cve_id: "CVE-2026-40001" }))).body.data;
    const published = await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { state: "published" }));
    expect(published.status).toBe(200);
    expect(published.body.data.attributes).toMatchObject({ state: "published", revision: 1 });
    const at = published.body.data.attributes.published_at as string;

    const vuln = (await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes;
    expect(vuln.deadlines.disclosure.met_at).toBe(at);
    const event = await env.DB.prepare(
      "SELECT type, payload, vuln_id FROM events WHERE organization_id = ? AND type = 'Advisory::Published'",
    )
      .bind(org.id)
      .first<{ type: string; payload: string; vuln_id: string | null }>();
    expect(JSON.parse(event!.payload)).toEqual({
      advisory: { id: a.id, title: "Open redirect in login", cve_id: "CVE-2026-40001", revision: 1, published_at: at, vuln_ids: [r.id] },
    });

    const first = await api("GET", `/v1/p/advisories/${a.id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Cache")).toBe("MISS");
    expect(first.body.data.attributes).toMatchObject({
      state: "published",
      revision: 1,
      cve_id: "CVE-2026-40001",
      cvss: { score: 6.1, severity: "medium" },
    });
    expect((await api("GET", `/v1/p/advisories/${a.id}`)).headers.get("X-Cache")).toBe("HIT");
    const csaf = await api("GET", `/v1/p/advisories/${a.id}/csaf`);
    expect(csaf.headers.get("Content-Type")).toBe("application/json");
    expect(csaf.body.document.tracking).toMatchObject({ id: `vdp-${a.id}`, version: "1" });

    // A change of a published advisory needs its reason, and makes revision 2.
    const silent = await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { remediation: "Upgrade to 1.4.2." }));
    expect(silent.status).toBe(422);
    expect(silent.body.errors[0].source.pointer).toBe("/data/attributes/revision_note");
    const revised = await patch(
      `/v1/advisories/${a.id}`,
      org.key,
      change(a.id, { remediation: "Upgrade to 1.4.2.", revision_note: "Remediation added" }),
    );
    expect(revised.body.data.attributes.revision).toBe(2);
    // Evicted: the public read shows revision 2 at once, with both in its history.
    const after = await api("GET", `/v1/p/advisories/${a.id}`);
    expect(after.headers.get("X-Cache")).toBe("MISS");
    expect(after.body.data.attributes.revision_history.map((h: { note: string }) => h.note)).toEqual([
      "Initial publication",
      "Remediation added",
    ]);
    expect((await api("GET", `/v1/p/advisories/${a.id}/csaf`)).body.document.tracking.version).toBe("2");
    // Every revision stays readable, as it was; the database refuses to change one.
    const revisions = (await get(`/v1/advisories/${a.id}/revisions`, org.key)).body.data;
    expect(revisions.map((v: any) => [v.attributes.number, v.attributes.document.remediation])).toEqual([
      [1, null],
      [2, "Upgrade to 1.4.2."],
    ]);
    const missing = await get(`/v1/advisories/${a.id}/revisions/9`, org.key);
    expect([missing.status, missing.body.errors[0].detail]).toEqual([404, "The advisory has no revision with that number."]);
    // A change that lands between this one's read and its write makes this one a conflict, and no revision.
    const racing = interleaved(2, () =>
      patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { title: "Raced", revision_note: "The other change" })),
    );
    const lost = await api("PATCH", `/v1/advisories/${a.id}`, {
      key: org.key,
      body: change(a.id, { summary: "Lost", revision_note: "This change" }),
      env: { DB: racing },
    });
    expect(lost.status).toBe(409);
    expect((await get(`/v1/advisories/${a.id}/revisions`, org.key)).body.data.map((v: any) => v.attributes.note)).toEqual([
      "Initial publication",
      "Remediation added",
      "The other change",
    ]);
    await expect(env.DB.prepare("UPDATE advisory_revisions SET note = 'x' WHERE advisory_id = ?").bind(a.id).run()).rejects.toThrow(
      /immutable/,
    );
    // The disclosure deadline keeps its first meeting.
    expect((await get(`/v1/vulns/${r.id}`, org.key)).body.data.attributes.deadlines.disclosure.met_at).toBe(at);

    // The page for people: the latest revision, cached, and evicted by the next.
    const shown = await browse("GET", `/a/${a.id}`);
    expect([shown.status, shown.headers.get("Content-Type"), shown.headers.get("X-Cache")]).toEqual([
      200,
      "text/html; charset=utf-8",
      "MISS",
    ]);
    expect(shown.text).toContain("<h1>Raced</h1>");
    expect(shown.text).toContain("Revision 2, ");
    expect(shown.text).toContain("Upgrade to 1.4.2.");
    expect(shown.text).toContain(`href="/v1/p/advisories/${a.id}/csaf"`);
    expect((await browse("GET", `/a/${a.id}`)).headers.get("X-Cache")).toBe("HIT");

    // Published: never deleted, never a draft again. Withdrawn: still public, final.
    expect((await del(`/v1/advisories/${a.id}`, org.key)).status).toBe(422);
    expect((await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { state: "draft" }))).status).toBe(422);
    const withdrawn = await patch(
      `/v1/advisories/${a.id}`,
      org.key,
      change(a.id, { state: "withdrawn", revision_note: "Not a vulnerability after all" }),
    );
    expect(withdrawn.body.data.attributes).toMatchObject({ state: "withdrawn", revision: 4 });
    const osv = (await api("GET", `/v1/p/advisories/${a.id}/osv`)).body;
    expect(osv.withdrawn).toBe(withdrawn.body.data.attributes.withdrawn_at);
    const page = await browse("GET", `/a/${a.id}`);
    expect(page.headers.get("X-Cache")).toBe("MISS");
    expect(page.text).toContain("<strong>Withdrawn</strong>");
    expect(page.text).toContain("Not a vulnerability after all");
    expect((await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { title: "x", revision_note: "y" }))).status).toBe(422);
  });

  it("credit a reporter only by their consent, with the name they chose", async () => {
    const org = await organization();
    const r = await triaged(org);
    const credit = [{ reporter_of: r.id, type: "finder" }];
    // Without consent, the credit is refused.
    const refused = await post("/v1/advisories", org.key, draft([r.id], { credits: credit }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe("/data/attributes/credits/0/reporter_of");
    // Consent needs a name; then the credit is taken.
    expect(
      (await asReporter("PATCH", "/v1/p/report", r.token, { body: { data: { type: "report", attributes: { credit_consent: true } } } }))
        .status,
    ).toBe(422);
    const consented = await asReporter("PATCH", "/v1/p/report", r.token, {
      body: { data: { type: "report", attributes: { credit_name: "Jane Finder", credit_consent: true } } },
    });
    expect(consented.status).toBe(200);
    expect(consented.body.data.attributes).toMatchObject({ credit_name: "Jane Finder", credit_consent: true, credited_in: [] });
    const a = (await post("/v1/advisories", org.key, draft([r.id], { credits: [...credit, { name: "Acme PSIRT", type: "coordinator" }] })))
      .body.data;
    // Consent withdrawn before publication: the published advisory does not name them.
    await asReporter("PATCH", "/v1/p/report", r.token, { body: { data: { type: "report", attributes: { credit_consent: false } } } });
    await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { state: "published" }));
    expect((await api("GET", `/v1/p/advisories/${a.id}`)).body.data.attributes.credits).toEqual([
      { name: "Acme PSIRT", type: "coordinator" },
    ]);
    // Given again, the next revision names them; the report lists the advisory.
    await asReporter("PATCH", "/v1/p/report", r.token, { body: { data: { type: "report", attributes: { credit_consent: true } } } });
    await patch(`/v1/advisories/${a.id}`, org.key, change(a.id, { title: "Open redirect in the login page", revision_note: "Title" }));
    const pub = (await api("GET", `/v1/p/advisories/${a.id}`)).body.data.attributes;
    expect(pub.credits).toEqual([
      { name: "Jane Finder", type: "finder" },
      { name: "Acme PSIRT", type: "coordinator" },
    ]);
    expect((await api("GET", `/v1/p/advisories/${a.id}/cve`)).body.credits).toEqual([
      { lang: "en", value: "Jane Finder", type: "finder" },
      { lang: "en", value: "Acme PSIRT", type: "coordinator" },
    ]);
    const report = (await asReporter("GET", "/v1/p/report", r.token)).body.data.attributes;
    expect(report.credited_in).toEqual([{ id: a.id, title: "Open redirect in the login page", url: `/v1/p/advisories/${a.id}` }]);
    // The report's page shows the advisory, and its form sets the same credit.
    const shown = await browse("GET", `/r/${r.token}`);
    expect(shown.text).toContain(`<a href="/a/${a.id}">Open redirect in the login page</a>`);
    expect(shown.text).toMatch(/name="credit_name"[^>]*value="Jane Finder"/);
    const form = (fields: Record<string, string>) => browse("POST", `/r/${r.token}/credit`, { body: new URLSearchParams(fields) });
    const nameless = await form({ credit_name: "", credit_consent: "yes" });
    expect(nameless.status).toBe(422);
    expect(nameless.text).toContain("Give the name to credit you by");
    const saved = await form({ credit_name: "J. Finder" });
    expect([saved.status, saved.headers.get("Location")]).toEqual([303, `/r/${r.token}#credit`]);
    expect((await asReporter("GET", "/v1/p/report", r.token)).body.data.attributes).toMatchObject({
      credit_name: "J. Finder",
      credit_consent: false,
    });
  });

  it("refuse what cannot be published or named, and change nothing", async () => {
    const org = await organization();
    const r = await triaged(org);
    const stranger = await triaged(await organization());
    const cases: [Record<string, unknown>, string, string[]?][] = [
      [{ affected: [{ ...AFFECTED[0], purl: "npm/widget" }] }, "/data/attributes/affected/0/purl"],
      [{ cve_id: "CVE-26-1" }, "/data/attributes/cve_id"],
      [{ cwe_ids: ["CWE-999999"] }, "/data/attributes/cwe_ids"],
      [{ references: ["http://acme.example/x"] }, "/data/attributes/references/0"],
      [{ state: "published", summary: null }, "/data/attributes/summary"],
      [
        { state: "published", affected: [{ ...AFFECTED[0], versions: [{ version: "2.0.0", status: "fixed" }] }] },
        "/data/attributes/affected",
      ],
      [{ revision_note: "why" }, "/data/attributes/revision_note"],
      [{}, "/data/relationships/vulns/data/0/id", [stranger.id]],
    ];
    const before = (await get("/v1/advisories", org.key)).body.meta.page.total;
    for (const [attributes, pointer, vulns] of cases) {
      const res = await post("/v1/advisories", org.key, draft(vulns ?? [r.id], attributes));
      expect([pointer, res.status, res.body.errors?.[0]?.source?.pointer]).toEqual([pointer, 422, pointer]);
    }
    expect((await get("/v1/advisories", org.key)).body.meta.page.total).toBe(before);
    // One advisory per CVE id.
    expect((await post("/v1/advisories", org.key, draft([r.id], { cve_id: "CVE-2026-40002" }))).status).toBe(201);
    const twice = await post("/v1/advisories", org.key, draft([r.id], { cve_id: "CVE-2026-40002" }));
    expect([twice.status, twice.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/cve_id"]);
  });

  it("refuse what a rendering could not carry (CSAF, OSV or CVE would be invalid), at the member", async () => {
    const org = await organization();
    const r = await triaged(org);
    const versions = (v: unknown[]) => ({ affected: [{ ...AFFECTED[0], versions: v }] });
    const cases: [Record<string, unknown>, string][] = [
      // Not URIs as RFC 3986 writes them: JSON Schema's "uri" format refuses them in all three.
      [{ references: ["https://acme.example/a b"] }, "/data/attributes/references/0"],
      [{ references: ["https://acme.example/ok", 'https://acme.example/"quoted"'] }, "/data/attributes/references/1"],
      [{ references: ["https://acme.example\\evil.example/"] }, "/data/attributes/references/0"],
      [{ references: ["https://bücher.example/"] }, "/data/attributes/references/0"],
      // A version that reads as a range (CSAF's mandatory test 6.1.31), or would split a range's vers.
      [versions([{ version: "prior to 2.0", status: "affected" }]), "/data/attributes/affected/0/versions/0/version"],
      [versions([{ version: "<= 1.4", status: "affected" }]), "/data/attributes/affected/0/versions/0/version"],
      [
        versions([
          { version: "1.0", status: "fixed" },
          { version: "All Versions", status: "affected" },
        ]),
        "/data/attributes/affected/0/versions/1/version",
      ],
      [
        versions([{ range: { introduced: "1.0|2.0", fixed: null }, status: "affected" }]),
        "/data/attributes/affected/0/versions/0/range/introduced",
      ],
      // A version the purl's type does not take (a Go module's "v" version is semantic versioning).
      [
        {
          affected: [
            { vendor: "Acme", product: "Mod", purl: "pkg:golang/github.com/acme/mod", versions: [{ version: "v1|2", status: "affected" }] },
          ],
        },
        "/data/attributes/affected/0/versions/0/version",
      ],
      [
        {
          affected: [
            { vendor: "Acme", product: "Mod", purl: "pkg:golang/github.com/acme/mod", versions: [{ version: "v1", status: "affected" }] },
          ],
        },
        "/data/attributes/affected/0/versions/0/version",
      ],
      // A CWE twice (CVE's problem types are unique), a remediation longer than CVE's descriptions.
      [{ cwe_ids: ["CWE-79", "CWE-601", "CWE-79"] }, "/data/attributes/cwe_ids"],
      [{ remediation: "x".repeat(4097) }, "/data/attributes/remediation"],
    ];
    for (const [attributes, pointer] of cases) {
      const res = await post("/v1/advisories", org.key, draft([r.id], { ...attributes, state: "published" }));
      expect([pointer, res.status, res.body.errors?.map((e: any) => e.source?.pointer)]).toEqual([pointer, 422, [pointer]]);
    }
    expect((await get("/v1/advisories", org.key)).body.meta.page.total).toBe(0);
    // What they should have been is taken.
    const fixed = await post(
      "/v1/advisories",
      org.key,
      draft([r.id], {
        state: "published",
        references: ["https://acme.example/a%20b", "https://xn--bcher-kva.example/"],
        remediation: "x".repeat(4096),
        affected: [
          { ...AFFECTED[0], versions: [{ range: { introduced: "0", fixed: "2.0" }, status: "affected" }] },
          { vendor: "Acme", product: "Mod", purl: "pkg:golang/github.com/acme/mod", versions: [{ version: "v1.2.0", status: "affected" }] },
        ],
      }),
    );
    expect(fixed.status).toBe(201);
  });

  it("check a draft kept from before these rules again when it is published", async () => {
    const org = await organization();
    const r = await triaged(org);
    const created = await post("/v1/advisories", org.key, draft([r.id]));
    const id = created.body.data.id;
    // As a row written before the checks may hold it.
    const affected = [{ vendor: "Acme", product: "Widget", purl: null, versions: [{ version: "prior to 2.0", status: "affected" }] }];
    await env.DB.prepare('UPDATE advisories SET "references" = ?, affected = ?, cwe_ids = ? WHERE id = ?')
      .bind(JSON.stringify(["https://acme.example/a b"]), JSON.stringify(affected), JSON.stringify(["CWE-79", "CWE-79"]), id)
      .run();
    const res = await patch(`/v1/advisories/${id}`, org.key, change(id, { state: "published" }));
    expect([res.status, res.body.errors.map((e: any) => e.source.pointer)]).toEqual([
      422,
      ["/data/attributes/references/0", "/data/attributes/affected/0/versions/0/version", "/data/attributes/cwe_ids"],
    ]);
    expect((await get(`/v1/advisories/${id}`, org.key)).body.data.attributes.state).toBe("draft");
  });
});
