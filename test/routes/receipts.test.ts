import { env, withEnv } from "cloudflare:workers";
import canonicalize from "canonicalize";
import { base64url, compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from "jose";
import { describe, expect, it, vi } from "vitest";
import { api, browse } from "../helpers/api";
import { fakeQueue } from "../helpers/events";
import { brief, organization, PUBLISHED } from "../helpers/factories";
import { expectedErrorLogs } from "../helpers/logs";
import { asReporter, nextIp, submitReport, untilStored } from "../helpers/reporter";

// The reporter's signed receipt, checked as a third party would: with the JWKS the platform serves and
// jose alone, never with the project's own code.

const keysNow = async () => {
  const res = await browse("GET", "/.well-known/vdp-keys.json");
  expect(res.status).toBe(200);
  return JSON.parse(res.text) as JSONWebKeySet;
};
const receipt = async (token: string) => {
  const res = await asReporter("GET", "/v1/p/report/receipt", token, { headers: { "CF-Connecting-IP": nextIp() } });
  expect([res.status, res.headers.get("Content-Type")]).toEqual([200, "application/jose"]);
  return res.text;
};
const claimsOf = async (jws: string, jwks: JSONWebKeySet) =>
  JSON.parse(new TextDecoder().decode((await compactVerify(jws, createLocalJWKSet(jwks))).payload));

describe("the signing keys", () => {
  it("are served as a JWK Set with no key, cached, readable from any origin, public halves only", async () => {
    const res = await browse("GET", "/.well-known/vdp-keys.json", { headers: { Origin: "https://coordinator.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/jwk-set+json");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=3600");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const jwks = JSON.parse(res.text);
    expect(jwks.keys).toEqual([
      { kid: "dev-2026-11", kty: "OKP", crv: "Ed25519", x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), alg: "EdDSA", use: "sig" },
    ]);
  });
});

describe("GET /v1/p/report/receipt", () => {
  it("is a JWS that jose verifies with the served keys, stating the report as received and what was promised", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const jws = await receipt(report.token);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: "EdDSA", typ: "vdp-receipt+jwt", kid: "dev-2026-11" });
    const claims = await claimsOf(jws, await keysNow());
    const record = (await env.DB.prepare("SELECT sha256, received_at FROM vuln_records WHERE vuln_id = ?")
      .bind(report.id)
      .first<{ sha256: string; received_at: string }>())!;
    const seen = (await asReporter("GET", "/v1/p/report", report.token, { headers: { "CF-Connecting-IP": nextIp() } })).body.data
      .attributes;
    expect(claims).toEqual({
      report: report.shortcode,
      organization: { id: report.org.id, name: seen.organization_name },
      brief: { id: report.briefId, name: seen.brief_name },
      received_at: record.received_at,
      record_sha256: record.sha256,
      policy_version: null,
      deadlines: {
        acknowledge: seen.expectations.acknowledge.due_at,
        triage: seen.expectations.triage.due_at,
        disclosure: null,
      },
      iat: expect.any(Number),
    });
    expect(Math.abs(claims.iat * 1000 - Date.now())).toBeLessThan(120_000);
  });

  it("states the policy version in force when the report was sent, which a later change of the terms does not move", async () => {
    const org = await organization();
    const terms = await api("POST", "/v1/policies", {
      key: org.key,
      body: { data: { type: "policy", attributes: { name: "VDP", safe_harbor: "full", published_at: PUBLISHED } } },
    });
    const p = terms.body.data;
    const b = await brief(org, { published_at: PUBLISHED }, p.id);
    const first = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode, realQueue: true });
    await untilStored(first);
    const v1 = (await api("GET", `/v1/policies/${p.id}/versions/1`, { key: org.key })).body.data.attributes;
    // The terms change after the report: version 2, for the reports after it only.
    await api("PATCH", `/v1/policies/${p.id}`, {
      key: org.key,
      body: { data: { type: "policy", id: p.id, attributes: { safe_harbor: "partial" } } },
    });
    const second = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode, realQueue: true });
    await untilStored(second);
    const v2 = (await api("GET", `/v1/policies/${p.id}/versions/2`, { key: org.key })).body.data.attributes;
    const jwks = await keysNow();
    expect((await claimsOf(await receipt(first.token), jwks)).policy_version).toEqual({ number: 1, sha256: v1.sha256 });
    expect((await claimsOf(await receipt(second.token), jwks)).policy_version).toEqual({ number: 2, sha256: v2.sha256 });
    // The immutable record keeps it; the reporter reads it, with where to read the terms themselves.
    const record = await env.DB.prepare("SELECT policy_version_number, policy_version_sha256 FROM vuln_records WHERE vuln_id = ?")
      .bind(first.id)
      .first();
    expect(record).toEqual({ policy_version_number: 1, policy_version_sha256: v1.sha256 });
    const seen = (await asReporter("GET", "/v1/p/report", first.token, { headers: { "CF-Connecting-IP": nextIp() } })).body.data.attributes;
    expect(seen.policy_version).toEqual({
      number: 1,
      sha256: v1.sha256,
      created_at: v1.created_at,
      url: `/v1/p/policies/${p.attributes.shortcode}/versions/1`,
    });
    const page = await browse("GET", `/r/${first.token}`);
    expect(page.text).toContain(`SHA-256 ${v1.sha256}`);
    expect(page.text).toContain(`href="/v1/p/policies/${p.attributes.shortcode}/versions/1"`);
    expect((await api("GET", seen.policy_version.url)).body.data.attributes.terms.safe_harbor).toBe("full");
  });

  it("fails to verify once a claim is changed, even re-encoded cleanly", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const [header, payload, signature] = (await receipt(report.token)).split(".") as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
    const forged = base64url.encode(JSON.stringify({ ...claims, received_at: "2020-01-01T00:00:00.000Z" }));
    await expect(claimsOf(`${header}.${forged}.${signature}`, await keysNow())).rejects.toThrow();
    await expect(claimsOf(`${header}.${payload}.${signature}`, await keysNow())).resolves.toMatchObject({ report: report.shortcode });
  });

  it("after a key rotation, comes signed by the new key, and the old receipts still verify with the keys served", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const before = await receipt(report.token);
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const fresh = { kid: "2027-01", ...((await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey) };
    const rotated = JSON.stringify([
      { kid: fresh.kid, kty: fresh.kty, crv: fresh.crv, x: fresh.x, d: fresh.d },
      JSON.parse(env.RECEIPT_SIGNING_KEY),
    ]);
    await withEnv({ ...env, RECEIPT_SIGNING_KEY: rotated }, async () => {
      const jwks = await keysNow();
      expect(jwks.keys.map((k) => k.kid)).toEqual(["2027-01", "dev-2026-11"]);
      const after = await receipt(report.token);
      expect(decodeProtectedHeader(after).kid).toBe("2027-01");
      for (const jws of [before, after]) await expect(claimsOf(jws, jwks)).resolves.toMatchObject({ report: report.shortcode });
    });
  });

  it("is a download on the report page too, the same claims, linked once the report is stored", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const page = await browse("GET", `/r/${report.token}`);
    expect(page.text).toContain(`href="/r/${report.token}/receipt" download`);
    const file = await browse("GET", `/r/${report.token}/receipt`);
    expect([file.status, file.headers.get("Content-Type"), file.headers.get("Content-Disposition")]).toEqual([
      200,
      "application/jose",
      `attachment; filename="receipt-${report.shortcode}.jws"; filename*=UTF-8''receipt-${report.shortcode}.jws`,
    ]);
    const { iat: _, ...claims } = await claimsOf(file.text, await keysNow());
    const { iat: __, ...viaApi } = await claimsOf(await receipt(report.token), await keysNow());
    expect(claims).toEqual(viaApi);
  });

  it("with the signing key misconfigured, is a 500 that names nothing secret, logged with what to fix", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const logs = expectedErrorLogs();
    const devPrivate = JSON.parse(env.RECEIPT_SIGNING_KEY).d as string;
    await withEnv({ ...env, RECEIPT_SIGNING_KEY: `{"kid":"k1","d":"${devPrivate}"` }, async () => {
      for (const res of [
        await browse("GET", "/.well-known/vdp-keys.json"),
        await asReporter("GET", "/v1/p/report/receipt", report.token, { headers: { "CF-Connecting-IP": nextIp() } }),
      ]) {
        expect(res.status).toBe(500);
        expect(res.text).not.toMatch(new RegExp(`RECEIPT_SIGNING_KEY|${devPrivate}`));
      }
    });
    expect(logs.map((l) => l.error ?? l.message).join("\n")).toMatch(/RECEIPT_SIGNING_KEY is not JSON/);
  });

  it("is a 409 until the report is stored, which writes nothing", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    // The queue is captured, so the intake never runs for this report.
    const sent = await api("POST", `/v1/p/briefs/${b.attributes.shortcode}/vulns`, {
      body: { data: { type: "vuln", attributes: { title: "Open redirect", description: "next= takes any URL." } } },
      contentType: "application/json",
      headers: { "CF-Connecting-IP": nextIp() },
      env: { EVENTS: fakeQueue().queue },
    });
    expect(sent.status).toBe(201);
    const res = await asReporter("GET", "/v1/p/report/receipt", sent.body.data.attributes.follow_up_token, {
      headers: { "CF-Connecting-IP": nextIp() },
    });
    expect([res.status, res.body.errors[0].code, res.body.errors[0].detail]).toEqual([409, "conflict", expect.stringMatching(/stored/)]);
    // The page says it is not ready, and links nothing.
    const token = sent.body.data.attributes.follow_up_token;
    expect((await browse("GET", `/r/${token}`)).text).toContain("Ready once your report is delivered.");
    const early = await browse("GET", `/r/${token}/receipt`);
    expect([early.status, early.text.includes("Your receipt is ready once your report is delivered")]).toEqual([409, true]);
  });
});

