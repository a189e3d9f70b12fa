import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { get, post } from "../helpers/api";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { waitFor } from "../helpers/wait";
import { measure, parseCorpus } from "../fixtures/duplicates/evaluate";
import corpus from "../fixtures/duplicates/reports.jsonl?raw";

// The near-duplicate corpus (test/fixtures/duplicates/README.md) through the whole path: the 320 reports
// sent to one organization in the corpus's order, the real queue's consumer left to run the intake, and
// the possible duplicates read back through the API. The targets: precision >= 0.9 and recall >= 0.7, on
// all reports and on the holdout (whose reports the weights were never tuned on).

const reports = parseCorpus(corpus);

let org: TestOrganization;
const corpusIdOf = new Map<string, string>();
const vulnIdOf = new Map<string, string>();

beforeAll(async () => {
  org = await organization();
  const b = await brief(org, { published_at: PUBLISHED });
  for (const r of reports) {
    const res = await post(
      "/v1/vulns",
      org.key,
      {
        data: {
          type: "vuln",
          attributes: { title: r.title, description: r.description, domains: r.domains },
          relationships: { brief: { data: { type: "brief", id: b.id } } },
        },
      },
      { realQueue: true },
    );
    if (res.status !== 201) throw new Error(`${r.id}: ${res.status} ${res.text}`);
    corpusIdOf.set(res.body.data.id, r.id);
    vulnIdOf.set(r.id, res.body.data.id);
  }
  // Until the consumer has run every report's intake to the end (its Vuln::Created processed).
  await waitFor(
    "the intake of the 320 reports",
    () =>
      env.DB.prepare(
        `SELECT count(*) AS n FROM events e JOIN vulns v ON v.id = e.vuln_id
         WHERE v.organization_id = ? AND e.type = 'Vuln::Created' AND e.processed_at IS NOT NULL`,
      )
        .bind(org.id)
        .first<{ n: number }>(),
    (row) => row?.n === reports.length,
    { timeout: 60_000 },
  );
}, 120_000);

/** The flags as the API shows them: every vuln with a possible_duplicate_of, by corpus id. */
async function flags(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let page = 1; ; page++) {
    const res = await get(`/v1/vulns?q[possible_duplicate_eq]=true&page[size]=100&page[number]=${page}`, org.key);
    expect(res.status).toBe(200);
    for (const v of res.body.data) found.set(corpusIdOf.get(v.id)!, corpusIdOf.get(v.relationships.possible_duplicate_of.data.id)!);
    if (!res.body.links.next) return found;
  }
}

describe("the duplicate corpus through the API", () => {
  it("flags pairs with precision >= 0.9 and recall >= 0.7, on all reports and on the holdout", async () => {
    const flagged = await flags();
    const all = measure(reports, flagged);
    const holdout = measure(reports, flagged, "holdout");
    console.log(JSON.stringify({ message: "duplicate corpus", all, holdout }));
    for (const m of [all, holdout]) {
      expect(m.precision).toBeGreaterThanOrEqual(0.9);
      expect(m.recall).toBeGreaterThanOrEqual(0.7);
    }
  });

  it("gives every flagged report its partner among its similar ones", async () => {
    const [later, earlier] = [...(await flags())][0]!;
    const similar = await get(`/v1/vulns/${vulnIdOf.get(later)}/similar`, org.key);
    expect(similar.body.data.map((s: { id: string }) => s.id)).toContain(vulnIdOf.get(earlier));
  });
});
