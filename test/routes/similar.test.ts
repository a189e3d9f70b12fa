import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, post } from "../helpers/api";
import { fakeQueue } from "../helpers/events";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { runQueue } from "../helpers/queue";
import { asReporter, nextIp } from "../helpers/reporter";

// Near duplicates found at intake: the later of two reports of one finding gets a read-only
// possible_duplicate_of, both list each other under /similar, and nothing else changes. The reporter never
// sees any of it, and another organization's reports are never compared.

const FIRST = {
  title: "Reflected XSS in the shop search",
  description:
    "Hello, https://shop.northwind.test/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E reflects the q parameter into the page unencoded " +
    "and the script runs. An attacker can send the link to a customer.",
};
const SECOND = {
  title: "Script injection on the search page",
  description:
    'Steps: open GET /search and put "><img src=x onerror=alert(document.domain)> in the parameter `q`; the alert fires. ' +
    "Cross-site scripting, CWE-79.",
};
const UNRELATED = {
  title: "SQL injection in the order export",
  description: "https://api.northwind.test/api/v2/export?format=' OR '1'='1 returns every customer's orders.",
};

let org: TestOrganization;
let briefId: string;
let shortcode: string;
beforeAll(async () => {
  org = await organization();
  const b = await brief(org, { published_at: PUBLISHED });
  briefId = b.id;
  shortcode = b.attributes.shortcode;
});

/** A report through the brief's public door, its consumer run now (the queue captured). */
async function report(
  attributes: { title: string; description: string },
  o: { org: TestOrganization; shortcode: string } = { org, shortcode },
) {
  const q = fakeQueue();
  const res = await api("POST", `/v1/p/briefs/${o.shortcode}/vulns`, {
    body: { data: { type: "vuln", attributes } },
    contentType: "application/json",
    headers: { "CF-Connecting-IP": nextIp() },
    env: { EVENTS: q.queue },
  });
  expect(res.status).toBe(201);
  const eventIds = q.ids();
  const run = await runQueue(eventIds);
  expect(run.retryMessages).toEqual([]);
  return { id: res.body.data.id as string, token: res.body.data.attributes.follow_up_token as string, eventIds };
}

const rowCounts = async (vulnId: string) =>
  env.DB.prepare(
    `SELECT (SELECT count(*) FROM vuln_signatures WHERE vuln_id = ?1) AS signatures, (SELECT count(*) FROM vuln_lsh_bands WHERE vuln_id = ?1) AS bands,
      (SELECT count(*) FROM vuln_fingerprints WHERE vuln_id = ?1) AS fingerprints,
      (SELECT count(*) FROM vuln_similarities WHERE vuln_id = ?1 OR similar_id = ?1) AS similarities`,
  )
    .bind(vulnId)
    .first<Record<string, number>>();

