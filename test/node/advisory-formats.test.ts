import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AdvisoryDocument, advisoryLinks, CREDIT_TYPES, type CreditType, creditWords, VERSION_STATUSES } from "../../src/lib/advisory";
import { csafDocument } from "../../src/lib/advisory-csaf";
import { cveContainer } from "../../src/lib/advisory-cve";
import { osvDocument } from "../../src/lib/advisory-osv";
import { baseCvss, severityOf } from "../../src/lib/cvss";
import { CWE_NAMES } from "../../src/lib/cwe-names";
import { atomFeed, csafChanges, csafIndex, providerMetadata, rolieFeed } from "../../src/lib/advisory-feeds";
import { csafProblems, cveProblems, osvProblems, parseAtom, providerMetadataProblems, rolieFeedProblems } from "./advisory-validators";

// The three renderings of an advisory, each read by its own independent validator (the BSI's CSAF
// validator with its mandatory tests, the OSV and CVE Programs' schemas), over advisories generated at
// random; and the same credits, CVSS and CWE in all three. Each validator is first shown to refuse a
// broken document.

const links = advisoryLinks("https://vdp.example.com", "01936f5e-0000-7000-8000-000000000001");
const GENERATOR = "vdp-api";

const good: AdvisoryDocument = {
  id: "01936f5e-0000-7000-8000-000000000001",
  publisher: {
    name: "Acme Corp",
    slug: "acme",
    website_url: "https://acme.example",
    organization_id: "01936f5e-0000-7000-8000-0000000000aa",
  },
  title: "Open redirect in the Acme login page",
  summary: "The login page redirects to any address given in its next parameter.",
  description: "An attacker can send a link that logs the victim in and then sends them to a phishing site.",
  affected: [
    {
      vendor: "Acme",
      product: "Widget",
      purl: "pkg:npm/%40acme/widget",
      versions: [
        { range: { introduced: "1.0.0", fixed: "1.4.2" }, status: "affected" },
        { version: "1.4.2", status: "fixed" },
      ],
    },
  ],
  remediation: "Upgrade to 1.4.2.",
  references: ["https://acme.example/blog/redirect"],
  cve_id: "CVE-2026-12345",
  cvss: { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", version: "3.1", score: 6.1, severity: "medium" },
  cwe_ids: ["CWE-601"],
  credits: [{ name: "Jane Finder", type: "finder" }],
  state: "published",
  revision: 2,
  published_at: "2026-11-01T10:00:00.000Z",
  updated_at: "2026-11-20T10:00:00.000Z",
  withdrawn_at: null,
  history: [
    { number: 1, date: "2026-11-01T10:00:00.000Z", note: "Initial publication" },
    { number: 2, date: "2026-11-20T10:00:00.000Z", note: "Fixed version named" },
  ],
};

const clone = <T>(v: T): T => structuredClone(v);

describe("the validators of the advisory formats", () => {
  it("take the renderings of a good advisory", async () => {
    expect(await csafProblems(csafDocument(good, links, GENERATOR))).toEqual([]);
    expect(osvProblems(osvDocument(good, links))).toEqual([]);
    expect(cveProblems(await cveContainer(good, links))).toEqual([]);
  });

  it("refuse broken ones", async () => {
    const csaf = csafDocument(good, links, GENERATOR);
    const broken: [string, (d: any) => void][] = [
      ["no tracking", (d) => delete d.document.tracking],
      ["a score its vector does not give", (d) => (d.vulnerabilities[0].scores[0].cvss_v3.baseScore = 9.9)],
      ["a CWE under another's name", (d) => (d.vulnerabilities[0].cwe.name = "Cross-site Scripting")],
      ["a product id nothing defines", (d) => d.vulnerabilities[0].product_status.known_affected.push("CSAFPID-9-9")],
      ["a revision missing from the history", (d) => (d.document.tracking.version = "3")],
      [
        "an invalid package URL",
        (d) => (d.product_tree.branches[0].branches[0].branches[1].product.product_identification_helper.purl = "npm/widget"),
      ],
    ];
    for (const [what, breakIt] of broken) {
      const d = clone(csaf);
      breakIt(d);
      expect([what, (await csafProblems(d)).length > 0]).toEqual([what, true]);
    }
    const osv = osvDocument(good, links);
    for (const breakIt of [
      (d: any) => delete d.id,
      (d: any) => (d.credits[0].type = "HERO"),
      (d: any) => (d.severity[0].score = "CVSS:3.1/AV:Q"),
    ]) {
      const d = clone(osv);
      breakIt(d);
      expect(osvProblems(d).length).toBeGreaterThan(0);
    }
    const cve = await cveContainer(good, links);
    for (const breakIt of [
      (d: any) => delete d.affected,
      (d: any) => (d.problemTypes[0].descriptions[0].cweId = "CWE-0"),
      (d: any) => (d.providerMetadata.orgId = "not-a-uuid"),
      (d: any) => (d.credits[0].type = "remediation_developer"),
    ]) {
      const d = clone(cve);
      breakIt(d);
      expect(cveProblems(d).length).toBeGreaterThan(0);
    }
  });
});

// ---- Generated advisories ----------------------------------------------------------------------

const text = (max: number) =>
  fc
    .string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789-_.,:;!?'\"&<>é漢"), minLength: 1, maxLength: max })
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
const version = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map(([a, b, c]) => `${a}.${b}.${c}`);
const PURLS = [
  null,
  "pkg:npm/%40acme/widget",
  "pkg:pypi/acme-widget",
  "pkg:maven/com.acme/widget",
  "pkg:generic/acme/widget",
  "pkg:golang/github.com/acme/widget",
];
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const one = (letters: string) => fc.constantFrom(...letters.split(""));
const cvss31 = fc
  .tuple(one("NALP"), one("LH"), one("NLH"), one("NR"), one("UC"), one("NLH"), one("NLH"), one("NLH"))
  .map(([av, ac, pr, ui, s, c, i, a]) => `CVSS:3.1/AV:${av}/AC:${ac}/PR:${pr}/UI:${ui}/S:${s}/C:${c}/I:${i}/A:${a}`);
const cvss30 = cvss31.map((v) => v.replace("CVSS:3.1", "CVSS:3.0"));
const cvss40 = fc
  .tuple(one("NALP"), one("LH"), one("NP"), one("NLH"), one("NPA"), one("HLN"), one("HLN"), one("HLN"), one("HLN"), one("HLN"), one("HLN"))
  .map(
    ([av, ac, at, pr, ui, vc, vi, va, sc, si, sa]) =>
      `CVSS:4.0/AV:${av}/AC:${ac}/AT:${at}/PR:${pr}/UI:${ui}/VC:${vc}/VI:${vi}/VA:${va}/SC:${sc}/SI:${si}/SA:${sa}`,
  );
const cvss = fc.option(fc.oneof(cvss31, cvss30, cvss40), { nil: null }).map((vector) => {
  if (!vector) return null;
  const rated = baseCvss(vector)!;
  return { ...rated, severity: severityOf(rated.score) };
});
const product = fc.record({
  vendor: text(40),
  product: text(40),
  purl: pick(PURLS),
  versions: fc
    .uniqueArray(
      fc.oneof(
        fc.record({ version, status: pick(VERSION_STATUSES) }),
        fc.record({ range: fc.record({ introduced: version, fixed: fc.option(version, { nil: null }) }), status: pick(VERSION_STATUSES) }),
      ),
      { minLength: 1, maxLength: 4, selector: (v) => ("version" in v ? v.version : `${v.range.introduced}-${v.range.fixed}`) },
    )
    // Something is affected in every advisory (the API refuses one where nothing is).
    .map((vs) => [{ ...vs[0]!, status: "affected" as const }, ...vs.slice(1)]),
});
const CWES = Object.keys(CWE_NAMES).map((n) => `CWE-${n}`);
const day = 86_400_000;
const advisory = fc
  .record({
    title: text(120),
    summary: text(300),
    description: fc.option(text(600), { nil: null }),
    affected: fc.array(product, { minLength: 1, maxLength: 3 }),
    remediation: fc.option(text(200), { nil: null }),
    references: fc.uniqueArray(
      fc.webSegment().map((s) => `https://ref.example/${encodeURIComponent(s)}`),
      { maxLength: 3 },
    ),
    cve_id: fc.option(
      fc.tuple(fc.integer({ min: 1999, max: 2030 }), fc.integer({ min: 1000, max: 9_999_999 })).map(([y, n]) => `CVE-${y}-${n}`),
      {
        nil: null,
      },
    ),
    cvss,
    cwe_ids: fc.uniqueArray(pick(CWES), { maxLength: 3 }),
    credits: fc.uniqueArray(fc.record({ name: text(40), type: pick(CREDIT_TYPES) }), {
      maxLength: 4,
      selector: (c) => `${c.name}|${c.type}`,
    }),
    notes: fc.array(text(80), { minLength: 1, maxLength: 4 }),
    start: fc.integer({ min: Date.parse("2020-01-01"), max: Date.parse("2026-01-01") }),
    withdrawn: fc.boolean(),
  })
  .map(({ notes, start, withdrawn, ...rest }): AdvisoryDocument => {
    const history = notes.map((note, i) => ({ number: i + 1, date: new Date(start + i * day).toISOString(), note }));
    const last = history.at(-1)!;
    return {
      id: "01936f5e-0000-7000-8000-000000000002",
      publisher: good.publisher,
      ...rest,
      state: withdrawn && history.length > 1 ? "withdrawn" : "published",
      revision: last.number,
      published_at: history[0]!.date,
      updated_at: last.date,
      withdrawn_at: withdrawn && history.length > 1 ? last.date : null,
      history,
    };
  });

const words = (type: CreditType) => type.toUpperCase();

describe("every generated advisory", () => {
  it("is valid CSAF, OSV and CVE, with the same credits, CVSS and CWE in each", async () => {
    await fc.assert(
      fc.asyncProperty(advisory, async (doc) => {
        const csaf: any = csafDocument(doc, links, GENERATOR);
        const osv: any = osvDocument(doc, links);
        const cve: any = await cveContainer(doc, links);
        expect(await csafProblems(csaf)).toEqual([]);
        expect(osvProblems(osv)).toEqual([]);
        expect(cveProblems(cve)).toEqual([]);

        const vuln = csaf.vulnerabilities[0];
        // Credits: the same names, in the same order, with the same roles.
        expect((vuln.acknowledgments ?? []).map((a: any) => [a.names[0], a.summary])).toEqual(doc.credits.map((c) => [c.name, c.type]));
        expect((osv.credits ?? []).map((c: any) => [c.name, c.type])).toEqual(doc.credits.map((c) => [c.name, words(c.type)]));
        expect((cve.credits ?? []).map((c: any) => [c.value, c.type])).toEqual(doc.credits.map((c) => [c.name, creditWords(c.type)]));
        // CVSS: the same vector and score (CSAF 2.0 carries 3.x only; a 4.0 vector is in its notes).
        const cveMetric = cve.metrics?.[0] && Object.values(cve.metrics[0]).find((m: any) => m?.vectorString);
        expect(cveMetric ? [(cveMetric as any).vectorString, (cveMetric as any).baseScore] : null).toEqual(
          doc.cvss && [doc.cvss.vector, doc.cvss.score],
        );
        expect(osv.severity?.[0].score ?? null).toBe(doc.cvss?.vector ?? null);
        expect(osv.database_specific.cvss_score ?? null).toBe(doc.cvss?.score ?? null);
        if (doc.cvss?.version === "4.0") expect(vuln.notes.some((n: any) => n.text.startsWith(doc.cvss!.vector))).toBe(true);
        else
          expect(vuln.scores?.[0].cvss_v3 ? [vuln.scores[0].cvss_v3.vectorString, vuln.scores[0].cvss_v3.baseScore] : null).toEqual(
            doc.cvss && [doc.cvss.vector, doc.cvss.score],
          );
        // CWE: the first in CSAF's one field (the others in a note), all in OSV and CVE.
        expect(vuln.cwe?.id ?? null).toBe(doc.cwe_ids[0] ?? null);
        for (const id of doc.cwe_ids.slice(1)) expect(vuln.notes.some((n: any) => n.text.includes(id))).toBe(true);
        expect(osv.database_specific.cwe_ids).toEqual(doc.cwe_ids);
        expect((cve.problemTypes?.[0].descriptions ?? []).map((d: any) => d.cweId)).toEqual(doc.cwe_ids);
        // The revision history, whole, in each.
        expect(csaf.document.tracking.revision_history.map((r: any) => r.summary)).toEqual(doc.history.map((r) => r.note));
        expect(osv.database_specific.revision_history).toEqual(doc.history);
        expect(cve.timeline.length).toBe(doc.history.length);
      }),
      { numRuns: 60 },
    );
  });
});

describe("an organization's CSAF provider files and Atom feed", () => {
  const publisher = { name: "Acme Corp", slug: "acme", websiteUrl: "https://acme.example" };
  const origin = "https://vdp.example.com";
  const now = "2026-11-28T10:00:00.000Z";
  const second: AdvisoryDocument = {
    ...good,
    id: "01936f5e-0000-7000-8000-000000000003",
    title: "R&D <script> leak",
    updated_at: "2026-11-25T10:00:00.000Z",
  };

  it("are valid under OASIS's provider-metadata and ROLIE schemas, and the Atom feed parses, each first shown to refuse a broken one", () => {
    const metadata = providerMetadata(publisher, [good, second], origin, now);
    expect(providerMetadataProblems(metadata)).toEqual([]);
    expect(providerMetadataProblems({ ...metadata, canonical_url: `${origin}/o/acme/csaf/metadata.json` }).length).toBeGreaterThan(0);
    expect(providerMetadataProblems({ ...metadata, publisher: { name: "Acme" } }).length).toBeGreaterThan(0);

    const feed = rolieFeed(publisher, [good, second], origin, now);
    expect(rolieFeedProblems(feed)).toEqual([]);
    expect(feed.feed.entry.map((e) => e.id)).toEqual([`vdp-${second.id}`, `vdp-${good.id}`]);
    const broken = structuredClone(feed);
    broken.feed.entry[0]!.content.src = "http://vdp.example.com/x.json";
    expect(rolieFeedProblems(broken).length).toBeGreaterThan(0);
    expect(rolieFeedProblems(rolieFeed(publisher, [], origin, now))).toEqual([]);

    expect(csafIndex([good, second])).toBe(`2026/vdp-${second.id}.json\n2026/vdp-${good.id}.json\n`);
    expect(csafChanges([good, second])).toBe(
      `"2026/vdp-${second.id}.json","2026-11-25T10:00:00.000Z"\n"2026/vdp-${good.id}.json","2026-11-20T10:00:00.000Z"\n`,
    );

    const atom = parseAtom(atomFeed(publisher, [good, second], origin, now));
    expect(atom.problems).toEqual([]);
    expect(atom.feed.entry.map((e: any) => e.title)).toEqual(["R&D <script> leak", good.title]);
    expect(atom.feed.entry[0].link[0]["@_href"]).toBe(`${origin}/a/${second.id}`);
    expect(parseAtom("<feed><entry></feed>").problems.length).toBeGreaterThan(0);
  });
});