describe("GET /v1/p/report/timeline", () => {
  const sha256 = async (text: string) =>
    [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
  /** The chain as a third party checks it: each prev_sha256 is the SHA-256 of the previous entry's RFC 8785 JSON (canonicalize). */
  const chainHolds = async (entries: Record<string, string | null>[]) => {
    for (const [i, entry] of entries.entries()) {
      const expected = i === 0 ? null : await sha256(canonicalize(entries[i - 1])!);
      if (entry.prev_sha256 !== expected) return false;
    }
    return true;
  };

  it("is a signed, hash-chained list of what concerns the reporter, oldest first: never a comment's text nor an internal note", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const say = (body: string, visibility: string) =>
      api("POST", `/v1/vulns/${report.id}/comments`, {
        key: report.org.key,
        body: { data: { type: "comment", attributes: { body, visibility } } },
      });
    expect((await say("INTERNAL: maybe a dupe", "internal")).status).toBe(201);
    expect((await say("Thanks, we reproduced it.", "reporter")).status).toBe(201);
    const answer = "It also works on /team.";
    expect(
      (
        await asReporter("POST", "/v1/p/report/comments", report.token, {
          headers: { "CF-Connecting-IP": nextIp() },
          body: { data: { type: "comment", attributes: { body: answer } } },
        })
      ).status,
    ).toBe(201);
    const moved = await api("PATCH", `/v1/vulns/${report.id}`, {
      key: report.org.key,
      body: { data: { type: "vuln", id: report.id, attributes: { triage_state: "triaged" } } },
    });
    expect(moved.status).toBe(200);

    const res = await asReporter("GET", "/v1/p/report/timeline", report.token, { headers: { "CF-Connecting-IP": nextIp() } });
    expect([res.status, res.headers.get("Content-Type")]).toEqual([200, "application/jose"]);
    expect(decodeProtectedHeader(res.text)).toEqual({ alg: "EdDSA", typ: "vdp-timeline+jwt", kid: "dev-2026-11" });
    const timeline = await claimsOf(res.text, await keysNow());
    expect(timeline.report).toBe(report.shortcode);
    const entries = timeline.entries as Record<string, string | null>[];
    expect(entries.map((e) => e.type)).toEqual([
      "received",
      "stored",
      "acknowledged",
      "comment",
      "deadline_met",
      "comment",
      "triage_changed",
      "deadline_met",
    ]);
    const record = (await env.DB.prepare("SELECT sha256 FROM vuln_records WHERE vuln_id = ?").bind(report.id).first<{ sha256: string }>())!;
    expect(entries[1]).toMatchObject({ record_sha256: record.sha256 });
    expect(entries.filter((e) => e.type === "comment").map((e) => [e.author, e.sha256])).toEqual([
      ["organization", await sha256("Thanks, we reproduced it.")],
      ["reporter", await sha256(answer)],
    ]);
    expect(entries[6]).toMatchObject({ from: "new", to: "triaged" });
    expect(entries.filter((e) => e.type === "deadline_met").map((e) => e.deadline)).toEqual(["acknowledge", "triage"]);
    expect(res.text).not.toContain("INTERNAL");
    expect(JSON.stringify(timeline)).not.toMatch(/maybe a dupe|reproduced it|also works/);
    // Every link of the chain holds, as canonicalize and SHA-256 compute it; without an entry it does not.
    expect(await chainHolds(entries)).toBe(true);
    expect(await chainHolds(entries.filter((_, i) => i !== 3))).toBe(false);
    expect(await chainHolds(entries.map((e, i) => (i === 2 ? { ...e, at: "2020-01-01T00:00:00.000Z" } : e)))).toBe(false);
  });

  it("names each published revision of an advisory about the report, the withdrawal too, never a draft", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    const key = report.org.key;
    const advisory = await api("POST", "/v1/advisories", {
      key,
      body: {
        data: {
          type: "advisory",
          attributes: {
            title: "Stored XSS in profiles",
            summary: "A profile name ran script.",
            affected: [{ vendor: "Acme", product: "Widget", versions: [{ version: "1.0.0", status: "affected" }] }],
          },
          relationships: { vulns: { data: [{ type: "vuln", id: report.id }] } },
        },
      },
    });
    expect(advisory.status, advisory.text).toBe(201);
    const id = advisory.body.data.id;
    const advisoryFacts = async () => {
      const res = await asReporter("GET", "/v1/p/report/timeline", report.token, { headers: { "CF-Connecting-IP": nextIp() } });
      const entries = (await claimsOf(res.text, await keysNow())).entries as Record<string, string | null>[];
      expect(await chainHolds(entries)).toBe(true);
      return entries.filter((e) => e.type === "advisory").map(({ advisory_id, revision, state }) => ({ advisory_id, revision, state }));
    };
    expect(await advisoryFacts()).toEqual([]);
    const change = (attributes: Record<string, unknown>) =>
      api("PATCH", `/v1/advisories/${id}`, { key, body: { data: { type: "advisory", id, attributes } } });
    expect((await change({ state: "published" })).status).toBe(200);
    expect((await change({ remediation: "Upgrade to 1.0.1.", revision_note: "Fix released." })).status).toBe(200);
    expect((await change({ state: "withdrawn", revision_note: "Not our product after all." })).status).toBe(200);
    expect(await advisoryFacts()).toEqual([
      { advisory_id: id, revision: "1", state: "published" },
      { advisory_id: id, revision: "2", state: "published" },
      { advisory_id: id, revision: "3", state: "withdrawn" },
    ]);
  });

  it("says when a promise was missed: a breached deadline at its due time", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    // The organization promised acknowledgement in 72 hours; three days and a minute later nobody has.
    const later = new Date(Date.now() + 72 * 3_600_000 + 60_000);
    const { signTimeline } = await import("../../src/services/timeline");
    const { findReport } = await import("../../src/services/reporter");
    const { createDb } = await import("../../src/db");
    const db = createDb(env.DB);
    const opened = await findReport(db, await sha256(report.token));
    if (!opened || opened === "gone") throw new Error("the report did not open");
    const claims = await claimsOf(await signTimeline(db, opened, { keys: env.RECEIPT_SIGNING_KEY, now: later }), await keysNow());
    expect(claims.entries.map((e: { type: string; deadline?: string }) => `${e.type}${e.deadline ? ` ${e.deadline}` : ""}`)).toEqual([
      "received",
      "stored",
      "deadline_breached acknowledge",
    ]);
  });
});

