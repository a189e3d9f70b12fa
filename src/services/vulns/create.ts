import { eq } from "drizzle-orm";
import { briefs, notifications, type Submission, vulns } from "../../db/schema";
import { subquery, where, whenRefused } from "../../db/queries";
import { vulnEvent } from "../../events/outbox";
import { craDueTimes, dueColumns, dueTimes, nextLookMs, responseTargetsOf, type TargetsInput, type VulnTargets } from "../../lib/deadlines";
import { Invalid, NotFound, relationship } from "../../lib/domain-errors";
import { nowIso, uuidv7, vulnShortcode } from "../../lib/ids";
import { isPublished } from "../../lib/maturity";
import { receiptRow } from "../../notifications/rows";
import { tenantFilter, type ServiceContext } from "../context";
import { commit, Plan, readBatch } from "../unit-of-work";
import { domainStatements } from "./domains";
import { exploitationOf, NOTHING_MET, triageOf, unique } from "./members";
import { UNGATED, type VulnInput, type VulnRecord } from "./types";
import { mayChange } from "../access";

/** Where a brief is named: by id for an organization's own entry; by shortcode through the public brief (published only). */
type BriefRef = { id: string } | { shortcode: string };

/** A brief that takes no report, told as the way it was named (`found`: it is there, unpublished). */
function noBrief(brief: BriefRef, found: boolean) {
  if (!("id" in brief)) return new NotFound("brief", "No published brief has that shortcode.");
  return Invalid.at(relationship("brief"), found ? "brief is not published." : "brief does not exist.");
}

/** The brief a report comes through, with its organization's name and the promises of its policy; refused unless published. */
async function briefOf(ctx: ServiceContext, brief: BriefRef, now: string) {
  const [found] = await readBatch(ctx, [
    ctx.db
      .select({
        id: briefs.id,
        organizationId: briefs.organizationId,
        publishedAt: briefs.publishedAt,
        name: briefs.name,
        organizationName: subquery<string>`(SELECT name FROM organizations WHERE organizations.id = ${briefs.organizationId})`,
        // The promises of the brief's policy (none: the defaults, and no disclosure timeline).
        responseTargets: subquery<string | null>`(SELECT response_targets FROM policies WHERE policies.id = ${briefs.policyId})`,
        cvdTimeline: subquery<number | null>`(SELECT cvd_timeline FROM policies WHERE policies.id = ${briefs.policyId})`,
        // The version of those promises in force now: the report keeps it.
        policyVersion: subquery<string | null>`(SELECT json_object('id', id, 'number', number, 'sha256', sha256) FROM policy_versions
          WHERE policy_versions.policy_id = ${briefs.policyId} ORDER BY number DESC LIMIT 1)`,
      })
      .from(briefs)
      .where(
        "id" in brief ? where(eq(briefs.id, brief.id), tenantFilter(ctx, briefs.organizationId)) : eq(briefs.shortcode, brief.shortcode),
      ),
  ]);
  const row = found[0];
  if (!row || !isPublished(row.publishedAt, now)) throw noBrief(brief, Boolean(row));
  return row;
}

type Brief = Awaited<ReturnType<typeof briefOf>>;

/** The promises a report keeps from its brief's policy: its targets (the defaults where none) and its disclosure timeline. */
const targetsOf = (brief: Brief): VulnTargets => ({
  ...responseTargetsOf(brief.responseTargets ? (JSON.parse(brief.responseTargets) as TargetsInput) : null),
  disclosure_days: brief.cvdTimeline ?? null,
});

type NewVuln = Omit<VulnRecord, "domains" | "lastActivityAt" | "lastActivityBy" | "keyRecord">;

