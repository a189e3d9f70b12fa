import { env } from "cloudflare:workers";
import { createChallenge } from "altcha-lib/v1";
import { describe, expect, it } from "vitest";
import { issueChallenge, parsePowKeys } from "../../src/lib/pow";
import { api, browse, get, patch } from "../helpers/api";
import { testClock } from "../helpers/clock";
import { fakeQueue } from "../helpers/events";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { type Challenge, powHeader, solvePow } from "../helpers/pow";
import { newReporterKey, signSubmission } from "../helpers/reporter-keys";

// The gate at a brief's public door, as a client meets it: requirements, proof of work, the pause,
// the daily cap and reporter keys. Every refusal leaves nothing stored. The clock is the test's.

const T0 = Date.parse("2026-11-29T10:00:00.000Z");
const { at } = testClock(T0);
const H = 3_600_000;
let ipCounter = 0;
const nextIp = () => `203.0.113.${++ipCounter}`;

type Attrs = Record<string, unknown>;
const body = (attributes: Attrs = {}) =>
  JSON.stringify({
    data: { type: "vuln", attributes: { title: "Reflected XSS in /search", description: "The q parameter is echoed.", ...attributes } },
  });

function submit(shortcode: string, payload: string, opts: { ip?: string; headers?: Record<string, string> } = {}) {
  return api("POST", `/v1/p/briefs/${shortcode}/vulns`, {
    rawBody: payload,
    contentType: "application/json",
    headers: { "CF-Connecting-IP": opts.ip ?? nextIp(), ...opts.headers },
    env: { EVENTS: fakeQueue().queue },
  });
}

/** An organization with one published brief of these gate attributes (and a look-alike neighbour's brief). */
async function gated(attributes: Attrs) {
  const org = await organization();
  const b = await brief(org, { published_at: PUBLISHED, ...attributes });
  const neighbour = await organization();
  await brief(neighbour, { published_at: PUBLISHED, ...attributes });
  return { org, briefId: b.id as string, shortcode: b.attributes.shortcode as string };
}

const countRows = async (sqlText: string, ...binds: unknown[]) =>
  (await env.DB.prepare(sqlText)
    .bind(...binds)
    .first<{ n: number }>())!.n;
const vulnsOf = (briefId: string) => countRows("SELECT count(*) AS n FROM vulns WHERE brief_id = ?", briefId);
const marksOf = (briefId: string) => countRows("SELECT count(*) AS n FROM gate_marks WHERE brief_id = ?", briefId);
const vulnOf = async (org: TestOrganization, id: string) => (await get(`/v1/vulns/${id}`, org.key)).body.data;

async function challengeFor(shortcode: string, { maxnumber = 2_000, now = Date.now() } = {}) {
  return issueChallenge({ keys: parsePowKeys(env.POW_HMAC_KEY), shortcode, maxnumber, now });
}

