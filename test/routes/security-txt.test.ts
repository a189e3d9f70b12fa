import { afterEach, describe, expect, it } from "vitest";
import { api, BASE, browse, get, patch, post } from "../helpers/api";
import { fakeDns } from "../helpers/dns";
import { brief, organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { rfc9116Problems } from "../helpers/rfc9116";

// security.txt (RFC 9116) for each organization with a published policy, and on a policy's custom
// domain; read by a checker written from the RFC, which is first shown to refuse broken files.

const DAY = 86_400_000;
const fields = (text: string, name: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}: `))
    .map((l) => l.slice(name.length + 2));

describe("the RFC 9116 checker", () => {
  const now = new Date("2026-11-28T10:00:00Z");
  const good = [
    "Contact: mailto:security@example.com",
    "Expires: 2027-06-01T00:00:00Z",
    "Policy: https://vdp.example.com/p/ABCD-2345",
    "Preferred-Languages: en, de",
    "Canonical: https://vdp.example.com/o/acme/security.txt",
    "",
  ].join("\n");
  const servedAt = "https://vdp.example.com/o/acme/security.txt";

  it("takes a good file and refuses each broken one", () => {
    expect(rfc9116Problems(good, { servedAt, now })).toEqual([]);
    const broken: [string, string][] = [
      [good.replace("Contact: mailto:security@example.com\n", ""), "Contact is required"],
      [good.replace("Contact: mailto:", "Contact: http://x.example/"), "must use https"],
      [good.replace("Expires: 2027-06-01T00:00:00Z\n", ""), "exactly once"],
      [`${good}Expires: 2027-06-02T00:00:00Z\n`, "exactly once"],
      [good.replace("2027-06-01T00:00:00Z", "2026-11-01T00:00:00Z"), "in the past"],
      [good.replace("2027-06-01T00:00:00Z", "2028-06-01T00:00:00Z"), "more than a year"],
      [good.replace("2027-06-01T00:00:00Z", "1 June 2027"), "RFC 3339"],
      [good.replace("Policy: ", "Policy "), "neither a comment"],
      [good.replace("Canonical: https://vdp.example.com/o/acme/", "Canonical: https://elsewhere.example/"), "Canonical does not list"],
      [`${good}Preferred-Languages: fr\n`, "more than once"],
      [good.replace("Policy:", "Polic:"), "unknown field"],
      [good.slice(0, -1), "line break"],
    ];
    for (const [text, problem] of broken) expect(rfc9116Problems(text, { servedAt, now }).join("; ")).toContain(problem);
  });
});

describe("GET /o/{slug}/security.txt", () => {
  it("is made from the organization's published policy, cached, and evicted by a change of the policy or its programs", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Acme VDP", point_of_contact: "security@acme.example", published_at: PUBLISHED });
    const code = p.attributes.shortcode as string;
    const b = await brief(org, { name: "Acme web", published_at: PUBLISHED }, p.id);

    const path = `/o/${org.slug}/security.txt`;
    const first = await browse("GET", path);
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(first.headers.get("X-Cache")).toBe("MISS");
    const now = new Date();
    expect(rfc9116Problems(first.text, { servedAt: `${BASE}${path}`, now })).toEqual([]);
    expect(fields(first.text, "Contact")).toEqual(["mailto:security@acme.example", `${BASE}/b/${b.attributes.shortcode}`]);
    expect(fields(first.text, "Policy")).toEqual([`${BASE}/p/${code}`]);
    expect(fields(first.text, "Canonical")).toEqual([`${BASE}${path}`]);
    expect(fields(first.text, "Preferred-Languages")).toEqual(["en"]);
    expect(fields(first.text, "CSAF")).toEqual([`${BASE}/o/${org.slug}/csaf/provider-metadata.json`]);
    // Renewed whenever it is made: within a year, and never less than 363 days ahead.
    const expires = Date.parse(fields(first.text, "Expires")[0]!);
    expect(expires - now.getTime()).toBeGreaterThan(363 * DAY);
    expect(expires - now.getTime()).toBeLessThanOrEqual(365 * DAY);
    // The organization's slug is found whatever its case.
    expect((await browse("GET", path.toUpperCase().replace("/O/", "/o/").replace("/SECURITY.TXT", "/security.txt"))).status).toBe(200);
    expect((await browse("GET", path)).headers.get("X-Cache")).toBe("HIT");

    // A change of the policy evicts it; a web point of contact is named as such.
    await patch(`/v1/policies/${p.id}`, org.key, {
      data: { type: "policy", id: p.id, attributes: { point_of_contact: "https://acme.example/security" } },
    });
    const changed = await browse("GET", path);
    expect(changed.headers.get("X-Cache")).toBe("MISS");
    expect(fields(changed.text, "Contact")[0]).toBe("https://acme.example/security");

    // The program closing evicts it too: with none open, the policy page is where to report.
    await patch(`/v1/briefs/${b.id}`, org.key, { data: { type: "brief", id: b.id, attributes: { published_at: null } } });
    const closed = await browse("GET", path);
    expect(fields(closed.text, "Contact")).toEqual(["https://acme.example/security", `${BASE}/p/${code}`]);
    expect(rfc9116Problems(closed.text, { servedAt: `${BASE}${path}`, now })).toEqual([]);

    // A point of contact security.txt cannot carry (a plain http address, a name) is left out.
    await patch(`/v1/policies/${p.id}`, org.key, {
      data: { type: "policy", id: p.id, attributes: { point_of_contact: "Jane at the desk" } },
    });
    expect(fields((await browse("GET", path)).text, "Contact")).toEqual([`${BASE}/p/${code}`]);

    // Unpublished: nothing to say, a 404 in JSON:API.
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", id: p.id, attributes: { published_at: null } } });
    const gone = await api("GET", path);
    expect(gone.status).toBe(404);
    expect(gone.body.errors[0].status).toBe("404");
  });

  it("speaks for the policy published last, and follows the organization's slug", async () => {
    const org = await organization();
    await policy(org, { name: "Old", published_at: "2026-01-01T00:00:00Z" });
    const newer = await policy(org, { name: "New", published_at: "2026-06-01T00:00:00Z" });
    await policy(org, { name: "Draft" });
    const text = (await browse("GET", `/o/${org.slug}/security.txt`)).text;
    expect(fields(text, "Policy")).toEqual([`${BASE}/p/${newer.attributes.shortcode}`]);

    const renamed = `${org.slug}-renamed`;
    const res = await patch(`/v1/organizations/${org.id}`, org.operatorKey, {
      data: { type: "organization", id: org.id, attributes: { slug: renamed } },
    });
    expect(res.status).toBe(200);
    expect((await browse("GET", `/o/${org.slug}/security.txt`)).status).toBe(404);
    expect(fields((await browse("GET", `/o/${renamed}/security.txt`)).text, "Canonical")).toEqual([`${BASE}/o/${renamed}/security.txt`]);
  });

  it("is a 404 for an organization without a published policy or an unknown slug", async () => {
    const org = await organization();
    await policy(org, { name: "Draft" });
    for (const path of [`/o/${org.slug}/security.txt`, "/o/no-such-organization/security.txt"]) {
      const res = await api("GET", path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});

describe("GET /.well-known/security.txt on a custom domain", () => {
  afterEach(() => dns?.restore());
  let dns: ReturnType<typeof fakeDns> | undefined;
  /** Proves control of the policy's custom domain, as its organization would (custom-domains.test.ts has the rules). */
  async function verified(org: TestOrganization, policyId: string) {
    const { custom_domain_verification: v } = (await get(`/v1/policies/${policyId}`, org.key)).body.data.attributes;
    dns!.publish(v.record_name, v.record_value);
    const res = await post(`/v1/policies/${policyId}/verify_custom_domain`, org.key, undefined);
    expect(res.body.data.attributes.custom_domain_verification.status).toBe("verified");
  }

  it("answers on a published policy's verified custom domain, names itself there, and moves with the domain", async () => {
    dns = fakeDns();
    const org = await organization();
    const host = `security-${org.slug}.example.org`;
    const p = await policy(org, { name: "Acme VDP", custom_domain: host, published_at: PUBLISHED });
    const read = (on: string) => api("GET", "/.well-known/security.txt", { origin: `https://${on}` });
    await verified(org, p.id);

    const res = await read(host);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    const servedAt = `https://${host}/.well-known/security.txt`;
    expect(rfc9116Problems(res.text, { servedAt, now: new Date() })).toEqual([]);
    expect(fields(res.text, "Canonical")).toEqual([servedAt]);
    expect(fields(res.text, "Policy")).toEqual([`${BASE}/p/${p.attributes.shortcode}`]);
    expect((await read(host)).headers.get("X-Cache")).toBe("HIT");
    // Another host, the platform's own included, has no such file.
    expect((await read(`other-${host}`)).status).toBe(404);
    expect((await read("api.vdp.test")).status).toBe(404);

    // A change of the policy evicts the file on its domain too.
    await patch(`/v1/policies/${p.id}`, org.key, {
      data: { type: "policy", id: p.id, attributes: { point_of_contact: "sec@acme.example" } },
    });
    const changed = await read(host);
    expect([changed.headers.get("X-Cache"), fields(changed.text, "Contact")[0]]).toEqual(["MISS", "mailto:sec@acme.example"]);

    // The policy moves to another domain: the old one answers 404 at once, the new one once verified.
    const moved = `new-${host}`;
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", id: p.id, attributes: { custom_domain: moved } } });
    expect((await read(host)).status).toBe(404);
    expect((await read(moved)).status).toBe(404);
    await verified(org, p.id);
    expect(fields((await read(moved)).text, "Canonical")).toEqual([`https://${moved}/.well-known/security.txt`]);
  });
});
