import { type AdvisoryDocument, csafTrackingId } from "./advisory";

// An organization's published advisories as CSAF 2.0's distribution expects them of a provider
// (provider-metadata.json, a ROLIE feed, index.txt and changes.csv over a directory of documents
// named <year>/<tracking id>.json), and as an Atom feed (RFC 4287). Public advisories only, TLP WHITE.
// Every URL is absolute, on the deployment's public origin.

export interface Publisher {
  name: string;
  slug: string;
  websiteUrl: string | null;
}

/** Where an organization's CSAF files are, and each document's path under its directory. */
export const csafBase = (origin: string, slug: string) => `${origin}/o/${encodeURIComponent(slug)}/csaf`;
export const csafDirectory = (origin: string, slug: string) => `${csafBase(origin, slug)}/white`;
/** A document's path under the directory: the year of its first release, then its tracking id (CSAF 2.0's file name rule). */
export const csafFilePath = (doc: Pick<AdvisoryDocument, "id" | "published_at">) =>
  `${doc.published_at.slice(0, 4)}/${csafTrackingId(doc)}.json`;

const namespaceOf = (p: Publisher, origin: string) => p.websiteUrl ?? `${origin}/o/${p.slug}`;

/** The newest change first; the last change of a document is its latest revision. */
const newestFirst = (docs: readonly AdvisoryDocument[]) =>
  [...docs].sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id));

export function providerMetadata(p: Publisher, docs: readonly AdvisoryDocument[], origin: string, now: string) {
  const directory = csafDirectory(origin, p.slug);
  return {
    canonical_url: `${csafBase(origin, p.slug)}/provider-metadata.json`,
    distributions: [
      {
        directory_url: `${directory}/`,
        rolie: {
          feeds: [{ summary: `All TLP:WHITE advisories of ${p.name}.`, tlp_label: "WHITE", url: `${directory}/feed-tlp-white.json` }],
        },
      },
    ],
    last_updated: newestFirst(docs)[0]?.updated_at ?? now,
    list_on_CSAF_aggregators: true,
    metadata_version: "2.0",
    mirror_on_CSAF_aggregators: true,
    publisher: { category: "vendor", name: p.name, namespace: namespaceOf(p, origin) },
    role: "csaf_provider",
  };
}

export function rolieFeed(p: Publisher, docs: readonly AdvisoryDocument[], origin: string, now: string) {
  const directory = csafDirectory(origin, p.slug);
  const sorted = newestFirst(docs);
  return {
    feed: {
      id: `${p.slug}-csaf-feed-tlp-white`,
      title: `${p.name} CSAF feed (TLP:WHITE)`,
      link: [{ rel: "self", href: `${directory}/feed-tlp-white.json` }],
      category: [{ scheme: "urn:ietf:params:rolie:category:information-type", term: "csaf" }],
      updated: sorted[0]?.updated_at ?? now,
      entry: sorted.map((doc) => {
        const href = `${directory}/${csafFilePath(doc)}`;
        return {
          id: csafTrackingId(doc),
          title: doc.title,
          link: [{ rel: "self", href }],
          published: doc.published_at,
          updated: doc.updated_at,
          summary: { content: doc.summary },
          content: { type: "application/json", src: href },
          format: { schema: "https://docs.oasis-open.org/csaf/csaf/v2.0/csaf_json_schema.json", version: "2.0" },
        };
      }),
    },
  };
}

/** index.txt: every document's path under the directory, one a line. */
export function csafIndex(docs: readonly AdvisoryDocument[]): string {
  return newestFirst(docs)
    .map((d) => `${csafFilePath(d)}\n`)
    .join("");
}

/** changes.csv: each document's path and the time of its last change, the newest first (CSAF 2.0, 7.1.13). */
export function csafChanges(docs: readonly AdvisoryDocument[]): string {
  return newestFirst(docs)
    .map((d) => `"${csafFilePath(d)}","${d.updated_at}"\n`)
    .join("");
}

/** Whether XML 1.0 allows a character at all, even escaped (tab, line feed, carriage return and the rest from space on). */
const xmlChar = (ch: string) => {
  const c = ch.codePointAt(0)!;
  return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c !== 0xfffe && c !== 0xffff);
};
const xml = (s: string) =>
  [...s]
    .filter(xmlChar)
    .join("")
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);

/** The organization's advisories as an Atom feed, newest change first. */
export function atomFeed(p: Publisher, docs: readonly AdvisoryDocument[], origin: string, now: string): string {
  const self = `${origin}/o/${encodeURIComponent(p.slug)}/advisories.atom`;
  const sorted = newestFirst(docs);
  const entries = sorted.map(
    (d) => `  <entry>
    <id>urn:uuid:${d.id}</id>
    <title>${xml(d.state === "withdrawn" ? `Withdrawn: ${d.title}` : d.title)}</title>
    <link rel="alternate" type="text/html" href="${xml(`${origin}/a/${d.id}`)}"/>
    <link rel="alternate" type="application/json" title="CSAF" href="${xml(`${origin}/v1/p/advisories/${d.id}/csaf`)}"/>
    <published>${d.published_at}</published>
    <updated>${d.updated_at}</updated>
    <summary>${xml(d.summary)}</summary>
${d.cve_id ? `    <category term="${xml(d.cve_id)}"/>\n` : ""}  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${xml(self)}</id>
  <title>${xml(`${p.name} security advisories`)}</title>
  <link rel="self" href="${xml(self)}"/>
  <link rel="related" type="application/json" title="CSAF provider metadata" href="${xml(`${csafBase(origin, p.slug)}/provider-metadata.json`)}"/>
  <author><name>${xml(p.name)}</name></author>
  <updated>${sorted[0]?.updated_at ?? now}</updated>
${entries.join("\n")}
</feed>
`;
}
