import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AdvisoryRow, CREDIT_TYPES } from "../../src/db/schema";
import { advisoryDocument, advisoryLinks, type Credit, VERSION_STATUSES } from "../../src/lib/advisory";
import { csafDocument } from "../../src/lib/advisory-csaf";
import { cveContainer } from "../../src/lib/advisory-cve";
import { osvDocument } from "../../src/lib/advisory-osv";
import { CWE_NAMES } from "../../src/lib/cwe-names";
import { CreateAdvisoryInput, UpdateAdvisoryInput } from "../../src/routes/v1/advisories/schema";
import { Name } from "../../src/routes/v1/fields";
import { CreateOrganizationInput } from "../../src/routes/v1/organizations/schema";
import { csafProblems, cveProblems, osvProblems } from "./advisory-validators";

// Whatever the API accepts, it can publish: advisories generated from hostile text (control characters,
// line and paragraph separators, bidi overrides, quotes, backslashes, markup, words that read as a
// version range, URLs a browser would fix up, lengths at the limits), kept only where the API's own
// request schemas take them, published by the function a revision freezes with, and each rendering read
// by its independent validator. A document the API took and a validator refuses is a defect of the write
// side: a publication must never emit an invalid document.

const VULN = "01936f5e-0000-7000-8000-0000000000b1";
const ORG = "01936f5e-0000-7000-8000-0000000000aa";
const ADVISORY = "01936f5e-0000-7000-8000-000000000009";

// Text a person may well write: quotes, backslashes, markup, percent signs, words that read as a range,
// letters of any script.
const PRINTABLE = [
  ..."aZ09-_.,:;!?*=",
  " ",
  "  ",
  "\u00a0",
  "\u200f",
  "\ufeff",
  '"',
  "'",
  "\\",
  "/",
  "<",
  ">",
  "&",
  "|",
  "%",
  "%2",
  "%zz",
  "%20",
  "#",
  "?",
  "é",
  "漢",
  "😀",
  "<script>",
  "prior",
  "before",
  "all",
  "versions",
  "later",
  "after",
  "earlier",
  "<=",
  ">=",
  "1.0",
  "2.0.1",
  "v3",
];
// And what breaks a line, or reorders it.
const BREAKING = [
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\u007f",
  "\u0085",
  "\u009b",
  "\u2028",
  "\u2029",
  "\u202e",
  "\u2066",
];
const tokens = (list: string[], max: number) => fc.array(fc.constantFrom(...list), { minLength: 1, maxLength: max }).map((t) => t.join(""));
/** Mostly text as written, now and then with a break in it. */
const words = (max: number) =>
  fc.oneof({ weight: 15, arbitrary: tokens(PRINTABLE, max) }, { weight: 1, arbitrary: tokens([...PRINTABLE, ...BREAKING], max) });
/** Prose: any of it, short or long (near a member's limit). */
const text = fc.oneof(
  { weight: 8, arbitrary: tokens([...PRINTABLE, ...BREAKING], 12) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(tokens([...PRINTABLE, ...BREAKING], 4), fc.integer({ min: 100, max: 12_000 }))
      .map(([w, n]) => `${w}${"word ".repeat(n / 5)}`.slice(0, n)),
  },
);
const version = fc.oneof(
  { weight: 30, arbitrary: fc.tuple(fc.nat(20), fc.nat(20)).map(([a, b]) => `${a}.${b}`) },
  { weight: 2, arbitrary: words(5) },
  fc.constantFrom(
    "prior to 2.0",
    "< 2.0",
    "<=1.4",
    "2.0 and later",
    "all versions",
    "before 1.0",
    "1.0 - 2.0",
    "1.x",
    "*",
    "v1|2",
    "=1.0",
    "v1.2.3",
    "v2",
  ),
);
const url = fc.oneof(
  { weight: 12, arbitrary: fc.webUrl({ validSchemes: ["https"], withQueryParameters: true, withFragments: true }) },
  fc
    .tuple(fc.constantFrom("https://", "HTTPS://", "https:", "http://", "https:\\\\"), fc.domain(), words(4))
    .map(([s, d, w]) => `${s}${d}/${w}`),
  fc.constantFrom(
    "https://ref.example/a b",
    'https://ref.example/"x"',
    "https://ref.example\\evil.example/",
    "https://ref.example/<x>",
    "https://bücher.example/",
    "https://ref.example/%zz",
    "https://ref.example/?q=a|b",
    "https://ref.example/#a#b",
    "https://[::1]/",
    "https://user:pass@ref.example:8443/p",
  ),
);
const PURLS = [
  null,
  "pkg:npm/%40acme/widget",
  "pkg:pypi/acme-widget",
  "pkg:maven/com.acme/widget",
  "pkg:generic/acme/wid get",
  "pkg:generic/acme/widget?arch=x86 64#sub/pa th",
  "pkg:NPM/Widget@1.0",
  "pkg:golang/github.com/acme/widget",
];
const entry = fc.oneof(
  fc.record({ version, status: fc.constantFrom(...VERSION_STATUSES) }),
  fc.record({
    range: fc.record({ introduced: version, fixed: fc.option(version, { nil: null }) }),
    status: fc.constantFrom(...VERSION_STATUSES),
  }),
);
const CWES = Object.keys(CWE_NAMES).map((n) => `CWE-${n}`);

