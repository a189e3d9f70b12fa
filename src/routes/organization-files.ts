import { type Context, Hono } from "hono";
import { advisoryLinks, type AdvisoryDocument } from "../lib/advisory";
import { csafDocument } from "../lib/advisory-csaf";
import { atomFeed, csafChanges, csafIndex, providerMetadata, type Publisher, rolieFeed } from "../lib/advisory-feeds";
import { findPublicAdvisory } from "../services/advisories";
import type { AppEnv } from "../http/app-env";
import { cachedPublicBody, customDomainFilePath, type OrganizationFile, organizationFilePath, publicAdvisoryPath } from "../http/cache";
import { database } from "../http/middleware";
import { domainName, routeBy, slugName } from "../http/shard-lookup";
import { declare } from "../http/route-facts";
import { NotFound } from "../lib/domain-errors";
import { normalizeUuid } from "../lib/ids";
import { isUnder, platformHost } from "../lib/public-hosts";
import { findOrganizationAdvisories, findSecurityTxtSource } from "../services/organization-files";
import { SECURITY_TXT_TYPE, securityTxt } from "../templates/security-txt";
import { limitAddress } from "./pages/shared";

const JSON_TYPE = "application/json";
// Files for any tool, no key: any web page may read them too (CORS). In a sharded deployment each reads
// its organization's shard, found by the slug its path names, or by the custom domain it is asked on.
const file = [declare({ public: true }), database(), routeBy((c) => slugName(c.req.param("slug")))] as const;
const onDomain = [declare({ public: true }), database(), routeBy((c) => domainName(c.req.url))] as const;
const notOnThisHost = () => new NotFound("policy", "No published policy has this host as its verified custom domain.");
const TEXT_TYPE = "text/plain; charset=utf-8";

type Render = (publisher: Publisher, docs: AdvisoryDocument[], origin: string, now: string) => string;

/** One of the files made from an organization's published advisories: cached under its slug, evicted by each publication. */
async function advisoryFile(c: Context<AppEnv>, file: OrganizationFile, contentType: string, render: Render): Promise<Response> {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const slug = (c.req.param("slug") ?? "").toLowerCase();
  const response = await cachedPublicBody(c, organizationFilePath(slug, file), contentType, async () => {
    const found = await findOrganizationAdvisories(c.var.database.db, slug);
    return found && render(found.publisher, found.docs, c.env.PUBLIC_ORIGIN, new Date().toISOString());
  });
  if (!response) throw new NotFound("organization", "No organization has that slug.");
  return response;
}

/**
 * The files an organization publishes for machines, no key: its security.txt at /o/{slug}/security.txt
 * and at /.well-known/security.txt on the verified custom domain of one of its published policies; its
 * advisories as an Atom feed, and as a CSAF 2.0 provider's files under /o/{slug}/csaf/. Served from
 * the edge cache like the public reads, evicted by every change of the policy behind them.
 */
export const organizationFilesRouter = new Hono<AppEnv>()
  .get("/o/:slug/security.txt", ...file, async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    const slug = c.req.param("slug").toLowerCase();
    const path = organizationFilePath(slug, "security.txt");
    const response = await cachedPublicBody(c, path, SECURITY_TXT_TYPE, async () => {
      const now = new Date();
      const source = await findSecurityTxtSource(c.var.database.db, { slug }, now.toISOString());
      return source && securityTxt(source, c.env.PUBLIC_ORIGIN, `${c.env.PUBLIC_ORIGIN}${path}`, now);
    });
    if (!response) throw new NotFound("organization", "No organization with that slug has a published policy.");
    return response;
  })
  .get("/o/:slug/advisories.atom", ...file, (c) =>
    advisoryFile(c, "advisories.atom", "application/atom+xml; charset=utf-8", (p, docs, origin, now) => atomFeed(p, docs, origin, now)),
  )
  .get("/o/:slug/csaf/provider-metadata.json", ...file, (c) =>
    advisoryFile(c, "csaf/provider-metadata.json", JSON_TYPE, (p, docs, origin, now) =>
      JSON.stringify(providerMetadata(p, docs, origin, now)),
    ),
  )
  .get("/o/:slug/csaf/white/feed-tlp-white.json", ...file, (c) =>
    advisoryFile(c, "csaf/white/feed-tlp-white.json", JSON_TYPE, (p, docs, origin, now) => JSON.stringify(rolieFeed(p, docs, origin, now))),
  )
  .get("/o/:slug/csaf/white/index.txt", ...file, (c) => advisoryFile(c, "csaf/white/index.txt", TEXT_TYPE, (_, docs) => csafIndex(docs)))
  .get("/o/:slug/csaf/white/changes.csv", ...file, (c) =>
    advisoryFile(c, "csaf/white/changes.csv", "text/csv; charset=utf-8", (_, docs) => csafChanges(docs)),
  )
  // A document of the directory: the advisory's CSAF rendering, kept in the cache under the advisory's own path.
  .get("/o/:slug/csaf/white/:year/:file", ...file, async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    // File names are the tracking id in lower case, as the feeds write them.
    const m = /^vdp-(.+)\.json$/.exec(c.req.param("file"));
    const id = m && normalizeUuid(m[1]!) === m[1] ? m[1] : null;
    const slug = c.req.param("slug").toLowerCase();
    const notHere = () => new NotFound("advisory", "The organization's CSAF directory has no such document.");
    if (!id) throw notHere();
    const doc = await findPublicAdvisory(c.var.database.db, id);
    if (!doc || doc.publisher.slug !== slug || doc.published_at.slice(0, 4) !== c.req.param("year")) throw notHere();
    const response = await cachedPublicBody(c, publicAdvisoryPath(id, "csaf"), JSON_TYPE, async () =>
      JSON.stringify(csafDocument(doc, advisoryLinks(c.env.PUBLIC_ORIGIN, id), c.env.SERVICE_NAME)),
    );
    return response!;
  })
  .get("/.well-known/security.txt", ...onDomain, async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    const host = new URL(c.req.url).hostname.toLowerCase();
    // The platform's own hosts speak for no organization, whatever a policy names.
    if (isUnder(host, platformHost(c.env.PUBLIC_ORIGIN))) throw notOnThisHost();
    const response = await cachedPublicBody(c, customDomainFilePath(host, "security.txt"), SECURITY_TXT_TYPE, async () => {
      const now = new Date();
      const source = await findSecurityTxtSource(c.var.database.db, { host }, now.toISOString());
      // On its own domain the file names itself there, always https (RFC 9116 asks for it).
      return source && securityTxt(source, c.env.PUBLIC_ORIGIN, `https://${host}/.well-known/security.txt`, now);
    });
    if (!response) throw notOnThisHost();
    return response;
  });
