import { eq } from "drizzle-orm";
import { briefs, DEADLINE_KIND_NAMES, notifications, type Submission, type SubmissionRequirements, vulns } from "../../db/schema";
import { isForeignKeyViolation, subquery, where } from "../../db/queries";
import { vulnEvent } from "../../events/outbox";
import {
  craDueTimes,
  dueColumns,
  type DueTimes,
  dueTimes,
  nextLookMs,
  responseTargetsOf,
  type TargetsInput,
  type VulnTargets,
} from "../../lib/deadlines";
import type { GateDecision } from "../../lib/gate";
import { evidenceComplete, keptEvidence } from "../../lib/submission-requirements";
import {
  checkGate,
  decide,
  type GateChecks,
  gateColumns,
  type GateInput,
  gateKeys,
  inboxStateValue,
  markStatements,
  queueHeadStatement,
  redecide,
  snapshotOf,
} from "../gate/admission";
import { Invalid, NotFound, relationship } from "../../lib/domain-errors";
import { uuidv7, vulnShortcode } from "../../lib/ids";
import { isPublished } from "../../lib/maturity";
import { publishNotices, type WrittenNotice } from "../../notifications/outbox";
import { receiptRow } from "../../notifications/rows";
import { tenantFilter, type ServiceContext } from "../context";
import { commit, Plan, readBatch } from "../unit-of-work";
import { domainStatements } from "./domains";
import { exploitationOf, NOTHING_MET, triageOf, unique } from "./members";
import { UNGATED, type VulnInput, type VulnRecord } from "./types";
import { mayChange } from "../access";
import { withNames } from "../catalog";

/** Where a brief is named: by id for an organization's own entry; by shortcode through the public brief (published only). */
type BriefRef = { id: string } | { shortcode: string };

/** A brief that takes no report, told as the way it was named (`found`: it is there, unpublished). */
function noBrief(brief: BriefRef, found: boolean) {
  if (!("id" in brief)) return new NotFound("brief", "No published brief has that shortcode.");
  return Invalid.at(relationship("brief"), found ? "brief is not published." : "brief does not exist.");
}

/**
 * The brief a report comes through, with its organization's name and the promises of its policy;
 * refused unless published. Through the public door, also what its gate decides from (admission.ts).
 */