const attributes = fc.record(
  {
    title: words(10),
    summary: text,
    description: fc.option(text, { nil: null }),
    remediation: fc.option(text, { nil: null }),
    affected: fc.array(
      fc.record({
        vendor: words(6),
        product: words(6),
        purl: fc.constantFrom(...PURLS),
        versions: fc.array(entry, { minLength: 1, maxLength: 4 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    references: fc.array(url, { maxLength: 3 }),
    cve_id: fc.option(fc.constantFrom("CVE-2026-12345", "CVE-1999-0001"), { nil: null }),
    cvss_vector: fc.option(
      fc.constantFrom("CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"),
      {
        nil: null,
      },
    ),
    cwe_ids: fc.oneof(
      { weight: 9, arbitrary: fc.uniqueArray(fc.constantFrom(...CWES), { maxLength: 3 }) },
      fc.array(fc.constantFrom(...CWES.slice(0, 3)), { maxLength: 3 }),
    ),
    credits: fc.array(
      fc.oneof(
        fc.record({ name: words(5), type: fc.constantFrom(...CREDIT_TYPES) }),
        fc.record({ reporter_of: fc.constant(VULN), type: fc.constantFrom(...CREDIT_TYPES) }),
      ),
      { maxLength: 3 },
    ),
    revision_note: words(6),
  },
  { requiredKeys: ["title", "summary", "affected"] },
);

const publisher = fc.record({
  name: words(6),
  slug: fc.oneof(fc.constantFrom("a", "ab", "acme", "x".repeat(64)), fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/)),
  website_url: fc.option(url, { nil: null, freq: 2 }),
});

const scenario = fc.record({ attributes, publisher, reporterName: words(5), changes: fc.array(words(6), { maxLength: 2 }) });

/** The scenario as the API takes it, or null where any of its requests would be refused. */
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function accepted({ attributes, publisher, reporterName, changes }: Scenario) {
  const org = CreateOrganizationInput.safeParse({ data: { type: "organization", attributes: publisher } });
  const created = CreateAdvisoryInput.safeParse({
    data: {
      type: "advisory",
      attributes: { ...attributes, state: "published" },
      relationships: { vulns: { data: [{ type: "vuln", id: VULN }] } },
    },
  });
  // The reporter's chosen name, as the reporter's API takes it (credit_name).
  const credited = Name.safeParse(reporterName);
  // Later changes of the published advisory, each with its reason.
  const notes = changes.map((note) =>
    UpdateAdvisoryInput.safeParse({ data: { type: "advisory", id: ADVISORY, attributes: { revision_note: note } } }),
  );
  if (!org.success || !created.success || !credited.success || notes.some((n) => !n.success)) return null;
  const a = created.data.data.attributes;
  // What publishing asks beyond the schema (the service's assertPublishable).
  if (!a.summary || !a.affected.some((p) => p.versions.some((v) => v.status === "affected"))) return null;
  const o = org.data.data.attributes;
  const credits: Credit[] = (a.credits ?? []).map((c) => ("name" in c ? c : { name: credited.data, type: c.type }));
  const day = 86_400_000;
  const history = [a.revision_note ?? "Initial publication", ...notes.map((n) => n.data!.data.attributes.revision_note!)].map(
    (note, i) => ({
      number: i + 1,
      date: new Date(Date.parse("2026-11-01T10:00:00.000Z") + i * day).toISOString(),
      note,
    }),
  );
  const row: AdvisoryRow = {
    id: ADVISORY,
    organizationId: ORG,
    state: "published",
    revision: history.length,
    title: a.title,
    summary: a.summary,
    description: a.description ?? null,
    affected: a.affected,
    remediation: a.remediation ?? null,
    references: a.references ?? [],
    cveId: a.cve_id ?? null,
    cvssVector: a.cvss_vector?.vector ?? null,
    cweIds: a.cwe_ids ?? [],
    credits: a.credits ?? [],
    publishedAt: history[0]!.date,
    withdrawnAt: null,
    createdAt: history[0]!.date,
    updatedAt: history.at(-1)!.date,
  };
  const resolved = credits.filter((c, i) => credits.findIndex((d) => d.name === c.name && d.type === c.type) === i);
  return advisoryDocument(row, { id: ORG, name: o.name, slug: o.slug, websiteUrl: o.website_url ?? null }, resolved, history);
}

const links = advisoryLinks("https://vdp.example.com", ADVISORY);

describe("an advisory the API accepts, however hostile its text", () => {
  it("renders valid CSAF (strict schema and every mandatory test), OSV and CVE", async () => {
    let published = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const doc = accepted(s);
        if (!doc) return;
        published++;
        expect(await csafProblems(csafDocument(doc, links, "vdp-api"))).toEqual([]);
        expect(osvProblems(osvDocument(doc, links))).toEqual([]);
        expect(cveProblems(await cveContainer(doc, links))).toEqual([]);
      }),
      { numRuns: 1000, seed: 20261128 },
    );
    // The generator reaches publication often enough to mean something.
    expect(published).toBeGreaterThan(40);
  });
});
