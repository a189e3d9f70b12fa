import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db";
import { inList, isUniqueViolation, where, whenRefused, subquery } from "../db/queries";
import {
  type AdvisoryRevisionRow,
  type AdvisoryRow,
  type AdvisoryState,
  advisories,
  advisoryRevisions,
  advisoryVulns,
  type CreditInput,
  organizations,
  policies,
  vulns,
} from "../db/schema";
import { advisoryEvent } from "../events/outbox";
import {
  type AdvisoryDocument,
  advisoryDocument,
  type AdvisoryPublisher,
  type AffectedProduct,
  type Credit,
  renderingProblems,
  type RevisionEntry,
} from "../lib/advisory";
import { baseCvss, type CvssRating } from "../lib/cvss";
import { Conflict, Invalid, NotFound, Unprocessable, attribute, relationship, type Problem } from "../lib/domain-errors";
import { nowIso, uuidv7 } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import { readersOf, tenantFilter, type ServiceContext } from "./context";
import { listPage, type ListQuery } from "./list-pages";
import { sentMembers } from "./audit";
import { commit, consequence, Plan, readBatch } from "./unit-of-work";
import type { Stale } from "../lib/stale";
import { mayChange } from "./access";
import { withNames } from "./catalog";

// Advisories: what an organization tells the world about vulnerabilities it fixed. A draft changes
// freely and is the organization's alone. Publishing freezes revision 1; every later change of a
// published advisory, and its withdrawal, freezes the next with its reason (revision_note), and every
// revision stays readable. A frozen revision is the whole advisory as published (AdvisoryDocument), from
// which the public renderings are made. The organization's own key writes; operators read.

export interface AdvisoryInput {
  title?: string;
  summary?: string | null;
  description?: string | null;
  affected?: AffectedProduct[];
  remediation?: string | null;
  references?: string[];
  cve_id?: string | null;
  cvss_vector?: CvssRating | null;
  cwe_ids?: string[];
  credits?: CreditInput[];
  state?: AdvisoryState;
  revision_note?: string;
}

export type AdvisoryRecord = AdvisoryRow & { vulnIds: string[] };

/** The note a first publication is frozen with unless it is given one. */
export const FIRST_PUBLICATION_NOTE = "Initial publication";

const notFound = () => new NotFound("advisory", "No advisory has that id.");
const vulnIdsColumn = {
  vulnIdsJson:
    subquery<string>`(SELECT json_group_array(vuln_id) FROM (SELECT vuln_id FROM advisory_vulns WHERE advisory_id = ${advisories.id}
      ORDER BY vuln_id))`.as("vuln_ids"),
};
export const toRecord = ({ vulnIdsJson, ...row }: AdvisoryRow & { vulnIdsJson: unknown }): AdvisoryRecord => ({
  ...row,
  vulnIds: JSON.parse(vulnIdsJson as string) as string[],
});

async function cveGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "advisories."))
      throw Invalid.at(attribute("cve_id"), "The organization already has an advisory for this CVE id.");
    throw err;
  }
}

export async function listAdvisories(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { state?: AdvisoryState }) {
  const filter = where(tenantFilter(ctx, advisories.organizationId), filters.state ? eq(advisories.state, filters.state) : undefined);
  const { rows, total } = await listPage(readersOf(ctx), advisories, { filter, sort, page, extraColumns: vulnIdsColumn });
  return { rows: rows.map(toRecord), total };
}

const advisoryRead = (ctx: ServiceContext, id: string) =>
  ctx.db
    .select({ ...getTableColumns(advisories), ...vulnIdsColumn })
    .from(advisories)
    .where(where(eq(advisories.id, id), tenantFilter(ctx, advisories.organizationId)));

export async function getAdvisory(ctx: ServiceContext, id: string): Promise<AdvisoryRecord> {
  const [rows] = await readBatch(ctx, [advisoryRead(ctx, id)]);
  if (!rows[0]) throw notFound();
  return toRecord(rows[0]);
}