describe("near duplicates", () => {
  let first: Awaited<ReturnType<typeof report>>;
  let second: Awaited<ReturnType<typeof report>>;
  let other: Awaited<ReturnType<typeof report>>;
  beforeAll(async () => {
    first = await report(FIRST);
    other = await report(UNRELATED);
    second = await report(SECOND);
  });

  it("marks the later report a possible duplicate of the earlier, with its score, and filters by it", async () => {
    const later = (await get(`/v1/vulns/${second.id}`, org.key)).body.data;
    expect(later.relationships.possible_duplicate_of.data).toEqual({ type: "vuln", id: first.id });
    expect(later.attributes.possible_duplicate_score).toBeGreaterThan(0.5);
    const earlier = (await get(`/v1/vulns/${first.id}`, org.key)).body.data;
    expect(earlier.relationships.possible_duplicate_of.data).toBeNull();
    expect(earlier.attributes.possible_duplicate_score).toBeNull();

    const flagged = await get(`/v1/vulns?q[brief_id_eq]=${briefId}&q[possible_duplicate_eq]=true`, org.key);
    expect(flagged.status).toBe(200);
    expect(flagged.body.data.map((v: { id: string }) => v.id)).toEqual([second.id]);
    const rest = await get(`/v1/vulns?q[brief_id_eq]=${briefId}&q[possible_duplicate_eq]=false`, org.key);
    expect(rest.body.data.map((v: { id: string }) => v.id).sort()).toEqual([first.id, other.id].sort());
  });

  it("lists the similar reports both ways, with the score and the reasons, in one read batch after the key's", async () => {
    const res = await get(`/v1/vulns/${second.id}/similar`, org.key);
    expect(res.status).toBe(200);
    expect(res.roundTrips).toBe(2);
    expect(res.body.data).toEqual([
      {
        type: "vuln_similarity",
        id: first.id,
        attributes: { score: expect.any(Number), reasons: expect.arrayContaining(["same endpoint /search?q", "CWE-79"]) },
        relationships: { vuln: { data: { type: "vuln", id: first.id } } },
        links: { self: `/v1/vulns/${second.id}/similar` },
      },
    ]);
    const back = await get(`/v1/vulns/${first.id}/similar`, org.key);
    expect(back.body.data.map((s: { id: string }) => s.id)).toEqual([second.id]);
    expect((await get(`/v1/vulns/${other.id}/similar`, org.key)).body.data).toEqual([]);
  });

  it("never closes or triages anything", async () => {
    for (const id of [first.id, second.id]) {
      const v = (await get(`/v1/vulns/${id}`, org.key)).body.data;
      expect(v.attributes.triage_state).toBe("new");
      expect(v.relationships.duplicate_of.data).toBeNull();
    }
    const triage = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE vuln_id IN (?, ?) AND type LIKE 'Vuln::Triage%'")
      .bind(first.id, second.id)
      .first<{ n: number }>();
    expect(triage!.n).toBe(0);
  });

  it("is never shown to the reporter: not in the reporter's API nor on the /r page", async () => {
    const own = await asReporter("GET", "/v1/p/report", second.token);
    expect(own.status).toBe(200);
    const page = await api("GET", `/r/${second.token}`);
    expect(page.status).toBe(200);
    for (const text of [own.text, page.text]) {
      expect(text).not.toMatch(/possible_duplicate|similar|duplicate/i);
      expect(text).not.toContain(first.id);
    }
    expect((await asReporter("GET", `/v1/vulns/${second.id}/similar`, second.token)).status).toBe(401);
  });

  it("adds nothing when the intake's message is delivered again", async () => {
    const before = await rowCounts(second.id);
    expect(before).toEqual({ signatures: 1, bands: 32, fingerprints: expect.any(Number), similarities: 2 });
    const run = await runQueue(second.eventIds);
    expect(run.retryMessages).toEqual([]);
    expect(await rowCounts(second.id)).toEqual(before);
    expect((await get(`/v1/vulns/${second.id}`, org.key)).body.data.relationships.possible_duplicate_of.data).toEqual({
      type: "vuln",
      id: first.id,
    });
  });

  it("forgets the original when it is deleted", async () => {
    const third = await report({ ...SECOND, title: "XSS on search (q)" });
    expect((await get(`/v1/vulns/${third.id}`, org.key)).body.data.relationships.possible_duplicate_of.data).not.toBeNull();
    expect((await del(`/v1/vulns/${first.id}`, org.key)).status).toBe(204);
    const later = (await get(`/v1/vulns/${second.id}`, org.key)).body.data;
    expect(later.relationships.possible_duplicate_of.data).toBeNull();
    expect(later.attributes.possible_duplicate_score).toBeNull();
    expect((await get(`/v1/vulns/${second.id}/similar`, org.key)).body.data.map((s: { id: string }) => s.id)).toEqual([third.id]);
  });
});