async function briefOf(ctx: ServiceContext, brief: BriefRef, { now, gate }: { now: number; gate: (GateInput & { tag: string }) | null }) {
  const [found] = await readBatch(ctx, [
    ctx.db
      .select({
        id: briefs.id,
        organizationId: briefs.organizationId,
        publishedAt: briefs.publishedAt,
        name: briefs.name,
        shortcode: briefs.shortcode,
        submissionRequirements: briefs.submissionRequirements,
        proofOfWork: briefs.proofOfWork,
        expectedHourly: briefs.expectedHourly,
        dailyCap: briefs.dailyCap,
        intakePausedUntil: briefs.intakePausedUntil,
        intakePausedMessage: briefs.intakePausedMessage,
        verifiedLaneMinValid: briefs.verifiedLaneMinValid,
        ...gateColumns(
          {
            ...(gate ?? { address: "", tag: "", pow: null, signature: null }),
            shortcode: gate && "shortcode" in brief ? brief.shortcode : null,
          },
          now,
        ),
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
  if (!row || !isPublished(row.publishedAt, new Date(now).toISOString())) throw noBrief(brief, Boolean(row));
  return row;
}

type Brief = Awaited<ReturnType<typeof briefOf>>;

/** The promises a report keeps from its brief's policy: its targets (the defaults where none) and its disclosure timeline. */
const targetsOf = (brief: Brief): VulnTargets => ({
  ...responseTargetsOf(brief.responseTargets ? (JSON.parse(brief.responseTargets) as TargetsInput) : null),
  disclosure_days: brief.cvdTimeline ?? null,
});

/** A public submission's passage through its brief's gate: what was verified, and what was decided of it. */
type Admission = { checks: GateChecks; decision: GateDecision; requirements: SubmissionRequirements; hasFile: boolean };

const NOTHING_DUE = Object.fromEntries(DEADLINE_KIND_NAMES.map((k) => [k, null])) as DueTimes;

/** The vuln's gate columns: how it passed, what it brought, and where it stands against its brief's cap. */
const gatedColumns = ({ checks, decision, requirements, hasFile }: Admission, input: VulnInput) => ({
  gate: decision.gate,
  evidence: keptEvidence(input.evidence),
  evidenceComplete: evidenceComplete(requirements, input.evidence, { hasFile }),
  aiUse: input.ai_use ?? null,
  reporterKey: checks.thumbprint,
  inboxState: decision.inboxState,
  admittedDay: decision.admittedDay,
  releaseExpectedOn: decision.releaseExpectedOn,
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
    admission,
  }: {
    now: string;
    raw: Omit<Submission, "received_at">;
    followUpTokenHash: string | null;
    reportPage?: string;
    /** Through the public door: the gate's decision and what it verified. */
    admission: Admission | null;
  },
): NewVuln {
  const triage = triageOf(input);
  const version = brief.policyVersion ? (JSON.parse(brief.policyVersion) as { id: string; number: number; sha256: string }) : null;
  const targets = targetsOf(brief);
  const { value: exploitation, problem } = exploitationOf(input, undefined, now);
  if (problem) throw Invalid.at(problem.member, problem.detail);
  // A queued report owes nothing yet: its promises start when the cron (or its owner) releases it.
  const queued = admission?.decision.inboxState === "queued";
  const due: DueTimes = queued
    ? NOTHING_DUE
    : {
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
    nextAlertMs: queued ? null : nextLookMs({ due, met: NOTHING_MET, triageState: "new", targets, severity: triage.severity }),
    overdue: 0,
    readAt: null,
    ...triage,
    ...UNGATED,
    ...(admission && gatedColumns(admission, input)),
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
    releaseExpectedOn: vuln.inboxState === "queued" ? vuln.releaseExpectedOn : null,
  });

/** Attempts at a gated write: each refusal only moves the decision down (admitted to queued, lane to none) or ends it. */
const GATE_ATTEMPTS = 3;

/**
 * Creates a vuln through a brief: the vuln (inbox dispatching, processing open), its domain assets,
 * and Vuln::Created, all in one batch. The submission is kept as received for the intake record.
 * `brief` is checked to be the caller's and published (API) or found by its public shortcode.
 * `followUpTokenHash` (public submissions) is the SHA-256 of the reporter's follow-up token.
 * Through the public door (`gate`), the brief's gate decides first (services/gate/admission.ts): its
 * requirements, proof of work, reporter key, pause and daily cap. A report past the cap is stored
 * queued, owing nothing and announcing nothing until its release.
 */
export async function createVuln({
  ctx,
  input,
  brief,
  raw,
  followUpTokenHash = null,
  reportPage,
  gate = null,
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
  /** A public submission: what it brings to the brief's gate. */
  gate?: GateInput | null;
}): Promise<VulnRecord> {
  mayChange(ctx, "vulns");
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const keyed = gate && { ...gate, ...(await gateKeys(gate.address)) };
  const found = await briefOf(ctx, brief, { now: nowMs, gate: keyed });
  const checks =
    keyed && (await checkGate({ requirements: found.submissionRequirements, shortcode: found.shortcode, input }, keyed, nowMs));
  let snapshot = keyed && snapshotOf(found);
  for (let attempt = 1; ; attempt++) {
    const decision = snapshot && checks && decide(snapshot, checks, nowMs);
    const admission = decision
      ? { checks: checks!, decision, requirements: found.submissionRequirements, hasFile: Boolean(gate?.hasFile) }
      : null;
    try {
      return await commitVuln(ctx, { found, input, raw, followUpTokenHash, reportPage, admission, now });
    } catch (err) {
      const again = admission && attempt < GATE_ATTEMPTS ? redecide(err, { ...admission, snapshot: snapshot! }, nowMs) : null;
      if (!again) {
        if (isForeignKeyViolation(err)) throw noBrief(brief, false);
        throw err;
      }
      snapshot = again.snapshot;
      Object.assign(checks!, again.checks);
    }
  }
}

/** One attempt at the write batch of a new report, as decided. */
async function commitVuln(
  ctx: ServiceContext,
  {
    found,
    input,
    raw,
    followUpTokenHash,
    reportPage,
    admission,
    now,
  }: {
    found: Brief;
    input: VulnInput;
    raw: Omit<Submission, "received_at">;
    followUpTokenHash: string | null;
    reportPage?: string;
    admission: Admission | null;
    now: string;
  },
): Promise<VulnRecord> {
  const domains = unique(input.domains);
  const vuln = newVuln(found, input, { now, raw, followUpTokenHash, reportPage, admission });
  // The report is its own first activity (as the generated columns read it).
  const firstActivity = { lastActivityAt: now, lastActivityBy: followUpTokenHash ? ("reporter" as const) : ("organization" as const) };
  const record: VulnRecord = { ...vuln, ...firstActivity, domains: [...domains].sort(), keyRecord: null };
  const nowMs = Date.parse(now);
  const p = new Plan(record);
  if (admission) for (const s of markStatements(ctx, { brief: found, vulnId: vuln.id, ...admission }, nowMs)) p.add(s);
  // Under a cap, the admission is guarded: a report that finds the day full (or a queue) since the read is refused and queued.
  const inboxState = admission ? inboxStateValue(found, admission.decision) : vuln.inboxState;
  // A public submission's actor is its reporter (no key: the report is who they are).
  p.add(ctx.db.insert(vulns).values({ ...vuln, inboxState })).audits({
    action: "vuln.create",
    target: { type: "vuln", id: vuln.id },
    organizationId: vuln.organizationId,
    ...(followUpTokenHash && { actor: { type: "reporter", id: vuln.id, name: null } }),
  });
  for (const s of domainStatements(ctx, vuln, { domains, now })) p.add(s);
  if (vuln.inboxState === "queued") {
    p.add(queueHeadStatement(ctx, found.id, now));
  } else {
    const created = vulnEvent(ctx.db, "Vuln::Created", vuln.id, now);
    p.add(created.statement, created.event);
  }
  const receipt = vuln.notifyReporter
    ? p.track<WrittenNotice[]>(
        ctx.db
          .insert(notifications)
          .values(await receiptOf(found, vuln, { reportPage: reportPage!, now }))
          .returning({ id: notifications.id, kind: notifications.kind }),
      )
    : null;
  // The brief was read in the first batch; if it is deleted before this one, its foreign key
  // refuses the vuln, and with it the events and the Idempotency-Key's response.
  // A sharded deployment finds the reporter's report by its token's hash: claimed across shards first.
  const names = followUpTokenHash ? [{ kind: "report_token" as const, name: followUpTokenHash }] : [];
  const { results } = await withNames(ctx, { organizationId: vuln.organizationId, names }, () => commit(ctx, p, ctx.respond));
  // A queued report's receipt is due now (a stored report's waits for the intake to release it).
  if (receipt && vuln.inboxState === "queued") ctx.defer(publishNotices(ctx.queue, receipt.of(results)));
  return record;
}