/** What a change reads besides the advisory: the vulns it names (tenancy applied) and the organization. */
const VULN_FACTS = {
  id: vulns.id,
  cvssVector: vulns.cvssVector,
  cvssScore: vulns.cvssScore,
  cweIds: vulns.cweIds,
  creditName: vulns.creditName,
  creditConsent: vulns.creditConsent,
};
function vulnsRead(ctx: ServiceContext, organizationId: string, ids: readonly string[]) {
  return ctx.db
    .select(VULN_FACTS)
    .from(vulns)
    .where(and(inList(vulns.id, ids), eq(vulns.organizationId, organizationId)));
}
type VulnFacts = {
  id: string;
  cvssVector: string | null;
  cvssScore: number | null;
  cweIds: string[];
  creditName: string | null;
  creditConsent: boolean;
};

const ORGANIZATION_FACTS = {
  id: organizations.id,
  name: organizations.name,
  slug: organizations.slug,
  websiteUrl: organizations.websiteUrl,
};
const organizationRead = (ctx: ServiceContext, organizationId: string) =>
  ctx.db.select(ORGANIZATION_FACTS).from(organizations).where(eq(organizations.id, organizationId));
type OrganizationFacts = AdvisoryPublisher;

function assertVulnsOwned(ids: readonly string[], found: readonly VulnFacts[]) {
  const known = new Set(found.map((v) => v.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) throw Invalid.at(relationship("vulns", { entry: missing }), "vuln does not exist.");
}

/** A credit of a reporter must name one of the advisory's vulns whose reporter consented, with a name. */
function assertCredits(credits: readonly CreditInput[], facts: readonly VulnFacts[], vulnIds: readonly string[]) {
  credits.forEach((credit, i) => {
    if (!("reporter_of" in credit)) return;
    const member = attribute(`credits.${i}.reporter_of`);
    if (!vulnIds.includes(credit.reporter_of)) throw Invalid.at(member, "must be one of the advisory's vulns.");
    const vuln = facts.find((v) => v.id === credit.reporter_of);
    if (!vuln?.creditConsent || !vuln.creditName)
      throw Invalid.at(
        member,
        "The reporter of this vuln has not consented to be credited (they set credit_name and credit_consent on their report).",
      );
  });
}

/** The credits as published: names given, and each consenting reporter's chosen name (one who withdrew consent is left out). */
export function resolvedCredits(credits: readonly CreditInput[], facts: readonly VulnFacts[]): Credit[] {
  const out = credits.flatMap((c): Credit[] => {
    if ("name" in c) return [{ name: c.name, type: c.type }];
    const vuln = facts.find((v) => v.id === c.reporter_of);
    return vuln?.creditConsent && vuln.creditName ? [{ name: vuln.creditName, type: c.type }] : [];
  });
  return out.filter((c, i) => out.findIndex((d) => d.name === c.name && d.type === c.type) === i);
}

/** Defaults from the vulns: the highest-scoring vector's base, and their CWE ids together. */
function defaultsFrom(facts: readonly VulnFacts[]) {
  const scored = facts.filter((v) => v.cvssVector).sort((a, b) => (b.cvssScore ?? 0) - (a.cvssScore ?? 0))[0];
  const cwes = [...new Set(facts.flatMap((v) => v.cweIds))].slice(0, LIMITS.cweIdsPerVuln);
  return { cvssVector: scored?.cvssVector ? (baseCvss(scored.cvssVector)?.vector ?? null) : null, cweIds: cwes };
}

/** The organization's policy pages, which list its advisories: a publication makes them stale. */
const policyPagesOf = (ctx: ServiceContext, organizationId: SQL) =>
  ctx.db.select({ shortcode: policies.shortcode }).from(policies).where(sql`${policies.organizationId} = ${organizationId}`);

/** Refuses an advisory that could not be published as it stands. */
function assertPublishable(row: AdvisoryRow) {
  const problems: Problem[] = [];
  if (!row.summary) problems.push({ detail: "A published advisory needs a summary.", source: { member: attribute("summary") } });
  if (!row.affected.some((p) => p.versions.some((v) => v.status === "affected")))
    problems.push({
      detail: "A published advisory names at least one affected version.",
      source: { member: attribute("affected") },
    });
  // A row written before the request schema checked what the renderings need is checked again here.
  problems.push(...renderingProblems(row));
  if (problems.length) throw new Invalid(problems);
}

/**
 * The statements that freeze `row`'s revision: the revision itself, the disclosure its publication
 * makes (the vulns' disclosure deadline is met by the first), and Advisory::Published.
 */
function freeze(
  ctx: ServiceContext,
  p: Plan<unknown>,
  args: {
    row: AdvisoryRow;
    vulnIds: string[];
    facts: VulnFacts[];
    organization: OrganizationFacts;
    history: RevisionEntry[];
    note: string;
    now: string;
    /** Right after the update of the advisory's row, and only if it changed it. */
    chained?: boolean;
  },
) {
  const { row, vulnIds, facts, organization, now } = args;
  const history = [...args.history, { number: row.revision, date: now, note: args.note }];
  const document = advisoryDocument(row, organization, resolvedCredits(row.credits, facts), history);
  // Chained on the statement just before it (the change of the advisory's row): when a concurrent change
  // left that one nothing to update, the number comes out NULL and the database refuses the whole batch.
  const number = args.chained ? sql<number>`CASE WHEN changes() > 0 THEN ${row.revision} END` : sql<number>`${row.revision}`;
  p.add(
    ctx.db.insert(advisoryRevisions).select(
      ctx.db
        .select({
          id: sql<string>`${uuidv7()}`.as("id"),
          advisoryId: sql<string>`${row.id}`.as("advisory_id"),
          number: number.as("number"),
          note: sql<string>`${args.note}`.as("note"),
          document: sql<string>`${JSON.stringify(document)}`.as("document"),
          createdAt: sql<string>`${now}`.as("created_at"),
        })
        .from(advisories)
        .where(eq(advisories.id, row.id)),
    ),
  );
  if (row.state !== "published") return;
  p.add(
    consequence(
      ctx.db
        .update(vulns)
        .set({ disclosedAt: sql`coalesce(${vulns.disclosedAt}, ${now})` })
        .where(and(inList(vulns.id, vulnIds), eq(vulns.organizationId, row.organizationId))),
    ),
  );
  const body = {
    advisory: {
      id: row.id,
      title: row.title,
      cve_id: row.cveId,
      revision: row.revision,
      published_at: row.publishedAt!,
      vuln_ids: vulnIds,
    },
  };
  const published = advisoryEvent(ctx.db, row.organizationId, body, now);
  p.add(published.statement, published.event);
}

export async function createAdvisory(
  ctx: ServiceContext,
  input: AdvisoryInput & { title: string },
  vulnIds: string[],
): Promise<AdvisoryRecord> {
  mayChange(ctx, "advisories");
  const organizationId = ctx.caller.organizationId!;
  const ids = [...new Set(vulnIds)].sort();
  const [facts, orgs, pages] = await readBatch(ctx, [
    vulnsRead(ctx, organizationId, ids),
    organizationRead(ctx, organizationId),
    policyPagesOf(ctx, sql`${organizationId}`),
  ]);
  assertVulnsOwned(vulnIds, facts);
  const credits = input.credits ?? [];
  assertCredits(credits, facts, ids);
  if (input.state === "withdrawn") throw Invalid.at(attribute("state"), "Only a published advisory may be withdrawn.");
  const defaults = defaultsFrom(facts);
  const now = nowIso();
  const publishing = input.state === "published";
  const row: AdvisoryRow = {
    id: uuidv7(),
    organizationId,
    state: publishing ? "published" : "draft",
    revision: publishing ? 1 : 0,
    title: input.title,
    summary: input.summary ?? null,
    description: input.description ?? null,
    affected: input.affected ?? [],
    remediation: input.remediation ?? null,
    references: input.references ?? [],
    cveId: input.cve_id ?? null,
    cvssVector: input.cvss_vector === undefined ? defaults.cvssVector : (input.cvss_vector?.vector ?? null),
    cweIds: input.cwe_ids ?? defaults.cweIds,
    credits,
    publishedAt: publishing ? now : null,
    withdrawnAt: null,
    createdAt: now,
    updatedAt: now,
  };
  if (publishing) assertPublishable(row);
  else if (input.revision_note !== undefined) throw noRevision();
  const record: AdvisoryRecord = { ...row, vulnIds: ids };
  const target = { type: "advisory", id: row.id };
  const p = new Plan(record)
    .add(ctx.db.insert(advisories).values(row))
    .audits({ action: "advisory.create", target, changed: sentMembers({ ...input, vulns: ids }), organizationId });
  if (publishing) p.audits({ action: "advisory.publish", target, organizationId });
  for (const vulnId of ids) p.add(ctx.db.insert(advisoryVulns).values({ advisoryId: row.id, vulnId }));
  if (publishing)
    freeze(ctx, p, {
      row,
      vulnIds: ids,
      facts,
      organization: orgs[0]!,
      history: [],
      note: input.revision_note ?? FIRST_PUBLICATION_NOTE,
      now,
    });
  p.evicts(publishing ? staleOfPublication(row.id, orgs[0]!.slug, pages) : DRAFT);
  // A sharded deployment finds the advisory's public reads by its id, claimed across shards first.
  await cveGuard(() => withNames(ctx, { organizationId, names: [{ kind: "advisory", name: row.id }] }, () => commit(ctx, p, ctx.respond)));
  return record;
}

const noRevision = () =>
  Invalid.at(
    attribute("revision_note"),
    "revision_note goes with a publication or a change of a published advisory: nothing is frozen here.",
  );

/** The fields a change may set, from the input over the row as it is. */
function changed(existing: AdvisoryRow, input: AdvisoryInput): AdvisoryRow {
  return {
    ...existing,
    ...(input.title !== undefined && { title: input.title }),
    ...(input.summary !== undefined && { summary: input.summary }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.affected !== undefined && { affected: input.affected }),
    ...(input.remediation !== undefined && { remediation: input.remediation }),
    ...(input.references !== undefined && { references: input.references }),
    ...(input.cve_id !== undefined && { cveId: input.cve_id }),
    ...(input.cvss_vector !== undefined && { cvssVector: input.cvss_vector?.vector ?? null }),
    ...(input.cwe_ids !== undefined && { cweIds: input.cwe_ids }),
    ...(input.credits !== undefined && { credits: input.credits }),
  };
}

const CONTENT: (keyof AdvisoryRow)[] = [
  "title",
  "summary",
  "description",
  "affected",
  "remediation",
  "references",
  "cveId",
  "cvssVector",
  "cweIds",
  "credits",
];

/**
 * One read of advisory `id` and what a change of it (or its preview) reads besides: its latest
 * revision, the vulns it will name (`vulnIds`, or its own), its organization and its policy pages.
 */
export function advisoryAndFacts(ctx: ServiceContext, id: string, vulnIds: readonly string[] | undefined) {
  const seen = subquery`(SELECT id FROM advisories WHERE ${where(eq(advisories.id, id), tenantFilter(ctx, advisories.organizationId))})`;
  return [
    advisoryRead(ctx, id),
    ctx.db
      .select({ document: advisoryRevisions.document })
      .from(advisoryRevisions)
      .where(eq(advisoryRevisions.advisoryId, seen))
      .orderBy(desc(advisoryRevisions.number))
      .limit(1),
    ctx.db
      .select(VULN_FACTS)
      .from(vulns)
      .where(
        and(
          vulnIds === undefined
            ? subquery`${vulns.id} IN (SELECT vuln_id FROM advisory_vulns WHERE advisory_id = ${seen})`
            : inList(vulns.id, vulnIds),
          subquery`${vulns.organizationId} = (SELECT organization_id FROM advisories WHERE id = ${seen})`,
        ),
      ),
    ctx.db
      .select(ORGANIZATION_FACTS)
      .from(organizations)
      .where(subquery`${organizations.id} = (SELECT organization_id FROM advisories WHERE id = ${seen})`),
    policyPagesOf(ctx, subquery`(SELECT organization_id FROM advisories WHERE id = ${seen})`),
  ] as const;
}

/**
 * Changes an advisory. A draft changes in place (and publishes with state: published); a published
 * one freezes the next revision with its revision_note (withdrawal too); a withdrawn one is final.
 */
export async function updateAdvisory(
  ctx: ServiceContext,
  id: string,
  { input, vulnIds }: { input: AdvisoryInput; vulnIds: string[] | undefined },
): Promise<AdvisoryRecord> {
  mayChange(ctx, "advisories");
  const [found, latest, facts, orgs, pages] = await readBatch(ctx, advisoryAndFacts(ctx, id, vulnIds));
  if (!found[0]) throw notFound();
  const existing = toRecord(found[0]);
  if (existing.state === "withdrawn") throw new Unprocessable({ detail: "A withdrawn advisory is final: it does not change." });
  if (input.state === "draft" && existing.state !== "draft")
    throw Invalid.at(attribute("state"), "A published advisory does not return to draft: change it (a new revision) or withdraw it.");
  if (input.state === "withdrawn" && existing.state === "draft")
    throw Invalid.at(attribute("state"), "Only a published advisory may be withdrawn; delete the draft instead.");
  const ids = vulnIds === undefined ? existing.vulnIds : [...new Set(vulnIds)].sort();
  if (vulnIds) assertVulnsOwned(vulnIds, facts);
  const { vulnIds: _, ...existingRow } = existing;
  const next = changed(existingRow, input);
  if (input.credits !== undefined || vulnIds !== undefined) assertCredits(next.credits, facts, ids);
  const now = nowIso();
  const contentChanged =
    CONTENT.some((k) => JSON.stringify(next[k]) !== JSON.stringify(existingRow[k])) || ids.join() !== existing.vulnIds.join();
  let note: string | null = null;
  if (existing.state === "draft" && input.state === "published") {
    Object.assign(next, { state: "published", revision: 1, publishedAt: now });
    note = input.revision_note ?? FIRST_PUBLICATION_NOTE;
  } else if (existing.state === "published" && (contentChanged || input.state === "withdrawn")) {
    if (input.revision_note === undefined)
      throw Invalid.at(attribute("revision_note"), "A change of a published advisory makes a new revision: say why in revision_note.");
    note = input.revision_note;
    Object.assign(next, { revision: existing.revision + 1, ...(input.state === "withdrawn" && { state: "withdrawn", withdrawnAt: now }) });
  } else if (input.revision_note !== undefined) throw noRevision();
  if (note !== null && next.state === "published") assertPublishable(next);
  if (note === null && !contentChanged) return existing;
  next.updatedAt = now;
  const record: AdvisoryRecord = { ...next, vulnIds: ids };
  const p = new Plan(record);
  const update = p.track<D1Result>(
    ctx.db
      .update(advisories)
      .set({ ...next, id: undefined, organizationId: undefined, createdAt: undefined })
      .where(and(eq(advisories.id, id), eq(advisories.updatedAt, existing.updatedAt))),
  );
  p.audits(
    {
      action: next.state === existing.state ? "advisory.update" : next.state === "published" ? "advisory.publish" : "advisory.withdraw",
      target: { type: "advisory", id },
      changed: sentMembers({ ...input, vulns: vulnIds }),
      organizationId: existing.organizationId,
    },
    { ifChanged: update },
  );
  p.evicts(note !== null ? staleOfPublication(id, orgs[0]!.slug, pages) : DRAFT);
  if (note !== null) {
    const history = latest[0]?.document.history ?? [];
    freeze(ctx, p, { row: next, vulnIds: ids, facts, organization: orgs[0]!, history, note, now, chained: true });
  } else if (vulnIds !== undefined) p.add(refuseUnlessChanged(ctx, id));
  if (vulnIds !== undefined) {
    p.add(ctx.db.delete(advisoryVulns).where(eq(advisoryVulns.advisoryId, id)));
    for (const vulnId of ids) p.add(ctx.db.insert(advisoryVulns).values({ advisoryId: id, vulnId }));
  }
  const lost = () => new Conflict("The advisory changed while this request ran; read it again and retry.");
  const { results } = await whenRefused(
    () => cveGuard(() => commit(ctx, p)),
    () => {
      throw lost();
    },
  );
  if ((update.of(results)?.meta?.changes ?? 0) === 0) throw lost();
  return record;
}

/** A draft is never public: its changes make nothing stale. */
const DRAFT: Stale = {};

/** A publication (or a new revision, or a withdrawal) makes stale its read, its organization's files and its policies' pages. */
function staleOfPublication(id: string, organizationSlug: string, pages: { shortcode: string }[]): Stale {
  return { advisories: [id], organizations: [organizationSlug], policies: pages.map((p) => p.shortcode) };
}

/**
 * For the batch of a draft's change, right after its update: refuses the whole batch (a NULL vuln_id,
 * which the column does not take) if the update changed nothing, so a change that lost a race writes
 * none of its reports either. A change that freezes a revision is chained by the revision's insert.
 */
function refuseUnlessChanged(ctx: ServiceContext, id: string) {
  return ctx.db.insert(advisoryVulns).select(
    ctx.db
      .select({ advisoryId: advisories.id, vulnId: sql<string>`NULL`.as("vuln_id") })
      .from(advisories)
      .where(and(eq(advisories.id, id), sql`changes() = 0`)),
  );
}

/** Deletes a draft; what was published stays (withdraw it instead). */
export async function deleteAdvisory(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "advisories");
  const p = new Plan(null).evicts(DRAFT);
  const deleted = p.track<{ id: string }[]>(
    ctx.db
      .delete(advisories)
      .where(and(where(eq(advisories.id, id), tenantFilter(ctx, advisories.organizationId)), eq(advisories.state, "draft")))
      .returning({ id: advisories.id }),
  );
  p.audits({ action: "advisory.delete", target: { type: "advisory", id } }, { ifChanged: deleted });
  const seen = p.track<{ state: string }[]>(
    ctx.db
      .select({ state: advisories.state })
      .from(advisories)
      .where(where(eq(advisories.id, id), tenantFilter(ctx, advisories.organizationId))),
  );
  const { results } = await commit(ctx, p);
  const gone = deleted.of(results)[0];
  if (gone) return void (await ctx.catalog?.release([{ kind: "advisory", name: gone.id }]));
  if (!seen.of(results)[0]) throw notFound();
  throw new Unprocessable({
    detail: "A published advisory is not deleted: what was published stays readable. Withdraw it (state: withdrawn) instead.",
  });
}