/** The row of a new report at `now`: new, open, dispatching to the intake, its deadlines running from now. */
function newVuln(
  brief: Brief,
  input: VulnInput,
  {
    now,
    raw,
    followUpTokenHash,
    reportPage,
  }: { now: string; raw: Omit<Submission, "received_at">; followUpTokenHash: string | null; reportPage?: string },
): NewVuln {
  const triage = triageOf(input);
  const version = brief.policyVersion ? (JSON.parse(brief.policyVersion) as { id: string; number: number; sha256: string }) : null;
  const targets = targetsOf(brief);
  const { value: exploitation, problem } = exploitationOf(input, undefined, now);
  if (problem) throw Invalid.at(problem.member, problem.detail);
  const due = {
    ...dueTimes(targets, Date.parse(now), triage.severity, 0),
    ...craDueTimes({ ...exploitation, triageState: "new", closedAt: null }),
  };
  return {
    revision: 0,
    id: uuidv7(),
    assigneeId: null,
    organizationId: brief.organizationId,
    briefId: brief.id,
    shortcode: vulnShortcode(),
    title: input.title,
    description: input.description,
    contactEmail: input.contact_email ?? null,
    // Only a reporter's own submission (with its token) e-mails the reporter.
    notifyReporter: Boolean(reportPage && input.contact_email && input.notify_me !== false),
    reporterUnsubscribedAt: null,
    policyVersionId: version?.id ?? null,
    policyVersionNumber: version?.number ?? null,
    policyVersionSha256: version?.sha256 ?? null,
    tags: unique(input.tags),
    inboxState: "dispatching",
    processingState: "open",
    triageState: "new",
    duplicateOfId: null,
    infoRequestedFrom: null,
    infoRequestedAt: null,
    acknowledgedAt: null,
    triagedAt: null,
    closedAt: null,
    closedBy: null,
    disclosedAt: null,
    creditName: null,
    creditConsent: false,
    targets,
    ...dueColumns(due),
    pausedMs: 0,
    ...exploitation,
    craEarlyWarningMetAt: null,
    craNotificationMetAt: null,
    craFinalReportMetAt: null,
    nextAlertMs: nextLookMs({ due, met: NOTHING_MET, triageState: "new", targets, severity: triage.severity }),
    overdue: 0,
    readAt: null,
    ...triage,
    ...UNGATED,
    submission: { ...raw, received_at: now },
    followUpTokenHash,
    createdAt: now,
    updatedAt: now,
  };
}

/** The reporter's receipt of a new report, with its page's link and the first promises' due times. */
const receiptOf = (brief: Brief, vuln: NewVuln, { reportPage, now }: { reportPage: string; now: string }) =>
  receiptRow({
    report: {
      id: vuln.id,
      organizationId: vuln.organizationId,
      shortcode: vuln.shortcode,
      title: vuln.title,
      brief: brief.name,
      organization: brief.organizationName,
    },
    to: vuln.contactEmail!,
    link: reportPage,
    receivedAt: now,
    acknowledgeDueAt: vuln.acknowledgeDueMs === null ? null : new Date(vuln.acknowledgeDueMs).toISOString(),
    triageDueAt: vuln.triageDueMs === null ? null : new Date(vuln.triageDueMs).toISOString(),
  });

/**
 * Creates a vuln through a brief: the vuln (inbox dispatching, processing open), its domain assets,
 * and Vuln::Created, all in one batch. The submission is kept as received for the intake record.
 * `brief` is checked to be the caller's and published (API) or found by its public shortcode.
 * `followUpTokenHash` (public submissions) is the SHA-256 of the reporter's follow-up token.
 */
export async function createVuln({
  ctx,
  input,
  brief,
  raw,
  followUpTokenHash = null,
  reportPage,
}: {
  ctx: ServiceContext;
  input: VulnInput;
  /** By id for an organization's own entry; by shortcode through the public brief (published only). */
  brief: BriefRef;
  /** The members exactly as sent, kept in the as-received record. */
  raw: Omit<Submission, "received_at">;
  /** The SHA-256 of the reporter's follow-up token (the token itself is never stored). */
  followUpTokenHash?: string | null;
  /** The reporter's report page (with the token): the receipt e-mail carries it, sealed in the outbox until sent. */
  reportPage?: string;
}): Promise<VulnRecord> {
  mayChange(ctx, "vulns");
  const now = nowIso();
  const found = await briefOf(ctx, brief, now);
  const domains = unique(input.domains);
  const vuln = newVuln(found, input, { now, raw, followUpTokenHash, reportPage });
  // The report is its own first activity (as the generated columns read it).
  const firstActivity = { lastActivityAt: now, lastActivityBy: followUpTokenHash ? ("reporter" as const) : ("organization" as const) };
  const record: VulnRecord = { ...vuln, ...firstActivity, domains: [...domains].sort(), keyRecord: null };
  const created = vulnEvent(ctx.db, "Vuln::Created", vuln.id, now);
  // A public submission's actor is its reporter (no key: the report is who they are).
  const p = new Plan(record).add(ctx.db.insert(vulns).values(vuln)).audits({
    action: "vuln.create",
    target: { type: "vuln", id: vuln.id },
    organizationId: vuln.organizationId,
    ...(followUpTokenHash && { actor: { type: "reporter", id: vuln.id, name: null } }),
  });
  for (const s of domainStatements(ctx, vuln, { domains, now })) p.add(s);
  p.add(created.statement, created.event);
  if (vuln.notifyReporter) p.add(ctx.db.insert(notifications).values(await receiptOf(found, vuln, { reportPage: reportPage!, now })));
  // The brief was read in the first batch; if it is deleted before this one, its foreign key
  // refuses the vuln, and with it the events and the Idempotency-Key's response.
  await whenRefused(
    () => commit(ctx, p, ctx.respond),
    () => {
      throw noBrief(brief, false);
    },
  );
  return record;
}