describe("tenancy", () => {
  it("never compares reports of two organizations, even identical ones", async () => {
    const otherOrg = await organization();
    const otherBrief = await brief(otherOrg, { published_at: PUBLISHED });
    const mine = await report(FIRST);
    const theirs = await report(FIRST, { org: otherOrg, shortcode: otherBrief.attributes.shortcode });
    for (const [o, id] of [
      [org, mine.id],
      [otherOrg, theirs.id],
    ] as const) {
      const similar = (await get(`/v1/vulns/${id}/similar`, o.key)).body.data.map((s: { id: string }) => s.id);
      expect(similar).not.toContain(mine.id === id ? theirs.id : mine.id);
    }
    expect((await get(`/v1/vulns/${theirs.id}`, otherOrg.key)).body.data.relationships.possible_duplicate_of.data).toBeNull();
    const crossed = await env.DB.prepare(
      "SELECT count(*) AS n FROM vuln_similarities s JOIN vulns a ON a.id = s.vuln_id JOIN vulns b ON b.id = s.similar_id WHERE a.organization_id <> b.organization_id",
    ).first<{ n: number }>();
    expect(crossed!.n).toBe(0);
    // And another organization's key cannot read this one's list.
    expect((await get(`/v1/vulns/${mine.id}/similar`, otherOrg.key)).status).toBe(404);
  });

  it("answers 404 for an unknown vuln", async () => {
    const res = await get(`/v1/vulns/${crypto.randomUUID()}/similar`, org.key);
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe("vuln_not_found");
  });
});

describe("attached files", () => {
  it("makes two reports with the same file similar, and the later a possible duplicate, whichever is uploaded first", async () => {
    const older = await report({ title: "Crash in the invoice renderer", description: "The PDF attached makes it crash." });
    const newer = await report({ title: "Uploading this file breaks invoices", description: "See the attachment, it kills the worker." });
    const upload = (id: string) =>
      api("POST", `/v1/vulns/${id}/attachments?filename=poc.pdf`, {
        key: org.key,
        rawBody: "%PDF-1.4 the same bytes",
        contentType: "application/pdf",
      });
    // The newer report gets the file first: the older one's upload is the one that finds the pair.
    expect((await upload(newer.id)).status).toBe(201);
    expect((await get(`/v1/vulns/${newer.id}/similar`, org.key)).body.data).toEqual([]);
    expect((await upload(older.id)).status).toBe(201);
    const similar = (await get(`/v1/vulns/${newer.id}/similar`, org.key)).body.data;
    expect(similar.map((s: { id: string; attributes: { score: number } }) => [s.id, s.attributes.score])).toEqual([[older.id, 0.9]]);
    expect(similar[0].attributes.reasons).toEqual([expect.stringMatching(/^same file [0-9a-f]{8}…$/)]);
    expect((await get(`/v1/vulns/${older.id}/similar`, org.key)).body.data.map((s: { id: string }) => s.id)).toEqual([newer.id]);
    const later = (await get(`/v1/vulns/${newer.id}`, org.key)).body.data;
    expect(later.relationships.possible_duplicate_of.data).toEqual({ type: "vuln", id: older.id });
    expect(later.attributes.possible_duplicate_score).toBe(0.9);
    expect((await get(`/v1/vulns/${older.id}`, org.key)).body.data.relationships.possible_duplicate_of.data).toBeNull();
    // The same file again changes nothing.
    expect((await upload(older.id)).status).toBe(201);
    const again = (await get(`/v1/vulns/${newer.id}/similar`, org.key)).body.data;
    expect(again[0].attributes.reasons).toHaveLength(1);
  });
});

// The organization's own door runs the same intake.
describe("the organization's door", () => {
  it("finds a report entered with POST /v1/vulns like one sent by a researcher", async () => {
    const sent = await report(UNRELATED);
    const q = fakeQueue();
    const res = await post(
      "/v1/vulns",
      org.key,
      {
        data: {
          type: "vuln",
          attributes: { title: "SQLi: order export", description: "GET /api/v2/export, parameter format: ' UNION SELECT 1,2-- (CWE-89)" },
          relationships: { brief: { data: { type: "brief", id: briefId } } },
        },
      },
      { env: { EVENTS: q.queue } },
    );
    expect(res.status).toBe(201);
    await runQueue(q.ids());
    expect((await get(`/v1/vulns/${res.body.data.id}/similar`, org.key)).body.data.map((s: { id: string }) => s.id)).toContain(sent.id);
  });
});