/**
 * Reads whether the caller sees advisory `id`, and its revisions that `which` selects (through the
 * advisory, in the caller's tenancy), in one round trip; a 404 when the advisory is not there.
 */
async function revisionsOf(ctx: ServiceContext, id: string, which: SQL): Promise<AdvisoryRevisionRow[]> {
  const seenHere = where(eq(advisories.id, id), tenantFilter(ctx, advisories.organizationId));
  const [seen, rows] = await readBatch(ctx, [
    ctx.db.select({ id: advisories.id }).from(advisories).where(seenHere),
    ctx.db
      .select()
      .from(advisoryRevisions)
      .where(and(which, subquery`${advisoryRevisions.advisoryId} IN (SELECT id FROM advisories WHERE ${seenHere})`))
      .orderBy(advisoryRevisions.number),
  ]);
  if (!seen[0]) throw notFound();
  return rows;
}

/** An advisory's frozen revisions, oldest first (the caller's tenancy, through the advisory). */
export function listAdvisoryRevisions(ctx: ServiceContext, id: string): Promise<AdvisoryRevisionRow[]> {
  return revisionsOf(ctx, id, eq(advisoryRevisions.advisoryId, id));
}

/** One frozen revision of an advisory the caller sees, by number; the 404 says which is missing. */
export async function getAdvisoryRevision(ctx: ServiceContext, id: string, number: number): Promise<AdvisoryRevisionRow> {
  const rows = await revisionsOf(ctx, id, eq(advisoryRevisions.number, number));
  if (!rows[0]) throw new NotFound("advisory_revision", "The advisory has no revision with that number.");
  return rows[0];
}

/** A published (or withdrawn) advisory's latest revision, for anyone; null for a draft or no advisory. */
export async function findPublicAdvisory(db: Db, id: string): Promise<AdvisoryDocument | null> {
  const row = await db
    .select({ document: advisoryRevisions.document })
    .from(advisoryRevisions)
    .where(eq(advisoryRevisions.advisoryId, id))
    .orderBy(desc(advisoryRevisions.number))
    .limit(1)
    .get();
  return row?.document ?? null;
}

/** A published advisory's revision by number, for anyone. */
export async function findPublicAdvisoryRevision(db: Db, id: string, number: number): Promise<AdvisoryDocument | null> {
  const row = await db
    .select({ document: advisoryRevisions.document })
    .from(advisoryRevisions)
    .where(and(eq(advisoryRevisions.advisoryId, id), eq(advisoryRevisions.number, number)))
    .get();
  return row?.document ?? null;
}