describe("submission requirements", () => {
  const requirements = { evidence: { steps_to_reproduce: "required", impact: "optional" }, ai_disclosure: "required" };

  it("refuses a submission missing what the brief requires, one error at each member, and stores nothing", async () => {
    const { briefId, shortcode } = await gated({ submission_requirements: requirements });
    const res = await submit(shortcode, body({ evidence: { steps_to_reproduce: "   ", impact: "Account takeover" } }));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual([
      "/data/attributes/evidence/steps_to_reproduce",
      "/data/attributes/ai_use",
    ]);
    expect(await vulnsOf(briefId)).toBe(0);
    expect(await marksOf(briefId)).toBe(0);
  });

  it("takes it with the evidence and the AI-use disclosure, and tells the triager whether the evidence is complete", async () => {
    const { org, shortcode } = await gated({ submission_requirements: requirements });
    const ai_use = { level: "writing", tools: "a chat model", verified_by_reporter: true };
    const partial = await submit(shortcode, body({ evidence: { steps_to_reproduce: "1. Open /search?q=<svg>" }, ai_use }));
    expect(partial.status).toBe(201);
    expect(await vulnOf(org, partial.body.data.id)).toMatchObject({
      attributes: {
        gate: "not_required",
        evidence: { steps_to_reproduce: "1. Open /search?q=<svg>" },
        evidence_complete: false,
        ai_use,
      },
    });
    const full = await submit(shortcode, body({ evidence: { steps_to_reproduce: "1. Open", impact: "Session theft" }, ai_use }));
    expect((await vulnOf(org, full.body.data.id)).attributes.evidence_complete).toBe(true);
    // Too long is the schema's 422, at the member.
    const long = await submit(shortcode, body({ evidence: { steps_to_reproduce: "x".repeat(10_001) }, ai_use }));
    expect([long.status, long.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/evidence/steps_to_reproduce"]);
  });

  it("shows the requirements in the public read (but not the expected rate), and the page asks for each field", async () => {
    const { shortcode } = await gated({ submission_requirements: requirements, proof_of_work: "auto", expected_hourly: 40 });
    const read = await get(`/v1/p/briefs/${shortcode}`);
    expect(read.body.data.attributes).toMatchObject({
      submission_requirements: { evidence: { steps_to_reproduce: "required", impact: "optional" }, ai_disclosure: "required" },
      proof_of_work: "auto",
    });
    expect(read.body.data.attributes).not.toHaveProperty("expected_hourly");
    const page = await browse("GET", `/b/${shortcode}`);
    expect(page.text).toContain("Steps to reproduce (required)");
    expect(page.text).toContain("Impact (optional)");
    expect(page.text).toContain("How AI was used (required)");
    expect(page.text).not.toContain("Expected result");
  });

  it("on the page, puts each message beside its field and keeps everything typed; nothing is stored", async () => {
    const { briefId, shortcode } = await gated({ submission_requirements: requirements });
    const form = new FormData();
    form.set("title", "Stored XSS in profile");
    form.set("description", "The bio field keeps <script>.");
    form.set("evidence_impact", "Any visitor's session");
    const res = await browse("POST", `/b/${shortcode}`, { body: form, headers: { "CF-Connecting-IP": nextIp() } });
    expect(res.status).toBe(422);
    expect(res.text).toMatch(
      /<span class="message" id="evidence_steps_to_reproduce-error">Steps to reproduce is required by this brief\.<\/span>/,
    );
    expect(res.text).toMatch(/id="ai_use-error">This brief asks how AI was used/);
    expect(res.text).toContain('value="Stored XSS in profile"');
    expect(res.text).toContain("Any visitor&#39;s session");
    expect(await vulnsOf(briefId)).toBe(0);
  });

  it("asks nothing of a brief that asks nothing: the submission is as before", async () => {
    const { org, shortcode } = await gated({});
    const res = await submit(shortcode, body());
    expect(res.status).toBe(201);
    expect((await vulnOf(org, res.body.data.id)).attributes).toMatchObject({ gate: "not_required", evidence: {}, ai_use: null });
    expect(res.shardTrips).toBe(2);
  });
});

describe("proof of work", () => {
  it("verifies a solved challenge once: a replay, an expired one, another key's or another brief's leave the report unverified", async () => {
    const { org, shortcode } = await gated({ proof_of_work: "on" });
    const other = await gated({ proof_of_work: "on" });
    const solved = powHeader(solvePow(await challengeFor(shortcode)));
    const first = await submit(shortcode, body(), { headers: { "X-Pow-Solution": solved } });
    expect(first.status).toBe(201);
    expect(first.shardTrips).toBe(2);
    expect((await vulnOf(org, first.body.data.id)).attributes.gate).toBe("verified");

    const replay = await submit(shortcode, body(), { headers: { "X-Pow-Solution": solved } });
    expect((await vulnOf(org, replay.body.data.id)).attributes.gate).toBe("unverified");

    const old = powHeader(solvePow(await challengeFor(shortcode)));
    at(T0 + 11 * 60_000);
    const expired = await submit(shortcode, body(), { headers: { "X-Pow-Solution": old } });
    expect((await vulnOf(org, expired.body.data.id)).attributes.gate).toBe("unverified");
    at(T0);

    const foreign = await createChallenge({
      hmacKey: "another-key",
      maxnumber: 2_000,
      expires: new Date(T0 + 600_000),
      params: { brief: shortcode },
    });
    const signedElsewhere = await submit(shortcode, body(), { headers: { "X-Pow-Solution": powHeader(solvePow(foreign as Challenge)) } });
    expect((await vulnOf(org, signedElsewhere.body.data.id)).attributes.gate).toBe("unverified");

    const forOther = powHeader(solvePow(await challengeFor(other.shortcode)));
    const wrongBrief = await submit(shortcode, body(), { headers: { "X-Pow-Solution": forOther } });
    expect((await vulnOf(org, wrongBrief.body.data.id)).attributes.gate).toBe("unverified");
    const garbage = await submit(shortcode, body(), { headers: { "X-Pow-Solution": "not base64 json" } });
    expect((await vulnOf(org, garbage.body.data.id)).attributes.gate).toBe("unverified");
  });

  it("lets exactly one of two concurrent sends of one solution be verified", async () => {
    const { org, shortcode } = await gated({ proof_of_work: "on" });
    const solved = powHeader(solvePow(await challengeFor(shortcode)));
    const both = await Promise.all([1, 2].map(() => submit(shortcode, body(), { headers: { "X-Pow-Solution": solved } })));
    expect(both.map((r) => r.status)).toEqual([201, 201]);
    const gates = await Promise.all(both.map(async (r) => (await vulnOf(org, r.body.data.id)).attributes.gate));
    expect(gates.sort()).toEqual(["unverified", "verified"]);
  });

  it("stores two an hour from an address without a solution, then answers 429 with Retry-After until the first is an hour old", async () => {
    const { briefId, shortcode } = await gated({ proof_of_work: "on" });
    const ip = nextIp();
    expect((await submit(shortcode, body(), { ip })).status).toBe(201);
    at(T0 + 10 * 60_000);
    expect((await submit(shortcode, body(), { ip })).status).toBe(201);
    const third = await submit(shortcode, body(), { ip });
    expect(third.status).toBe(429);
    expect(third.body.errors[0].code).toBe("rate_limited");
    expect(third.headers.get("Retry-After")).toBe(String(50 * 60));
    // A solution still gets through, and another address is not held back.
    const solved = powHeader(solvePow(await challengeFor(shortcode)));
    expect((await submit(shortcode, body(), { ip, headers: { "X-Pow-Solution": solved } })).status).toBe(201);
    expect((await submit(shortcode, body())).status).toBe(201);
    expect(await vulnsOf(briefId)).toBe(4);
    at(T0 + H + 1);
    expect((await submit(shortcode, body(), { ip })).status).toBe(201);
  });

  it("holds the budget under concurrent sends: of three at once from one address, two are stored and one is 429", async () => {
    const { briefId, shortcode } = await gated({ proof_of_work: "on" });
    const ip = nextIp();
    const sent = await Promise.all([1, 2, 3].map(() => submit(shortcode, body(), { ip })));
    expect(sent.map((r) => r.status).sort()).toEqual([201, 201, 429]);
    expect(await vulnsOf(briefId)).toBe(2);
    expect(await marksOf(briefId)).toBe(2);
  });

  it("keeps each brief's budget apart: an address that spent one brief's may still report to another's", async () => {
    const first = await gated({ proof_of_work: "on" });
    const second = await gated({ proof_of_work: "on" });
    const ip = nextIp();
    expect((await submit(first.shortcode, body(), { ip })).status).toBe(201);
    expect((await submit(first.shortcode, body(), { ip })).status).toBe(201);
    expect((await submit(second.shortcode, body(), { ip })).status).toBe(201);
    expect((await submit(first.shortcode, body(), { ip })).status).toBe(429);
  });

  it("auto: off at the expected rate, on past it, and on for an hour after the flood, then off", async () => {
    const { org, shortcode } = await gated({ proof_of_work: "auto", expected_hourly: 2 });
    const gateOf = async () => {
      const res = await submit(shortcode, body());
      return (await vulnOf(org, res.body.data.id)).attributes.gate;
    };
    expect([await gateOf(), await gateOf()]).toEqual(["not_required", "not_required"]);
    expect(await gateOf()).toBe("unverified");
    // Half an hour on, the last hour still holds 3: on.
    at(T0 + 30 * 60_000);
    expect(await gateOf()).toBe("unverified");
    // Past the hour, the brief's last hour is quiet again, but the flood's hour has not passed.
    at(T0 + 80 * 60_000);
    expect(await gateOf()).toBe("unverified");
    // The hour fell back to the rate when the flood's marks left it (T0 + 60 min): on for an hour more.
    at(T0 + 110 * 60_000);
    expect(await gateOf()).toBe("unverified");
    at(T0 + 160 * 60_000);
    expect(await gateOf()).toBe("not_required");
  });
});

describe("the pause", () => {
  it("answers 503 with Retry-After and the message, stores nothing, tells the page, and reopens when the time passes", async () => {
    const until = new Date(T0 + 2 * H).toISOString();
    const { org, briefId, shortcode } = await gated({ intake_paused_until: until, intake_paused_message: "Back after the release." });
    const res = await submit(shortcode, body());
    expect(res.status).toBe(503);
    expect(res.body.errors[0]).toMatchObject({ code: "intake_paused" });
    expect(res.body.errors[0].detail).toContain("Back after the release.");
    expect(res.headers.get("Retry-After")).toBe(String(2 * 3600));
    expect(await vulnsOf(briefId)).toBe(0);

    const page = await browse("GET", `/b/${shortcode}`);
    expect(page.text).toContain("Not taking reports until");
    expect(page.text).toContain("Back after the release.");
    const form = new FormData();
    form.set("title", "Open redirect on /login");
    form.set("description", "next= takes any host.");
    const posted = await browse("POST", `/b/${shortcode}`, { body: form, headers: { "CF-Connecting-IP": nextIp() } });
    expect(posted.status).toBe(503);
    expect(posted.headers.get("Retry-After")).toBe(String(2 * 3600));
    expect(posted.text).toContain('value="Open redirect on /login"');
    expect(await vulnsOf(briefId)).toBe(0);

    at(T0 + 2 * H + 1);
    expect((await submit(shortcode, body())).status).toBe(201);
    expect((await get(`/v1/vulns?q[brief_id_eq]=${briefId}`, org.key)).body.data).toHaveLength(1);
  });
});

describe("the daily cap", () => {
  it("admits up to the cap and queues the rest with their expected day, announcing nothing until release", async () => {
    const { org, briefId, shortcode } = await gated({ daily_cap: 2 });
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await submit(shortcode, body({ title: `Finding ${i}` })));
    expect(sent.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(sent.map((r) => r.body.data.attributes.inbox_state)).toEqual(["dispatching", "dispatching", "queued", "queued", "queued"]);
    const queued = await Promise.all(sent.slice(2).map(async (r) => (await vulnOf(org, r.body.data.id)).attributes));
    expect(queued.map((a) => a.release_expected_on)).toEqual(["2026-11-30", "2026-11-30", "2026-12-01"]);
    expect(queued[0].deadlines.acknowledge.due_at).toBeNull();
    const created = await countRows(
      "SELECT count(*) AS n FROM events WHERE type = 'Vuln::Created' AND vuln_id IN (SELECT id FROM vulns WHERE brief_id = ?)",
      briefId,
    );
    expect(created).toBe(2);
    expect(await vulnsOf(briefId)).toBe(5);
  });

  it("never admits past the cap under concurrent sends: admitted + queued = sent", async () => {
    const { briefId, shortcode } = await gated({ daily_cap: 3 });
    const sent = await Promise.all(Array.from({ length: 8 }, () => submit(shortcode, body())));
    expect(sent.every((r) => r.status === 201)).toBe(true);
    const states = sent.map((r) => r.body.data.attributes.inbox_state);
    expect(states.filter((s) => s === "dispatching")).toHaveLength(3);
    expect(states.filter((s) => s === "queued")).toHaveLength(5);
    expect(await vulnsOf(briefId)).toBe(8);
  });
});

describe("reporter keys at the door", () => {
  it("verifies a signature over the exact body and keeps the key's record; forgeries are 400 and store nothing; a replay is 409", async () => {
    const { org, briefId, shortcode } = await gated({});
    const key = await newReporterKey();
    const payload = body();
    const headers = await signSubmission(payload, { key, aud: `/b/${shortcode}` });
    const ok = await submit(shortcode, payload, { headers });
    expect(ok.status).toBe(201);
    expect((await vulnOf(org, ok.body.data.id)).attributes.reporter_key).toEqual({
      thumbprint: key.thumbprint,
      record: { reports: 1, valid: 0, spam: 0, not_applicable: 0, duplicate: 0 },
    });
    expect((await submit(shortcode, payload, { headers })).status).toBe(409);

    const forgeries: [string, Record<string, string>][] = [
      ["another body", headers],
      [payload, await signSubmission(payload, { key, aud: "/b/ZZZZ-9999" })],
      [payload, await signSubmission(payload, { key, aud: `/b/${shortcode}`, iat: Math.floor(T0 / 1000) - 3600 })],
      [
        payload,
        { ...(await signSubmission(payload, { key, aud: `/b/${shortcode}` })), "X-Reporter-Key": (await newReporterKey()).thumbprint },
      ],
      [payload, { "X-Reporter-Key": key.thumbprint }],
    ];
    for (const [sentBody, sentHeaders] of forgeries) {
      const res = await submit(shortcode, sentBody === "another body" ? body({ title: "Changed" }) : sentBody, { headers: sentHeaders });
      expect([res.status, res.body.errors[0].code]).toEqual([400, "reporter_signature_invalid"]);
    }
    expect(await vulnsOf(briefId)).toBe(1);
  });

  it("lets a key with enough valid reports skip proof of work, and one short of it not", async () => {
    const { org, shortcode } = await gated({ proof_of_work: "on", verified_lane_min_valid: 1 });
    const key = await newReporterKey();
    let n = 0;
    const send = async () => {
      // Another body each time: the same body signed in the same second is the same signature, a replay.
      const payload = body({ title: `Finding ${++n}` });
      const res = await submit(shortcode, payload, { headers: await signSubmission(payload, { key, aud: `/b/${shortcode}` }) });
      return (await vulnOf(org, res.body.data.id)) as { id: string; attributes: Attrs };
    };
    const first = await send();
    expect(first.attributes.gate).toBe("unverified");
    await patch(`/v1/vulns/${first.id}`, org.key, { data: { type: "vuln", id: first.id, attributes: { triage_state: "triaged" } } });
    const second = await send();
    expect(second.attributes).toMatchObject({ gate: "verified", reporter_key: { record: { reports: 2, valid: 1 } } });
  });
});
