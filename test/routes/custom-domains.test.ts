import { env, withEnv } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { api, BASE, get, post } from "../helpers/api";
import { interleaved } from "../helpers/d1-faults";
import { fakeDns, txtAnswer } from "../helpers/dns";
import { organization, organizationBeside, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { databaseOf } from "../helpers/shards";
import { runScheduled } from "../../src/scheduled";

// A policy's custom domain serves its organization's security.txt, so it is one policy's on the whole
// platform, never the platform's own host, and serves nothing until the organization proved control
// of it with a TXT record (checked over DNS-over-HTTPS; the resolver here is a fake, see helpers/dns.ts).

let a: TestOrganization;
let b: TestOrganization;
beforeAll(async () => {
  a = await organization();
  b = await organization();
});

let dns: ReturnType<typeof fakeDns>;
afterEach(() => dns?.restore());

let sequence = 0;
const domain = () => `security-${++sequence}-${a.slug}.example.org`;
const pointer = "/data/attributes/custom_domain";
const setDomain = (org: TestOrganization, id: string, custom_domain: string | null, opts = {}) =>
  api("PATCH", `/v1/policies/${id}`, { key: org.key, body: { data: { type: "policy", id, attributes: { custom_domain } } }, ...opts });
const verify = (org: TestOrganization, id: string) => post(`/v1/policies/${id}/verify_custom_domain`, org.key, undefined);
const securityTxt = (host: string) => api("GET", "/.well-known/security.txt", { origin: `https://${host}` });
const verification = async (org: TestOrganization, id: string) =>
  (await get(`/v1/policies/${id}`, org.key)).body.data.attributes.custom_domain_verification;

describe("a custom domain is one policy's on the whole platform", () => {
  it("refuses another organization's domain, in any case, and the same organization's second policy: 422 at custom_domain", async () => {
    const host = domain();
    const mine = await policy(a, { custom_domain: host, published_at: PUBLISHED });
    for (const claim of [host, host.toUpperCase(), `${host}.`]) {
      const created = await post("/v1/policies", b.key, { data: { type: "policy", attributes: { name: "Theirs", custom_domain: claim } } });
      expect([claim, created.status, created.body.errors?.[0]?.source]).toEqual([claim, 422, { pointer }]);
      expect(created.body.errors[0].detail).toMatch(/already the custom domain of another policy/);
    }
    const theirs = await policy(b);
    const moved = await setDomain(b, theirs.id, host.toUpperCase());
    expect([moved.status, moved.body.errors[0].source]).toEqual([422, { pointer }]);
    expect((await get(`/v1/policies/${theirs.id}`, b.key)).body.data.attributes.custom_domain).toBeNull();
    const second = await post("/v1/policies", a.key, { data: { type: "policy", attributes: { custom_domain: host } } });
    expect([second.status, second.body.errors[0].source]).toEqual([422, { pointer }]);

    // Sending the domain it already has changes nothing, its verification included.
    const before = await verification(a, mine.id);
    expect((await setDomain(a, mine.id, host.toUpperCase())).status).toBe(200);
    expect(await verification(a, mine.id)).toEqual(before);

    // Released, it is free again, with a token of the new claim's own.
    expect((await setDomain(a, mine.id, null)).body.data.attributes.custom_domain_verification).toBeNull();
    const claimed = await setDomain(b, theirs.id, host);
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.attributes.custom_domain_verification.record_value).not.toBe(before.record_value);
  });

  it("keeps another organization from taking over a verified domain's security.txt by publishing later", async () => {
    dns = fakeDns();
    const host = domain();
    const mine = await policy(a, { name: "A's", custom_domain: host, published_at: PUBLISHED });
    dns.publish(`_vdp-challenge.${host}`, mine.attributes.custom_domain_verification?.record_value ?? "none");
    await verify(a, mine.id);
    const theirs = await post("/v1/policies", b.key, {
      data: { type: "policy", attributes: { name: "B's", custom_domain: host, published_at: new Date().toISOString() } },
    });
    expect(theirs.status).toBe(422);
    const served = await securityTxt(host);
    expect(served.status).toBe(200);
    expect(served.text).toContain(`Policy: ${BASE}/p/${mine.attributes.shortcode}`);
  });

  it("lets the index decide between two claims at once: the second is a 422, never a 500", async () => {
    const host = domain();
    const first = await policy(a);
    const second = await policy(b);
    // B's change has read its policy; A's claim lands before B's write.
    const db = interleaved(2, async () => expect((await setDomain(a, first.id, host)).status).toBe(200));
    const lost = await setDomain(b, second.id, host, { env: { DB: db } });
    expect([lost.status, lost.body.errors[0].source]).toEqual([422, { pointer }]);
    expect((await get(`/v1/policies/${second.id}`, b.key)).body.data.attributes.custom_domain).toBeNull();
    expect((await get(`/v1/policies/${first.id}`, a.key)).body.data.attributes.custom_domain).toBe(host);
  });

  it("refuses the platform's own host and its subdomains, and hosts that are not public", async () => {
    await withEnv({ ...env, PUBLIC_ORIGIN: "https://vdp.example.com" }, async () => {
      for (const host of ["vdp.example.com", "VDP.example.com", "security.vdp.example.com"]) {
        const res = await post("/v1/policies", a.key, { data: { type: "policy", attributes: { custom_domain: host } } });
        expect([host, res.status, res.body.errors[0].source]).toEqual([host, 422, { pointer }]);
        expect(res.body.errors[0].detail).toMatch(/this platform's own host/);
      }
      // Its parent and look-alikes are other people's names.
      for (const host of ["example.com", "vdp.example.com.evil.example", "notvdp.example.com"]) {
        const res = await post("/v1/policies", a.key, { data: { type: "policy", attributes: { custom_domain: host } } });
        expect([host, res.status]).toEqual([host, 201]);
        await setDomain(a, res.body.data.id, null);
      }
    });
    for (const host of [
      "security.localhost",
      "vdp.internal",
      "printer.local",
      "a.home.arpa",
      "x.onion",
      "127.0.0.1.nip.io",
      "api.vdp.test",
    ]) {
      const res = await post("/v1/policies", a.key, { data: { type: "policy", attributes: { custom_domain: host } } });
      expect([host, res.status, res.body.errors[0].source]).toEqual([host, 422, { pointer }]);
    }
  });
});

describe("a custom domain serves nothing until its organization proved control", () => {
  it("answers 404 while unverified, says which record to publish, and serves the file once the record is found", async () => {
    dns = fakeDns();
    const host = domain();
    const p = await policy(a, { name: "Acme VDP", custom_domain: host, published_at: PUBLISHED });
    const pending = p.attributes.custom_domain_verification;
    expect(pending).toEqual({
      status: "pending",
      record_type: "TXT",
      record_name: `_vdp-challenge.${host}`,
      record_value: expect.stringMatching(/^[0-9a-f]{32}$/),
      claimed_at: p.attributes.updated_at,
      expires_at: new Date(Date.parse(p.attributes.updated_at) + 7 * 86_400_000).toISOString(),
      checked_at: null,
      verified_at: null,
      failure_reason: null,
    });
    expect((await securityTxt(host)).status).toBe(404);

    // No record yet: the check says so, the domain stays unverified.
    const missing = await verify(a, p.id);
    expect(missing.status).toBe(200);
    expect(missing.body.data.attributes.custom_domain_verification).toMatchObject({
      status: "pending",
      checked_at: expect.any(String),
      verified_at: null,
      failure_reason: `No TXT record was found at _vdp-challenge.${host}.`,
    });
    expect(dns.asked).toEqual([{ url: `${env.DNS_OVER_HTTPS_URL}?name=_vdp-challenge.${host}&type=TXT`, accept: "application/dns-json" }]);
    // A record with another value (someone else's token) does not prove this claim.
    dns.publish(`_vdp-challenge.${host}`, "0123456789abcdef0123456789abcdef", "v=spf1 -all");
    expect((await verify(a, p.id)).body.data.attributes.custom_domain_verification.failure_reason).toBe(
      `The TXT records at _vdp-challenge.${host} do not hold this policy's record_value.`,
    );
    expect((await securityTxt(host)).status).toBe(404);

    dns.publish(`_vdp-challenge.${host}`, "v=spf1 -all", pending.record_value);
    const verified = await verify(a, p.id);
    expect(verified.status).toBe(200);
    expect(verified.body.data.attributes.custom_domain_verification).toMatchObject({
      status: "verified",
      record_value: pending.record_value,
      verified_at: expect.any(String),
      expires_at: null,
      failure_reason: null,
    });
    const served = await securityTxt(host);
    expect([served.status, served.headers.get("X-Cache")]).toEqual([200, "MISS"]);
    expect(served.text).toContain(`Canonical: https://${host}/.well-known/security.txt`);
    expect(served.text).toContain(`Policy: ${BASE}/p/${p.attributes.shortcode}`);
    expect((await securityTxt(host)).headers.get("X-Cache")).toBe("HIT");

    // Verified stays verified: asking again reads no DNS and changes nothing.
    const asked = dns.asked.length;
    const again = await verify(a, p.id);
    expect(again.body.data.attributes.custom_domain_verification).toEqual(verified.body.data.attributes.custom_domain_verification);
    expect(dns.asked.length).toBe(asked);
  });

  it("needs verifying again after the domain changes: the old one answers 404 at once, the new one once proven", async () => {
    dns = fakeDns();
    const [old, next] = [domain(), domain()];
    const p = await policy(a, { custom_domain: old, published_at: PUBLISHED });
    dns.publish(`_vdp-challenge.${old}`, p.attributes.custom_domain_verification.record_value);
    expect((await verify(a, p.id)).body.data.attributes.custom_domain_verification.status).toBe("verified");
    expect((await securityTxt(old)).status).toBe(200);

    const moved = await setDomain(a, p.id, next);
    const fresh = moved.body.data.attributes.custom_domain_verification;
    expect(fresh).toMatchObject({ status: "pending", record_name: `_vdp-challenge.${next}`, verified_at: null, checked_at: null });
    expect(fresh.record_value).not.toBe(p.attributes.custom_domain_verification.record_value);
    expect((await securityTxt(old)).status).toBe(404);
    expect((await securityTxt(next)).status).toBe(404);
    // The old domain's record proves nothing for the new one.
    dns.publish(`_vdp-challenge.${next}`, p.attributes.custom_domain_verification.record_value);
    expect((await verify(a, p.id)).body.data.attributes.custom_domain_verification.status).toBe("pending");
    dns.publish(`_vdp-challenge.${next}`, fresh.record_value);
    expect((await verify(a, p.id)).body.data.attributes.custom_domain_verification.status).toBe("verified");
    expect((await securityTxt(next)).status).toBe(200);
  });

  it("keeps a domain unverified, with the reason, when the resolver fails", async () => {
    dns = fakeDns();
    const host = domain();
    const p = await policy(a, { custom_domain: host, published_at: PUBLISHED });
    dns.publish(`_vdp-challenge.${host}`, p.attributes.custom_domain_verification.record_value);
    const failures: [Parameters<typeof dns.answer>[0], RegExp][] = [
      [() => new Response("busy", { status: 503 }), /answered HTTP 503/],
      [() => Response.json({ Status: 2 }), /could not resolve .* \(SERVFAIL\)/],
      [() => new Response("<html>", { headers: { "Content-Type": "text/html" } }), /did not answer in DNS JSON/],
      [
        () => {
          throw new Error("connection reset");
        },
        /could not be reached/,
      ],
    ];
    for (const [answer, reason] of failures) {
      dns.answer(answer);
      const res = await verify(a, p.id);
      expect(res.status).toBe(200);
      const v = res.body.data.attributes.custom_domain_verification;
      expect([v.status, v.verified_at]).toEqual(["pending", null]);
      expect(v.failure_reason).toMatch(/^The DNS-over-HTTPS resolver /);
      expect(v.failure_reason).toMatch(reason);
      expect((await securityTxt(host)).status).toBe(404);
    }
    dns.answer(null);
    expect((await verify(a, p.id)).body.data.attributes.custom_domain_verification).toMatchObject({
      status: "verified",
      failure_reason: null,
    });
  });

  it("answers a policy without a custom domain with a 422, and another organization's policy with a 404", async () => {
    const p = await policy(a);
    const none = await verify(a, p.id);
    expect([none.status, none.body.errors[0].code]).toEqual([422, "unprocessable_entity"]);
    expect(none.body.errors[0].detail).toMatch(/no custom_domain/);
    const q = await policy(a, { custom_domain: domain() });
    expect((await verify(b, q.id)).status).toBe(404);
  });

  it("does not verify a claim that changed while its record was being looked up", async () => {
    const [old, next] = [domain(), domain()];
    const p = await policy(a, { custom_domain: old, published_at: PUBLISHED });
    dns = fakeDns();
    // The lookup finds the old claim's record; meanwhile the policy moved to another domain.
    dns.answer(async (name) => {
      dns.answer(null);
      expect((await setDomain(a, p.id, next)).status).toBe(200);
      return txtAnswer(name, [p.attributes.custom_domain_verification.record_value]);
    });
    const res = await verify(a, p.id);
    expect([res.status, res.body.errors[0].code]).toEqual([409, "conflict"]);
    expect(await verification(a, p.id)).toMatchObject({ record_name: `_vdp-challenge.${next}`, status: "pending", checked_at: null });
    expect((await securityTxt(next)).status).toBe(404);
  });
});

describe("the cron", () => {
  it("checks pending claims on its own, and releases a claim still unverified after 7 days", async () => {
    dns = fakeDns();
    const [proven, idle] = [domain(), domain()];
    const p = await policy(a, { custom_domain: proven, published_at: PUBLISHED });
    const q = await policy(b, { custom_domain: idle, published_at: PUBLISHED });
    dns.publish(`_vdp-challenge.${proven}`, p.attributes.custom_domain_verification.record_value);
    const claimedAt = Date.parse(q.attributes.custom_domain_verification.claimed_at);

    await runScheduled(env, new Date(claimedAt + 60_000));
    expect((await verification(a, p.id)).status).toBe("verified");
    expect((await securityTxt(proven)).status).toBe(200);
    expect(await verification(b, q.id)).toMatchObject({
      status: "pending",
      failure_reason: `No TXT record was found at _vdp-challenge.${idle}.`,
    });

    // Checked a minute ago: not again yet; five minutes later, again.
    const lookups = () => dns.asked.filter((a) => a.url.includes(`name=_vdp-challenge.${idle}&`)).length;
    expect(lookups()).toBe(1);
    await runScheduled(env, new Date(claimedAt + 2 * 60_000));
    expect(lookups()).toBe(1);
    await runScheduled(env, new Date(claimedAt + 7 * 60_000));
    expect(lookups()).toBe(2);

    await runScheduled(env, new Date(claimedAt + 7 * 86_400_000 + 60_000));
    const released = (await get(`/v1/policies/${q.id}`, b.key)).body.data.attributes;
    expect([released.custom_domain, released.custom_domain_verification]).toEqual([null, null]);
    // The verified one stays; the released domain is free for anyone.
    expect((await verification(a, p.id)).status).toBe("verified");
    expect((await policy(a, { custom_domain: idle })).attributes.custom_domain).toBe(idle);
  });
});

describe("the policies_custom_domain_* migrations, on a database from before custom domains were claims", () => {
  it("keep the earliest of duplicate domains, clear the others, and start each kept one unverified with a value of its own", async () => {
    // Two organizations of one database (a sharded world's shard of `a`), the database the migrations replay on.
    const b = await organizationBeside(a);
    const db = await databaseOf(a.id);
    const run = async (name: string, only: (query: string) => boolean = () => true) => {
      const migration = env.TEST_MIGRATIONS.find((m) => m.name.includes(`_${name}`))!;
      await db.batch(migration.queries.filter(only).map((q) => db.prepare(q)));
    };
    const [host, alone] = [domain(), domain()];
    const first = await policy(a, { published_at: PUBLISHED });
    const later = await policy(b, { published_at: PUBLISHED });
    const latest = await policy(b);
    const other = await policy(a);
    // As before policies_custom_domain_verification: no unique index and no claims, and one domain named three times, in two cases.
    await db.prepare("DROP INDEX policies_custom_domain_unique_idx").run();
    const legacy = (id: string, name: string) =>
      db
        .prepare(
          "UPDATE policies SET custom_domain = ?, custom_domain_token = NULL, custom_domain_claimed_at = NULL, custom_domain_verified_at = NULL WHERE id = ?",
        )
        .bind(name, id);
    await db.batch([legacy(first.id, host), legacy(later.id, host.toUpperCase()), legacy(latest.id, host), legacy(other.id, alone)]);

    await run("policies_custom_domain_unique_claims");
    await run("policies_custom_domain_verification", (q) => q.includes("CREATE UNIQUE INDEX"));
    await run("policies_custom_domain_claims_backfill");

    const kept = (await get(`/v1/policies/${first.id}`, a.key)).body.data.attributes;
    expect([kept.custom_domain, kept.custom_domain_verification.status]).toEqual([host, "pending"]);
    expect(kept.custom_domain_verification.record_value).toMatch(/^[0-9a-f]{32}$/);
    for (const cleared of [later, latest]) {
      const attributes = (await get(`/v1/policies/${cleared.id}`, b.key)).body.data.attributes;
      expect([attributes.custom_domain, attributes.custom_domain_verification]).toEqual([null, null]);
      expect(attributes.updated_at > cleared.attributes.updated_at).toBe(true);
    }
    const untouched = (await get(`/v1/policies/${other.id}`, a.key)).body.data.attributes;
    expect(untouched.custom_domain).toBe(alone);
    expect(untouched.custom_domain_verification.record_value).not.toBe(kept.custom_domain_verification.record_value);
    // Nothing is served before its organization proves control, and the index holds again.
    expect((await securityTxt(host)).status).toBe(404);
    expect((await setDomain(b, later.id, host)).status).toBe(422);
  });
});
