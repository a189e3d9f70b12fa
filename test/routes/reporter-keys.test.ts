import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { brief, organization, PUBLISHED, type TestOrganization, vuln } from "../helpers/factories";
import { newReporterKey, signedVuln } from "../helpers/reporter-keys";

// A reporter key's record with an organization, as a triager reads it on the vuln (GET /v1/vulns/{id}
// and the list): the key's reports and how they ended, moved by the triggers of migration 0041 in the
// statement that triages a report, and one record per organization, so a key's history with one
// organization is never shown to another. The record is what a brief's verified lane reads: a key
// enters it at N valid reports and leaves it when a triage takes one back.

const triage = async (org: TestOrganization, id: string, state: string, originalId?: string) => {
  const relationships = originalId ? { duplicate_of: { data: { type: "vuln", id: originalId } } } : undefined;
  const res = await api("PATCH", `/v1/vulns/${id}`, {
    key: org.key,
    body: { data: { type: "vuln", id, attributes: { triage_state: state }, relationships } },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.attributes.reporter_key;
};
const keyOf = async (org: TestOrganization, id: string) =>
  (await api("GET", `/v1/vulns/${id}`, { key: org.key })).body.data.attributes.reporter_key;
const none = { reports: 0, valid: 0, spam: 0, not_applicable: 0, duplicate: 0 };

async function organizationWithBrief(attributes: Record<string, unknown> = {}) {
  const org = await organization();
  const b = await brief(org, { published_at: PUBLISHED, ...attributes });
  return { org, briefId: b.id as string, shortcode: b.attributes.shortcode as string };
}

describe("a reporter key's record", () => {
  it("counts the key's reports and moves with each triage", async () => {
    const { org, briefId, shortcode } = await organizationWithBrief();
    const key = await newReporterKey();
    const [a, b, c] = [(await signedVuln(shortcode, key)).id, (await signedVuln(shortcode, key)).id, (await signedVuln(shortcode, key)).id];
    const unsigned = await vuln(org, briefId);
    expect(unsigned.attributes.reporter_key).toBeNull();
    expect(await keyOf(org, a)).toEqual({ thumbprint: key.thumbprint, record: { ...none, reports: 3 } });
    expect(await triage(org, a, "triaged")).toEqual({ thumbprint: key.thumbprint, record: { ...none, reports: 3, valid: 1 } });
    expect(await keyOf(org, a)).toEqual({ thumbprint: key.thumbprint, record: { ...none, reports: 3, valid: 1 } });
    await triage(org, a, "resolved");
    await triage(org, b, "spam");
    await triage(org, c, "duplicate", unsigned.id);
    expect((await keyOf(org, c)).record).toEqual({ reports: 3, valid: 1, spam: 1, not_applicable: 0, duplicate: 1 });
    // Out of spam and into not applicable, and a valid one reopened: each move takes its old outcome back.
    await triage(org, b, "not_applicable");
    await triage(org, a, "new");
    expect((await keyOf(org, b)).record).toEqual({ reports: 3, valid: 0, spam: 0, not_applicable: 1, duplicate: 1 });
    // Triaging an unsigned report moves no record.
    await triage(org, unsigned.id, "triaged");
    expect((await keyOf(org, a)).record.valid).toBe(0);

    // The list reads the same record on every signed row, and filters by the key.
    const list = await api("GET", `/v1/vulns?q[reporter_key_eq]=${key.thumbprint}`, { key: org.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: { id: string }) => v.id).sort()).toEqual([a, b, c].sort());
    for (const v of list.body.data) expect(v.attributes.reporter_key.record).toMatchObject({ reports: 3, not_applicable: 1 });

    // Deleting a signed report takes it out of the record.
    expect((await api("DELETE", `/v1/vulns/${c}`, { key: org.key })).status).toBe(204);
    expect((await keyOf(org, a)).record).toEqual({ reports: 2, valid: 0, spam: 0, not_applicable: 1, duplicate: 0 });
  });

  it("is one record per organization: a key's history with one is never counted or shown by another", async () => {
    const [one, two] = [await organizationWithBrief(), await organizationWithBrief()];
    const key = await newReporterKey();
    const mine = (await signedVuln(one.shortcode, key)).id;
    await signedVuln(one.shortcode, key);
    const theirs = (await signedVuln(two.shortcode, key)).id;
    await triage(one.org, mine, "triaged");
    expect((await keyOf(one.org, mine)).record).toEqual({ ...none, reports: 2, valid: 1 });
    expect((await keyOf(two.org, theirs)).record).toEqual({ ...none, reports: 1 });
    const rows = await env.DB.prepare(
      "SELECT organization_id, reports, valid FROM reporter_key_records WHERE thumbprint = ? ORDER BY reports",
    )
      .bind(key.thumbprint)
      .all();
    expect(rows.results).toEqual([
      { organization_id: two.org.id, reports: 1, valid: 0 },
      { organization_id: one.org.id, reports: 2, valid: 1 },
    ]);
    // Each lists only its own reports of the key, and cannot read the other's.
    const listed = await api("GET", `/v1/vulns?q[reporter_key_eq]=${key.thumbprint}`, { key: two.org.key });
    expect(listed.body.data.map((v: { id: string }) => v.id)).toEqual([theirs]);
    expect((await api("GET", `/v1/vulns/${mine}`, { key: two.org.key })).status).toBe(404);
  });

  it("opens a brief's verified lane at N valid reports with that organization, and closes it when a triage takes one back", async () => {
    const { org, shortcode } = await organizationWithBrief({ proof_of_work: "on", verified_lane_min_valid: 2 });
    // The same key's valid reports with another organization count for nothing here.
    const elsewhere = await organizationWithBrief();
    const key = await newReporterKey();
    const gateOf = async (id: string) => (await api("GET", `/v1/vulns/${id}`, { key: org.key })).body.data.attributes.gate;
    const away = (await signedVuln(elsewhere.shortcode, key)).id;
    await triage(elsewhere.org, away, "triaged");
    await triage(elsewhere.org, (await signedVuln(elsewhere.shortcode, key)).id, "resolved");
    const first = (await signedVuln(shortcode, key)).id;
    expect(await gateOf(first)).toBe("unverified");
    await triage(org, first, "triaged");
    const second = (await signedVuln(shortcode, key)).id;
    // One valid report: one short of the lane.
    expect(await gateOf(second)).toBe("unverified");
    await triage(org, second, "resolved");
    const third = (await signedVuln(shortcode, key)).id;
    expect(await gateOf(third)).toBe("verified");
    expect((await keyOf(org, third)).record).toMatchObject({ reports: 3, valid: 2 });
    // A report found to be spam after all: the key is back to one valid report, out of the lane.
    await triage(org, second, "spam");
    expect(await gateOf((await signedVuln(shortcode, key)).id)).toBe("unverified");
  });
});
