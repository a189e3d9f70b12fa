import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/lib/limits";
import { browse, get, patch, post } from "../helpers/api";
import { organization, policy, PUBLISHED, type TestOrganization } from "../helpers/factories";

// A policy's full text (Markdown): a member of the policy like any other, part of its terms (so of its
// versions and their hashes), and shown on its page as markup that can run nothing.

const sha256 = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
const change = (org: TestOrganization, id: string, attributes: Record<string, unknown>) =>
  patch(`/v1/policies/${id}`, org.key, { data: { type: "policy", id, attributes } });
const versions = async (org: TestOrganization, id: string) =>
  (await get(`/v1/policies/${id}/versions?sort=created_at&page[size]=100`, org.key)).body.data as any[];

const BODY = "# Our policy\n\nReport to [us](mailto:security@acme.example).\n\n| Host | Scope |\n|---|---|\n| acme.example | yes |\n";

describe("a policy's body", () => {
  it("is stored on create and PATCH, read back, cleared with null, and white space alone is null", async () => {
    const org = await organization();
    const created = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "VDP", body: BODY } } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data.attributes.body).toBe(BODY);
    expect((await get(`/v1/policies/${id}`, org.key)).body.data.attributes.body).toBe(BODY);
    expect((await change(org, id, { body: "Changed." })).body.data.attributes.body).toBe("Changed.");
    // Not sent: kept.
    expect((await change(org, id, { name: "VDP 2" })).body.data.attributes.body).toBe("Changed.");
    expect((await change(org, id, { body: " \n\t " })).body.data.attributes.body).toBeNull();
    expect((await change(org, id, { body: "Again" })).body.data.attributes.body).toBe("Again");
    expect((await change(org, id, { body: null })).body.data.attributes.body).toBeNull();
    expect((await get("/v1/policies?page[size]=100", org.key)).body.data.find((p: any) => p.id === id).attributes.body).toBeNull();
  });

  it("is refused over the limit with 422 at its pointer, and nothing changes", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP", body: "Kept." });
    const atLimit = await change(org, p.id, { body: "a".repeat(LIMITS.policyBodyLength) });
    expect(atLimit.status).toBe(200);
    const over = await change(org, p.id, { body: "b".repeat(LIMITS.policyBodyLength + 1) });
    expect(over.status).toBe(422);
    expect(over.body.errors.map((e: any) => [e.source.pointer, e.detail])).toEqual([
      ["/data/attributes/body", `data.attributes.body: must be at most ${LIMITS.policyBodyLength} characters`],
    ]);
    expect((await get(`/v1/policies/${p.id}`, org.key)).body.data.attributes.body).toBe("a".repeat(LIMITS.policyBodyLength));
    const created = await post("/v1/policies", org.key, { data: { type: "policy", attributes: { body: 5 } } });
    expect(created.status).toBe(422);
    expect(created.body.errors[0].source.pointer).toBe("/data/attributes/body");
    expect((await versions(org, p.id)).length).toBe(2);
  });

  it("is part of the terms: a new body is a new version whose hash covers it; the same body again makes none", async () => {
    const org = await organization();
    const p = await policy(org, { name: "VDP" });
    const [v1] = await versions(org, p.id);
    // A policy without a body has the terms it had before bodies existed: no member at all.
    expect(v1.attributes.terms).not.toHaveProperty("body");
    expect((await change(org, p.id, { body: BODY })).status).toBe(200);
    expect((await change(org, p.id, { body: BODY, name: "VDP" })).status).toBe(200);
    expect((await change(org, p.id, {})).status).toBe(200);
    expect((await change(org, p.id, { body: `${BODY}More.\n` })).status).toBe(200);
    const all = await versions(org, p.id);
    expect(all.map((v) => [v.attributes.number, v.attributes.terms.body])).toEqual([
      [1, undefined],
      [2, BODY],
      [3, `${BODY}More.\n`],
    ]);
    for (const v of all) expect(v.attributes.sha256).toBe(await sha256(canonicalize(v.attributes.terms)!));
    expect(all[1].attributes.sha256).not.toBe(all[2].attributes.sha256);
    // Cleared: the terms are those of version 1 again, but a new version all the same (the last one differs).
    expect((await change(org, p.id, { body: null })).status).toBe(200);
    const last = (await versions(org, p.id)).at(-1);
    expect([last.attributes.number, last.attributes.sha256]).toEqual([4, v1.attributes.sha256]);
  });

  it("is rendered on the policy's page as harmless markup, and a PATCH evicts the cached page", async () => {
    const org = await organization();
    const p = await policy(org, { name: "Acme VDP", published_at: PUBLISHED, body: BODY });
    const code = p.attributes.shortcode as string;
    const first = await browse("GET", `/p/${code}`);
    expect(first.status).toBe(200);
    expect(first.text).toContain("<h2>The policy in full</h2>");
    expect(first.text).toContain('<div class="policy-body"><h3>Our policy</h3>');
    expect(first.text).toContain('<a href="mailto:security@acme.example">us</a>');
    expect(first.text).toContain("<td>acme.example</td>");
    expect((await browse("GET", `/p/${code}`)).headers.get("X-Cache")).toBe("HIT");

    const probes =
      '<script>alert("s")</script>\n\n<img src=x onerror=alert("i")>\n\n[j](javascript:alert("j")) [d](data:text/html,x) ' +
      '[v](vbscript:x) <javascript:alert("a")> ![m](https://evil.example/p.png) <iframe src="https://evil.example"></iframe>';
    expect((await change(org, p.id, { body: probes })).status).toBe(200);
    const changed = await browse("GET", `/p/${code}`);
    expect(changed.headers.get("X-Cache")).toBe("MISS");
    const body = changed.text.slice(changed.text.indexOf('<div class="policy-body">'));
    expect(body).toContain("&lt;script&gt;");
    expect(changed.text).not.toMatch(/<(script|img|iframe)\b|href="(javascript|data|vbscript):/i);
    // An event handler only as text: no tag carries one.
    expect(changed.text).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(body).toContain("&lt;img src=x onerror=alert(&quot;i&quot;)&gt;");
    expect(body).toContain("<a>j</a> <a>d</a> <a>v</a>");
    expect(body).toContain('<a href="https://evil.example/p.png">m</a>');
    expect(changed.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
  });
});
