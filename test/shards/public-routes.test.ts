import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, browse, get, patch, post } from "../helpers/api";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { fakeDns } from "../helpers/dns";
import { asReporter, nextIp, submitReport } from "../helpers/reporter";
import { shardOf } from "../helpers/shards";

// Every public route and page of a sharded deployment finds its organization's shard from what its path
// carries. Two organizations in different shards hold look-alike data (the same titles, the same shapes):
// each route must answer with its own organization's, from either shard, and an unknown name as before.

interface Program {
  org: TestOrganization;
  name: string;
  policyCode: string;
  briefCode: string;
  advisoryId: string;
  token: string;
  host: string;
}

let dns: ReturnType<typeof fakeDns>;
let programs: Program[];

async function program(name: string): Promise<Program> {
  const org = await organization({ name });
  const host = `security-${org.slug}.example.org`;
  const p = await policy(org, { name: `${name} VDP`, hall_of_fame: true, custom_domain: host, published_at: PUBLISHED });
  const { custom_domain_verification: v } = (await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes;
  dns.publish(v.record_name, v.record_value);
  expect((await post(`/v1/policies/${p.id}/verify_custom_domain`, org.key, undefined)).status).toBe(200);
  const b = await brief(org, { published_at: PUBLISHED, name: `${name} web` }, p.id);
  const report = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
  const credited = await asReporter("PATCH", "/v1/p/report", report.token, {
    body: { data: { type: "report", attributes: { credit_name: `Finder of ${name}`, credit_consent: true } } },
  });
  expect(credited.status).toBe(200);
  const advisory = await post("/v1/advisories", org.key, {
    data: {
      type: "advisory",
      attributes: {
        title: "Stored XSS in the profile name",
        summary: `Fixed by ${name}`,
        state: "published",
        affected: [{ vendor: name, product: "Web", versions: [{ version: "1", status: "affected" }] }],
      },
      relationships: { vulns: { data: [{ type: "vuln", id: report.id }] } },
    },
  });
  expect(advisory.status).toBe(201);
  return {
    org,
    name,
    policyCode: p.attributes.shortcode,
    briefCode: b.attributes.shortcode,
    advisoryId: advisory.body.data.id,
    token: report.token,
    host,
  };
}

beforeAll(async () => {
  dns = fakeDns();
  programs = [await program("Acme"), await program("Apex")];
});
afterAll(() => dns.restore());

// Codes as a person may type them: lower case, and I, L and O for 1, 1 and 0 (none here: the codes have none).
const typed = (code: string) => code.toLowerCase();

describe("a sharded deployment's public routes", () => {
  it("places the two programs in different shards", async () => {
    expect(await shardOf(programs[0]!.org.id)).not.toBe(await shardOf(programs[1]!.org.id));
  });

  it("reads a policy's versions, hall of fame and pages by its shortcode, from either shard", async () => {
    for (const p of programs) {
      for (const code of [p.policyCode, typed(p.policyCode)]) {
        const version = await api("GET", `/v1/p/policies/${code}/versions/1`);
        expect([code, version.status, version.body.data.attributes.terms.name]).toEqual([code, 200, `${p.name} VDP`]);
        const hall = await api("GET", `/v1/p/policies/${code}/hall_of_fame`);
        expect(hall.status).toBe(200);
        expect(hall.body.data.attributes.entries.map((e: { name: string }) => e.name)).toEqual([`Finder of ${p.name}`]);
        const page = await browse("GET", `/p/${code}`);
        expect([page.status, page.text.includes(`${p.name} VDP`)]).toEqual([200, true]);
        const fame = await browse("GET", `/h/${code}`);
        expect([fame.status, fame.text.includes(`Finder of ${p.name}`)]).toEqual([200, true]);
      }
    }
  });

  it("reads a brief and its page, and takes a report through either, by its shortcode", async () => {
    for (const p of programs) {
      for (const code of [p.briefCode, typed(p.briefCode)]) {
        const read = await api("GET", `/v1/p/briefs/${code}`);
        expect([read.status, read.body.data.attributes.name]).toEqual([200, `${p.name} web`]);
        const page = await browse("GET", `/b/${code}`);
        expect([page.status, page.text.includes(`${p.name} web`)]).toEqual([200, true]);
        // Found (a wrong shard would answer 404): this brief asks for no proof of work.
        expect((await api("GET", `/v1/p/briefs/${code}/challenge`)).status).toBe(409);
      }
      // The form: the report lands in the brief's shard, and its page opens there.
      const fd = new FormData();
      fd.set("title", "SQL injection in search");
      fd.set("description", "GET /search?q=' OR 1=1-- lists every order.");
      fd.set("contact_email", "r@example.org");
      fd.append("files", new File([], ""));
      const sent = await browse("POST", `/b/${typed(p.briefCode)}`, { body: fd, headers: { "CF-Connecting-IP": nextIp() } });
      expect(sent.status, sent.text).toBe(303);
      const reportPage = await browse("GET", sent.headers.get("Location")!);
      expect([reportPage.status, reportPage.text.includes(`sent to ${p.name}`)]).toEqual([200, true]);
    }
  });

  it("takes a report with an Idempotency-Key through the brief's shard, and replays it", async () => {
    for (const p of programs) {
      const send = () =>
        api("POST", `/v1/p/briefs/${p.briefCode}/vulns`, {
          body: { data: { type: "vuln", attributes: { title: "Stored XSS in the profile name", description: "Twice sent." } } },
          contentType: "application/json",
          headers: { "CF-Connecting-IP": "198.51.100.7", "Idempotency-Key": `twice-${p.org.slug}` },
        });
      const first = await send();
      expect(first.status, first.text).toBe(201);
      const again = await send();
      expect([again.status, again.headers.get("Idempotent-Replayed"), again.body.data.id]).toEqual([201, "true", first.body.data.id]);
    }
  });

  it("opens a reporter's report by its token, through the API and the page, from either shard", async () => {
    for (const p of programs) {
      const read = await asReporter("GET", "/v1/p/report", p.token);
      expect([read.status, read.body.data.attributes.credit_name]).toEqual([200, `Finder of ${p.name}`]);
      const page = await browse("GET", `/r/${p.token}`);
      expect([page.status, page.text.includes(p.name)]).toEqual([200, true]);
      const replied = await asReporter("POST", "/v1/p/report/comments", p.token, {
        body: { data: { type: "comment", attributes: { body: `More for ${p.name}` } } },
        headers: { "Idempotency-Key": `reply-${p.org.slug}` },
      });
      expect(replied.status, replied.text).toBe(201);
    }
  });

  it("reads a published advisory, its renderings and its page by its id, from either shard", async () => {
    for (const p of programs) {
      for (const id of [p.advisoryId, p.advisoryId.toUpperCase()]) {
        const read = await api("GET", `/v1/p/advisories/${id}`);
        expect([read.status, read.body.data.attributes.summary]).toEqual([200, `Fixed by ${p.name}`]);
        expect((await api("GET", `/v1/p/advisories/${id}/csaf`)).status).toBe(200);
        const page = await browse("GET", `/a/${id}`);
        expect([page.status, page.text.includes(`Fixed by ${p.name}`)]).toEqual([200, true]);
      }
    }
  });

  it("serves an organization's files by its slug, and its security.txt on its verified custom domain", async () => {
    for (const p of programs) {
      const txt = await api("GET", `/o/${p.org.slug}/security.txt`);
      expect([txt.status, txt.text.includes(`/p/${p.policyCode}`)]).toEqual([200, true]);
      const atom = await api("GET", `/o/${p.org.slug}/advisories.atom`);
      expect([atom.status, atom.text.includes(`Fixed by ${p.name}`)]).toEqual([200, true]);
      const year = new Date().getUTCFullYear();
      const doc = await api("GET", `/o/${p.org.slug}/csaf/white/${year}/vdp-${p.advisoryId}.json`);
      expect(doc.status).toBe(200);
      const own = await api("GET", "/.well-known/security.txt", { origin: `https://${p.host.toUpperCase()}` });
      expect([own.status, own.text.includes(`/p/${p.policyCode}`)]).toEqual([200, true]);
    }
  });

  it("answers unknown names as before: 404 (401 for an unknown token), whichever shard it would be", async () => {
    const code = "ZZZZ-ZZZZ";
    const id = "01890000-0000-7000-8000-000000000000";
    for (const path of [
      `/v1/p/policies/${code}/versions/1`,
      `/v1/p/policies/${code}/hall_of_fame`,
      `/v1/p/briefs/${code}`,
      `/v1/p/advisories/${id}`,
      `/v1/p/advisories/${id}/osv`,
      "/o/no-such-organization/security.txt",
      "/o/no-such-organization/advisories.atom",
    ])
      expect([path, (await api("GET", path)).status]).toEqual([path, 404]);
    for (const path of [`/p/${code}`, `/h/${code}`, `/b/${code}`, `/a/${id}`, `/r/vdpr_${"x".repeat(43)}`])
      expect([path, (await browse("GET", path)).status]).toEqual([path, 404]);
    expect((await asReporter("GET", "/v1/p/report", `vdpr_${"x".repeat(43)}`)).status).toBe(401);
    expect((await api("GET", "/.well-known/security.txt", { origin: "https://unknown.example.org" })).status).toBe(404);
  });

  it("answers a policy of one shard by its shortcode only: another organization's code never reads the wrong shard", async () => {
    // The two programs' codes swapped into each other's routes still find their own organizations.
    const [a, b] = programs;
    const ofA = await api("GET", `/v1/p/policies/${a!.policyCode}/versions/1`);
    const ofB = await api("GET", `/v1/p/policies/${b!.policyCode}/versions/1`);
    expect([ofA.body.data.attributes.terms.name, ofB.body.data.attributes.terms.name]).toEqual([`${a!.name} VDP`, `${b!.name} VDP`]);
    // A changed policy is read afresh from its own shard.
    const id = (await get("/v1/policies", b!.org.key)).body.data[0].id;
    const changed = await patch(`/v1/policies/${id}`, b!.org.key, { data: { type: "policy", id, attributes: { name: "Apex VDP 2" } } });
    expect(changed.status).toBe(200);
    expect((await api("GET", `/v1/p/policies/${b!.policyCode}/versions/2`)).body.data.attributes.terms.name).toBe("Apex VDP 2");
  });
});
