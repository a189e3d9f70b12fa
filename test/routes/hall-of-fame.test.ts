import { describe, expect, it } from "vitest";
import { api, browse, patch, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED } from "../helpers/factories";
import { asReporter, submitReport } from "../helpers/reporter";

// A policy's hall of fame: the consenting reporters of the reports its organization resolved or
// disclosed in a published advisory, newest first, with the month and severity of each and nothing else.

const consent = (token: string, name: string, yes = true) =>
  asReporter("PATCH", "/v1/p/report", token, {
    body: { data: { type: "report", attributes: { credit_name: name, credit_consent: yes } } },
  });

describe("the hall of fame", () => {
  it("lists the consenting reporters of resolved or disclosed reports, and no one else", async () => {
    const org = await organization({ name: "Acme" });
    const p = await policy(org, { name: "Acme VDP", hall_of_fame: true, published_at: PUBLISHED });
    const code = p.attributes.shortcode as string;
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    const report = () => submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
    const [resolved, disclosed, open, shy, drafted] = [await report(), await report(), await report(), await report(), await report()];
    for (const [r, name] of [
      [resolved, "Ana"],
      [disclosed, "Ben"],
      [open, "Cy"],
      [drafted, "Di"],
    ] as const)
      expect((await consent(r.token, name)).status).toBe(200);
    await consent(shy.token, "Ed", false);
    const close = (id: string) =>
      patch(`/v1/vulns/${id}`, org.key, { data: { type: "vuln", id, attributes: { triage_state: "resolved", severity: "high" } } });
    expect((await close(resolved.id)).status).toBe(200);
    expect((await close(shy.id)).status).toBe(200);
    const advisory = (id: string, state: string) =>
      post("/v1/advisories", org.key, {
        data: {
          type: "advisory",
          attributes: {
            title: "T",
            summary: "S",
            state,
            affected: [{ vendor: "Acme", product: "W", versions: [{ version: "1", status: "affected" }] }],
          },
          relationships: { vulns: { data: [{ type: "vuln", id }] } },
        },
      });
    expect((await advisory(disclosed.id, "published")).status).toBe(201);
    expect((await advisory(drafted.id, "draft")).status).toBe(201);

    const res = await api("GET", `/v1/p/policies/${code.toLowerCase()}/hall_of_fame`);
    expect(res.status).toBe(200);
    const month = new Date().toISOString().slice(0, 7);
    expect(res.body.data).toMatchObject({
      type: "hall_of_fame",
      id: code,
      attributes: { policy_name: "Acme VDP", organization_name: "Acme" },
    });
    // Newest first: Ben's report came after Ana's. Nothing but the name, the month and the severity.
    expect(res.body.data.attributes.entries).toEqual([
      { name: "Ben", month, severity: null },
      { name: "Ana", month, severity: "high" },
    ]);
    const page = await browse("GET", `/h/${code}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<td>Ben<\/td>[\s\S]*<td>Ana<\/td><td[^>]*>[A-Z][a-z]+ \d{4}<\/td><td[^>]*>High<\/td>/);
    expect(page.text).not.toContain("Ed");
    // Consent withdrawn: gone at once (the hall is read afresh).
    await consent(resolved.token, "Ana", false);
    expect(
      (await api("GET", `/v1/p/policies/${code}/hall_of_fame`)).body.data.attributes.entries.map((e: { name: string }) => e.name),
    ).toEqual(["Ben"]);
    // The policy page links it, and lists the published advisory (not the draft), evicted by each publication.
    const policyPage = (await browse("GET", `/p/${code}`)).text;
    expect(policyPage).toContain(`<a href="/h/${code}">`);
    expect(policyPage.match(/<a href="\/a\//g)?.length).toBe(1);
    expect((await advisory(open.id, "published")).status).toBe(201);
    expect((await browse("GET", `/p/${code}`)).text.match(/<a href="\/a\//g)?.length).toBe(2);
    expect((await browse("GET", `/o/${org.slug}/security.txt`)).text).toContain(`Acknowledgments: https://api.vdp.test/h/${code}\n`);
    // Cy was credited only in that advisory: withdrawn, it credits nobody, and Cy leaves the hall.
    const names = async () =>
      (await api("GET", `/v1/p/policies/${code}/hall_of_fame`)).body.data.attributes.entries.map((e: { name: string }) => e.name);
    expect(await names()).toEqual(["Cy", "Ben"]);
    const published = (await api("GET", `/v1/advisories?page[size]=100`, { key: org.key })).body.data.find(
      (a: { attributes: { state: string }; relationships: { vulns: { data: { id: string }[] } } }) =>
        a.relationships.vulns.data.some((v) => v.id === open.id),
    );
    const withdrawn = await patch(`/v1/advisories/${published.id}`, org.key, {
      data: { type: "advisory", id: published.id, attributes: { state: "withdrawn", revision_note: "Not a vulnerability after all." } },
    });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(await names()).toEqual(["Ben"]);
  });

  it("is a 404 for a policy that keeps none, a draft or an unknown code", async () => {
    const org = await organization();
    const none = await policy(org, { hall_of_fame: false, published_at: PUBLISHED });
    const draft = await policy(org, { hall_of_fame: true });
    for (const code of [none.attributes.shortcode, draft.attributes.shortcode, "ZZZZ-ZZZZ"]) {
      expect([code, (await api("GET", `/v1/p/policies/${code}/hall_of_fame`)).status]).toEqual([code, 404]);
      expect([code, (await browse("GET", `/h/${code}`)).status]).toEqual([code, 404]);
    }
    expect((await browse("GET", `/o/${org.slug}/security.txt`)).text).not.toContain("Acknowledgments");
  });
});
