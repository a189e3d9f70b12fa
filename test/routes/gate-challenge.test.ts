import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { gateMarks } from "../../src/db/schema";
import { uuidv7 } from "../../src/lib/ids";
import { addressTag, checkSolution, parsePowKeys } from "../../src/lib/pow";
import { BRIEF_CSP, PAGE_CSP } from "../../src/templates/layout";
import { GATE_JS_PATH } from "../../src/templates/gate-script";
import { POW_WORKER_JS_PATH } from "../../src/templates/pow-worker-script";
import { browse, get } from "../helpers/api";
import { brief, organization, PUBLISHED } from "../helpers/factories";
import { powHeader } from "../helpers/pow";

// GET /v1/p/briefs/{shortcode}/challenge: an ALTCHA v1 challenge for a brief that asks for proof of work,
// as hard as the brief's and the client's last hour make it, read in one round trip and never cached.

const keys = parsePowKeys(env.POW_HMAC_KEY);
let address = 0;
const ip = () => `203.0.113.${++address}`;
const challenge = (shortcode: string, from = ip()) =>
  get(`/v1/p/briefs/${shortcode}/challenge`, null, { headers: { "CF-Connecting-IP": from } });

/** `n` submissions of the last hour as the gate records them, from the address `from` (or each its own). */
async function marks(briefId: string, n: number, from?: string) {
  const db = createDb(env.DB);
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    await db
      .insert(gateMarks)
      .values({ id: uuidv7(), briefId, addressTag: await addressTag(keys, from ?? ip()), atMs: now - 60_000, gate: "verified" });
  }
}

describe("GET /v1/p/briefs/{shortcode}/challenge", () => {
  it("answers a challenge for the brief as plain JSON, never cached, in one round trip, that a solution then verifies", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED, proof_of_work: "on" });
    const res = await challenge(b.attributes.shortcode);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.shardTrips).toBe(1);
    expect(res.body).toEqual({
      algorithm: "SHA-256",
      challenge: expect.stringMatching(/^[0-9a-f]{64}$/),
      maxnumber: 50_000,
      salt: expect.stringMatching(new RegExp(`^[0-9a-f]{24}\\?brief=${b.attributes.shortcode}&expires=\\d+&$`)),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const solved = await checkSolution({ keys, payload: powHeader(res.body), shortcode: b.attributes.shortcode, now: Date.now() });
    expect(solved).toEqual({ ok: true, nonce: res.body.challenge });
    // Each call is a new challenge.
    expect((await challenge(b.attributes.shortcode)).body.challenge).not.toBe(res.body.challenge);
  });

  it("answers auto briefs too, and 409 where proof of work is off; 404 for a draft or an unknown shortcode", async () => {
    const org = await organization();
    const auto = await brief(org, { published_at: PUBLISHED, proof_of_work: "auto" });
    expect((await challenge(auto.attributes.shortcode)).status).toBe(200);
    const off = await brief(org, { published_at: PUBLISHED });
    const refused = await challenge(off.attributes.shortcode);
    expect(refused.status).toBe(409);
    expect(refused.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(refused.body.errors[0]).toMatchObject({ code: "conflict", detail: expect.stringMatching(/does not ask for proof of work/) });
    const draft = await brief(org, { proof_of_work: "on" });
    expect((await challenge(draft.attributes.shortcode)).status).toBe(404);
    expect((await challenge("ZZZZ-9999")).status).toBe(404);
  });

  it("asks 10 times more past the expected hourly rate, 100 times past twice it, and 10 times more of a busy address, within 5M", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED, proof_of_work: "on", expected_hourly: 3 });
    const code = b.attributes.shortcode;
    const max = async (from?: string) => (await challenge(code, from)).body.maxnumber;
    await marks(b.id, 2);
    expect(await max()).toBe(50_000);
    await marks(b.id, 1);
    expect(await max()).toBe(500_000);
    await marks(b.id, 3);
    expect(await max()).toBe(5_000_000);
    // The brief's count stops at twice the rate: past it nothing changes, and no more rows are read.
    const before = (await challenge(code)).rowsRead;
    await marks(b.id, 20);
    const after = await challenge(code);
    expect(after.body.maxnumber).toBe(5_000_000);
    expect(after.rowsRead).toBe(before);

    // A busy address on a quiet brief: its third submission of the hour (any brief) multiplies by 10.
    const quiet = await brief(org, { published_at: PUBLISHED, proof_of_work: "on", expected_hourly: 1000 });
    const busy = "198.51.100.77";
    await marks(b.id, 2, busy);
    expect(await (async () => (await challenge(quiet.attributes.shortcode, busy)).body.maxnumber)()).toBe(50_000);
    await marks(quiet.id, 1, busy);
    expect((await challenge(quiet.attributes.shortcode, busy)).body.maxnumber).toBe(500_000);
    expect((await challenge(quiet.attributes.shortcode)).body.maxnumber).toBe(50_000);
  });

  it("counts only the last hour", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED, proof_of_work: "on", expected_hourly: 1 });
    const db = createDb(env.DB);
    await db
      .insert(gateMarks)
      .values({ id: uuidv7(), briefId: b.id, addressTag: "0".repeat(32), atMs: Date.now() - 3_601_000, gate: "verified" });
    expect((await challenge(b.attributes.shortcode)).body.maxnumber).toBe(50_000);
    await marks(b.id, 1);
    expect((await challenge(b.attributes.shortcode)).body.maxnumber).toBe(500_000);
  });
});

describe("the brief page's scripts", () => {
  it("serves the gate script and the proof-of-work worker at their hashed paths, cached for good, under 20 KiB together", async () => {
    let bytes = 0;
    for (const path of [GATE_JS_PATH, POW_WORKER_JS_PATH]) {
      expect(path).toMatch(/^\/scripts\/(gate|pow)-[0-9a-f]{8}\.js$/);
      const res = await browse("GET", path);
      expect([path, res.status, res.headers.get("Content-Type")]).toEqual([path, 200, "text/javascript; charset=utf-8"]);
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      bytes += new TextEncoder().encode(res.text).byteLength;
    }
    expect(bytes).toBeLessThanOrEqual(20 * 1024);
  });

  it("puts a brief's page under a policy that lets this origin's scripts fetch and start workers, and nothing else", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED, proof_of_work: "on" });
    const page = await browse("GET", `/b/${b.attributes.shortcode}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Security-Policy")).toBe(BRIEF_CSP);
    expect(BRIEF_CSP).toBe(`${PAGE_CSP}; script-src 'self'; connect-src 'self'; worker-src 'self'`);
    expect((await browse("GET", "/b/ZZZZ-ZZZZ")).headers.get("Content-Security-Policy")).toBe(PAGE_CSP);
  });
});