describe("the coordinator package", () => {
  it("is offered on the report page once a promise is 14 days past due, with the receipt, the timeline and the record, all checkable", async () => {
    const report = await submitReport(undefined, {}, { realQueue: true });
    await untilStored(report);
    // Not yet: the organization still has time.
    expect((await browse("GET", `/r/${report.token}`)).text).not.toContain("/package");
    expect((await browse("GET", `/r/${report.token}/package`)).status).toBe(409);
    // Acknowledgement was promised in 72 hours: 14 days past that, nobody has answered.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const due14 = Date.now() + (72 + 14 * 24) * 3_600_000;
      vi.setSystemTime(due14 - 60_000);
      expect((await browse("GET", `/r/${report.token}`)).text).not.toContain("/package");
      vi.setSystemTime(due14 + 60_000);
      const page = await browse("GET", `/r/${report.token}`);
      expect(page.text).toContain(`href="/r/${report.token}/package" download`);
      const file = await browse("GET", `/r/${report.token}/package`);
      expect([file.status, file.headers.get("Content-Type"), file.headers.get("Content-Disposition")]).toEqual([
        200,
        "application/json",
        `attachment; filename="coordinator-package-${report.shortcode}.json"; filename*=UTF-8''coordinator-package-${report.shortcode}.json`,
      ]);
      const bundle = JSON.parse(file.text);
      expect(bundle.about).toMatch(/CSIRT/);
      expect(bundle.keys_url).toBe(`${env.PUBLIC_ORIGIN}/.well-known/vdp-keys.json`);
      // Whatever Host the request named (a custom domain's, a forged one): the keys are the deployment's.
      const elsewhere = await api("GET", `/r/${report.token}/package`, { origin: "https://attacker.example" });
      expect([elsewhere.status, JSON.parse(elsewhere.text).keys_url]).toEqual([200, `${env.PUBLIC_ORIGIN}/.well-known/vdp-keys.json`]);
      // Everything in it checks out with the keys it carries, by jose and SHA-256 alone.
      const receiptClaims = await claimsOf(bundle.receipt, bundle.keys);
      const timeline = await claimsOf(bundle.timeline, bundle.keys);
      expect(timeline.entries.map((e: { type: string }) => e.type)).toContain("deadline_breached");
      const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(bundle.record.canonical)))]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
      expect([digest, bundle.record.sha256]).toEqual([receiptClaims.record_sha256, receiptClaims.record_sha256]);
      expect(JSON.parse(bundle.record.canonical)).toMatchObject({ title: "Stored XSS in the profile name" });
    } finally {
      vi.useRealTimers();
    }
  });
});
