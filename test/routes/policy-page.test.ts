import { describe, expect, it } from "vitest";
import { api, browse, patch } from "../helpers/api";
import { brief, organization, policy, PUBLISHED } from "../helpers/factories";

// A published policy's page for people: its terms, where to report under it, and every version of its
// terms; cached at the edge like the brief page, and evicted by the writes that change what it shows.

describe("GET /p/{shortcode}", () => {
  it("shows a published policy's terms, its open programs and its versions, cached until a change evicts it", async () => {
    const org = await organization({ name: "Acme Security" });
    const p = await policy(org, { name: "Acme VDP", safe_harbor: "full", cvd_timeline: 90, published_at: PUBLISHED });
    const code = p.attributes.shortcode as string;
    const open = await brief(org, { name: "Acme web", published_at: PUBLISHED }, p.id);
    await brief(org, { name: "Acme draft" }, p.id);

    const first = await browse("GET", `/p/${code.toLowerCase()}`);
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(first.headers.get("X-Cache")).toBe("MISS");
    expect(first.text).toContain("<h1>Acme VDP</h1>");
    expect(first.text).toContain("90 days to fix before coordinated disclosure.");
    expect(first.text).toContain(`<a href="/b/${open.attributes.shortcode}">Acme web</a>`);
    expect(first.text).not.toContain("Acme draft");
    const v1 = (await api("GET", `/v1/policies/${p.id}/versions/1`, { key: org.key })).body.data.attributes;
    expect(first.text).toContain(`href="/v1/p/policies/${code}/versions/1">Version 1</a>`);
    expect(first.text).toContain(`SHA-256 ${v1.sha256}`);
    expect((await browse("GET", `/p/${code}`)).headers.get("X-Cache")).toBe("HIT");

    // A change of the terms evicts it: the new timeline and version 2 show at once.
    expect(
      (await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", id: p.id, attributes: { cvd_timeline: 45 } } })).status,
    ).toBe(200);
    const changed = await browse("GET", `/p/${code}`);
    expect(changed.headers.get("X-Cache")).toBe("MISS");
    expect(changed.text).toContain("45 days to fix");
    expect(changed.text).toContain(">Version 2</a>");

    // So does a brief joining it, and one leaving it.
    const joined = await brief(org, { name: "Acme mobile", published_at: PUBLISHED }, p.id);
    expect((await browse("GET", `/p/${code}`)).text).toContain("Acme mobile");
    const left = await patch(`/v1/briefs/${joined.id}`, org.key, {
      data: { type: "brief", id: joined.id, relationships: { policy: { data: null } } },
    });
    expect(left.status).toBe(200);
    expect((await browse("GET", `/p/${code}`)).text).not.toContain("Acme mobile");
  });

  it("is a 404 page for a draft, an unknown code or one that cannot be a code", async () => {
    const org = await organization();
    const draft = await policy(org, { name: "Draft" });
    for (const path of [`/p/${draft.attributes.shortcode}`, "/p/ZZZZ-ZZZZ", "/p/not-a-code", "/p/x/y"]) {
      const res = await browse("GET", path);
      expect([path, res.status, res.headers.get("Content-Type")]).toEqual([path, 404, "text/html; charset=utf-8"]);
      expect(res.text).toContain("Not found");
    }
    // Unpublishing evicts the page it had.
    const p = await policy(org, { name: "Soon gone", published_at: PUBLISHED });
    expect((await browse("GET", `/p/${p.attributes.shortcode}`)).status).toBe(200);
    await patch(`/v1/policies/${p.id}`, org.key, { data: { type: "policy", id: p.id, attributes: { published_at: null } } });
    expect((await browse("GET", `/p/${p.attributes.shortcode}`)).status).toBe(404);
  });
});
