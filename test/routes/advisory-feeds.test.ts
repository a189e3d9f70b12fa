import { describe, expect, it } from "vitest";
import { api, BASE, browse, patch, post } from "../helpers/api";
import { organization, type TestOrganization } from "../helpers/factories";
import { submitReport } from "../helpers/reporter";

// An organization's advisories as a CSAF 2.0 provider publishes them (provider metadata, ROLIE feed,
// index.txt, changes.csv, a directory of documents) and as an Atom feed: cached, and evicted by each
// publication. (Their schemas are checked in test/node/advisory-formats.test.ts.)

async function publish(org: TestOrganization, title: string) {
  const r = await submitReport(org);
  const res = await post("/v1/advisories", org.key, {
    data: {
      type: "advisory",
      attributes: {
        title,
        summary: "S",
        state: "published",
        affected: [{ vendor: "Acme", product: "W", versions: [{ version: "1", status: "affected" }] }],
      },
      relationships: { vulns: { data: [{ type: "vuln", id: r.id }] } },
    },
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; attributes: { published_at: string } };
}

describe("the CSAF provider files and the Atom feed", () => {
  it("list the organization's public advisories, and each publication evicts them", async () => {
    const org = await organization({ name: "Acme" });
    const base = `/o/${org.slug}`;
    // Nothing published yet: the files answer, empty.
    expect((await browse("GET", `${base}/csaf/white/index.txt`)).text).toBe("");
    const first = await publish(org, "First");
    const draft = await post("/v1/advisories", org.key, {
      data: {
        type: "advisory",
        attributes: { title: "Draft", affected: [{ vendor: "A", product: "W", versions: [{ version: "1", status: "affected" }] }] },
        relationships: { vulns: { data: [{ type: "vuln", id: (await submitReport(org)).id }] } },
      },
    });
    expect(draft.status).toBe(201);

    const metadata = await api("GET", `${base}/csaf/provider-metadata.json`);
    expect([metadata.status, metadata.headers.get("Content-Type")]).toEqual([200, "application/json"]);
    expect(metadata.body).toMatchObject({
      canonical_url: `${BASE}${base}/csaf/provider-metadata.json`,
      publisher: { category: "vendor", name: "Acme" },
      distributions: [
        {
          directory_url: `${BASE}${base}/csaf/white/`,
          rolie: { feeds: [{ tlp_label: "WHITE", url: `${BASE}${base}/csaf/white/feed-tlp-white.json` }] },
        },
      ],
    });
    const year = first.attributes.published_at.slice(0, 4);
    const file = `${year}/vdp-${first.id}.json`;
    expect((await browse("GET", `${base}/csaf/white/index.txt`)).text).toBe(`${file}\n`);
    const index = await browse("GET", `${base}/csaf/white/index.txt`);
    expect(index.headers.get("X-Cache")).toBe("HIT");
    const feed = (await api("GET", `${base}/csaf/white/feed-tlp-white.json`)).body.feed;
    expect(feed.entry.map((e: { id: string; content: { src: string } }) => [e.id, e.content.src])).toEqual([
      [`vdp-${first.id}`, `${BASE}${base}/csaf/white/${file}`],
    ]);
    // The document the feed names is the advisory's CSAF.
    const doc = await api("GET", `${base}/csaf/white/${file}`);
    expect(doc.body.document.tracking.id).toBe(`vdp-${first.id}`);
    for (const wrong of [
      `${base}/csaf/white/1999/vdp-${first.id}.json`,
      `${base}/csaf/white/${year}/vdp-${draft.body.data.id}.json`,
      `/o/other-org/csaf/white/${file}`,
    ])
      expect([wrong, (await api("GET", wrong)).status]).toEqual([wrong, 404]);
    const atom = await browse("GET", `${base}/advisories.atom`);
    expect(atom.headers.get("Content-Type")).toBe("application/atom+xml; charset=utf-8");
    expect(atom.text).toContain("<title>First</title>");
    expect(atom.text).not.toContain("Draft");

    // The next publication, and a revision, show at once everywhere.
    const second = await publish(org, "Second");
    expect((await browse("GET", `${base}/csaf/white/index.txt`)).text).toBe(`${year}/vdp-${second.id}.json\n${file}\n`);
    await patch(`/v1/advisories/${first.id}`, org.key, {
      data: { type: "advisory", id: first.id, attributes: { title: "First, revised", revision_note: "Title" } },
    });
    const changes = (await browse("GET", `${base}/csaf/white/changes.csv`)).text.split("\n");
    expect(changes[0]).toMatch(new RegExp(`^"${file}","\\d{4}-`));
    expect((await browse("GET", `${base}/advisories.atom`)).text).toContain("<title>First, revised</title>");
    expect((await api("GET", `${base}/csaf/white/${file}`)).body.document.tracking.version).toBe("2");
    expect((await api("GET", "/o/no-such-org/csaf/provider-metadata.json")).status).toBe(404);
  });
});
