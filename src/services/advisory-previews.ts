import { eq } from "drizzle-orm";
import { inList, where } from "../db/queries";
import { vulns } from "../db/schema";
import { type AdvisoryDocument, advisoryDocument } from "../lib/advisory";
import { Invalid, NotFound, relationship } from "../lib/domain-errors";
import { normalizeVulnShortcode, nowIso } from "../lib/ids";
import { advisoryAndFacts, type AdvisoryRecord, FIRST_PUBLICATION_NOTE, resolvedCredits, toRecord } from "./advisories";
import { tenantFilter, type ServiceContext } from "./context";
import { readBatch } from "./unit-of-work";

// What the console shows of an advisory besides its row: the document its renderings are made from
// (a draft's as publishing it now would freeze it), and the reports it names by the shortcodes people
// quote. Reads only, in the caller's tenancy, so the API could answer them too.

/**
 * Advisory `id` and the document its renderings are made from: a published or withdrawn advisory's
 * latest revision, or what publishing a draft now would freeze (credits resolved by the reporters'
 * consent at this moment, revision 1). One read.
 */
export async function previewAdvisory(
  ctx: ServiceContext,
  id: string,
  now = nowIso(),
): Promise<{ advisory: AdvisoryRecord; document: AdvisoryDocument }> {
  const [found, latest, facts, orgs] = await readBatch(ctx, advisoryAndFacts(ctx, id, undefined));
  if (!found[0] || !orgs[0]) throw new NotFound("advisory", "No advisory has that id.");
  const advisory = toRecord(found[0]);
  if (advisory.state !== "draft" && latest[0]) return { advisory, document: latest[0].document };
  const { vulnIds: _, ...row } = advisory;
  const document = advisoryDocument(
    { ...row, state: "published", revision: 1, publishedAt: now },
    orgs[0],
    resolvedCredits(row.credits, facts),
    [{ number: 1, date: now, note: FIRST_PUBLICATION_NOTE }],
  );
  return { advisory, document };
}

/** A report as an advisory names it: its id, the shortcode people quote, its title. */
export interface NamedReport {
  id: string;
  shortcode: string;
  title: string;
}

const REPORT = { id: vulns.id, shortcode: vulns.shortcode, title: vulns.title };

/** The reports `ids` names that the caller sees (others are left out), in the order given. */
export async function reportsNamed(ctx: ServiceContext, ids: readonly string[]): Promise<NamedReport[]> {
  if (!ids.length) return [];
  const [rows] = await readBatch(ctx, [
    ctx.db
      .select(REPORT)
      .from(vulns)
      .where(where(inList(vulns.id, ids), tenantFilter(ctx, vulns.organizationId))),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The reports of `shortcodes` (as typed: any case, Crockford's look-alikes) among the caller's, in the
 * order given; one that is not a shortcode of the organization's is refused at its entry of `vulns`.
 */
export async function reportsByShortcode(ctx: ServiceContext, shortcodes: readonly string[]): Promise<NamedReport[]> {
  const codes = shortcodes.map((s) => normalizeVulnShortcode(s.trim()));
  const known = codes.filter((c): c is string => c !== null);
  const [rows] = await readBatch(ctx, [
    ctx.db
      .select(REPORT)
      .from(vulns)
      .where(where(known.length ? inList(vulns.shortcode, known) : eq(vulns.id, ""), tenantFilter(ctx, vulns.organizationId))),
  ]);
  const byCode = new Map(rows.map((r) => [r.shortcode, r]));
  const problems = codes.flatMap((c, entry) =>
    c && byCode.has(c)
      ? []
      : [{ detail: `${shortcodes[entry]} is not a report of the organization.`, source: { member: relationship("vulns", { entry }) } }],
  );
  if (problems.length) throw new Invalid(problems);
  return codes.map((c) => byCode.get(c!)!);
}
