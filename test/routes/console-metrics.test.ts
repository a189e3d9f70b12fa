import { describe, expect, it } from "vitest";
import { get, patch } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { Browser, member, signedIn } from "../helpers/console";
import { brief, organization, policy, PUBLISHED, type TestOrganization, vuln } from "../helpers/factories";
import { duration, percent } from "../../src/templates/console-metrics";

// The console's metrics page says what GET /v1/metrics says (the same service), week by week too, and
// its CSV link downloads what the API answers as text/csv; at a moment the test sets.

const H = 3_600_000;
const T0 = Date.parse("2026-03-02T00:00:00.000Z"); // a Monday
const { at } = testClock(T0);

const move = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes } });

/** Five reports at T0 (targets 10 h and 100 h): two triaged, one informative, one resolved, one untouched; read at 50 h. */
async function morning() {
  const org = await organization();
  const p = await policy(org, { published_at: PUBLISHED, response_targets: { acknowledge_hours: 10, triage_hours: 100 } });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const [A, B, C, D] = [
    await vuln(org, b.id),
    await vuln(org, b.id),
    await vuln(org, b.id),
    await vuln(org, b.id, { severity: "critical" }),
  ];
  await vuln(org, b.id);
  at(T0 + 2 * H);
  await move(org, A.id, { triage_state: "triaged" });
  at(T0 + 5 * H);
  await move(org, B.id, { triage_state: "informative" });
  at(T0 + 20 * H);
  await move(org, C.id, { triage_state: "triaged" });
  at(T0 + 30 * H);
  await move(org, D.id, { triage_state: "triaged" });
  at(T0 + 40 * H);
  await move(org, D.id, { triage_state: "resolved" });
  at(T0 + 50 * H);
  return org;
}

const cells = (page: string, label: string) =>
  [...page.matchAll(new RegExp(`<td data-label="${label}">([^<]*)</td>`, "g"))].map((m) => m[1]);

describe("the console's metrics", () => {
  it("shows a viewer the figures of GET /v1/metrics, with charts whose numbers are in tables", async () => {
    const org = await morning();
    const viewer = await signedIn((await member(org, { role: "viewer" })).email);
    const res = await viewer.get("/console/metrics");
    expect(res.status).toBe(200);
    const api = (await get("/v1/metrics", org.key)).body.data.attributes;
    expect(api.reports_received).toBe(5);
    const dd = (term: string) => new RegExp(`<dt>${term}</dt><dd>([^<]*)</dd>`).exec(res.text)?.[1];
    expect(dd("Reports received")).toBe(String(api.reports_received));
    expect(dd("Valid reports")).toBe(String(api.valid_reports));
    expect(dd("Valid and still open")).toBe(String(api.valid_open));
    expect(dd("Valid, open for more than 90 days")).toBe(String(api.valid_open_over_90_days));
    expect(dd("Median time to first response")).toBe(duration(api.median_seconds_to_first_response));
    expect(dd("Median time to triage")).toBe(duration(api.median_seconds_to_triage));
    expect(dd("Median time to resolve")).toBe(duration(api.median_seconds_to_resolve));
    expect(cells(res.text, "Met on time")).toEqual(Object.values(api.deadlines_met_on_time).map((s) => percent(s as number | null)));
    expect(cells(res.text, "Met on time").slice(0, 2)).toEqual(["40 %", "100 %"]);
    // Week by week: every week of the 90 days, this one holding the five reports by outcome.
    expect(cells(res.text, "Week of")).toHaveLength(14);
    expect(cells(res.text, "Week of").at(-1)).toBe("2026-03-02");
    expect(["Awaiting triage", "Valid", "Duplicate", "Not valid", "All"].map((o) => cells(res.text, o).at(-1))).toEqual([
      "1",
      "3",
      "0",
      "1",
      "5",
    ]);
    expect(
      cells(res.text, "All")
        .slice(0, -1)
        .every((n) => n === "0"),
    ).toBe(true);
    // The times against the targets the reports were held to.
    expect(cells(res.text, "Target")).toEqual(["10 h", "100 h"]);
    expect(cells(res.text, "Within target")).toEqual(["no", "yes"]);
    // Three charts, each an image named by its title and description.
    expect(res.text.match(/<svg class="chart" role="img" aria-labelledby="[a-z-]+-title [a-z-]+-desc"/g)).toHaveLength(3);
    expect(res.text).not.toMatch(/ style="/);
  });

  it("downloads the CSV GET /v1/metrics answers with Accept: text/csv", async () => {
    const org = await morning();
    const browser = await signedIn((await member(org, { role: "triager" })).email);
    const page = await browser.get("/console/metrics");
    expect(page.text).toContain('href="/console/metrics.csv"');
    const csv = await browser.get("/console/metrics.csv");
    const api = await get("/v1/metrics", org.key, { headers: { Accept: "text/csv" } });
    expect(csv.status).toBe(200);
    expect(csv.text).toBe(api.text);
    expect(csv.headers.get("Content-Disposition")).toBe(api.headers.get("Content-Disposition"));
    expect(csv.headers.get("Content-Type")).toBe(api.headers.get("Content-Type"));
    // Signed out, the figures are not there.
    const nobody = await new Browser().get("/console/metrics.csv");
    expect(nobody.status).toBe(303);
    expect(nobody.headers.get("Location")).toBe("/console/sign-in");
  });
});
