import { env } from "cloudflare:workers";
import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { briefGateState, briefs, gateMarks, type SubmissionRequirements } from "../../db/schema";
import { refusedConstraint, subquery } from "../../db/queries";
import { Conflict, Invalid, attribute, SignatureInvalid } from "../../lib/domain-errors";
import { type GateDecision, type GateSnapshot, decideGate, unverifiedRefusal, utcDay } from "../../lib/gate";
import { LIMITS } from "../../lib/limits";
import { addressTag, checkSolution, parsePowKeys } from "../../lib/pow";
import { verifyReporterSignature } from "../../lib/reporter-signature";
import { missingRequirements } from "../../lib/submission-requirements";
import type { ServiceContext } from "../context";
import type { VulnInput } from "../vulns/types";

// The gate at a brief's public door, between the submission's read batch and its write batch. The
// read sees bounded counts (the brief's last hour, the address's unverified ones, today's admitted,
// the queue, the key's valid reports); the write guards each count a decision relied on, so a race is
// refused by the database and decided again, never admitted twice. No extra round trip unless raced.

const HOUR_MS = 3_600_000;
/** A queue longer than this is told a later day than this bound would give; nothing is refused. */
const QUEUE_BOUND = 10_000;

/** What a public submission brings to the gate, as the door received it. */
export interface GateInput {
  /** The client's address: only a keyed hash of it is kept, for two hours. */
  address: string;
  /** The proof-of-work solution (X-Pow-Solution, or the form's `pow`), as sent. */
  pow: string | null;
  /** The reporter key's thumbprint and signature, and the bytes they sign (the body; the page's canonical payload). */
  signature: { key: string; signature: string; payload: Uint8Array } | null;
  /** A proof of concept came as a file (the page), which satisfies a required one. */
  hasFile?: boolean;
}

/** What the gate verified before anything is written. */
export interface GateChecks {
  tag: string;
  powNonce: string | null;
  thumbprint: string | null;
  signatureSha256: string | null;
}

/** The read batch's gate columns for the brief a submission names. */
export function gateColumns(input: GateInput & { tag: string; shortcode: string | null }, nowMs: number) {
  const hourAgo = nowMs - HOUR_MS;
  const thumbprint = input.signature?.key ?? null;
  return {
    // Only auto reads it, and only up to one past the expected rate: all it asks is whether the hour is over.
    // (A LIMIT cannot name the outer row: the brief's mode and rate are read by its shortcode.)
    briefHour: subquery<number>`(SELECT count(*) FROM (SELECT 1 FROM gate_marks WHERE gate_marks.brief_id = ${briefs.id}
      AND gate_marks.at_ms > ${hourAgo} LIMIT coalesce((SELECT CASE WHEN b.proof_of_work = 'auto' THEN b.expected_hourly + 1 ELSE 0 END
      FROM briefs b WHERE b.shortcode = ${input.shortcode}), 0)))`,
    powOnUntilMs: subquery<number | null>`(SELECT pow_on_until_ms FROM brief_gate_state WHERE brief_gate_state.brief_id = ${briefs.id})`,
    addressUnverifiedHour: subquery<number>`(SELECT count(*) FROM (SELECT 1 FROM gate_marks WHERE gate_marks.address_tag = ${input.tag}
      AND gate_marks.brief_id = ${briefs.id} AND gate_marks.gate = 'unverified' AND gate_marks.at_ms > ${hourAgo}
      LIMIT ${LIMITS.unverifiedPerAddressHour}))`,
    oldestUnverifiedMs: subquery<number | null>`(SELECT min(at_ms) FROM gate_marks WHERE gate_marks.address_tag = ${input.tag}
      AND gate_marks.brief_id = ${briefs.id} AND gate_marks.gate = 'unverified' AND gate_marks.at_ms > ${hourAgo})`,
    admittedToday: subquery<number>`(SELECT count(*) FROM (SELECT 1 FROM vulns WHERE vulns.brief_id = ${briefs.id}
      AND vulns.admitted_day = ${utcDay(nowMs)} LIMIT ${LIMITS.dailyCapMax}))`,
    queuedAhead: subquery<number>`(SELECT count(*) FROM (SELECT 1 FROM vulns WHERE vulns.brief_id = ${briefs.id}
      AND vulns.inbox_state = 'queued' LIMIT ${QUEUE_BOUND}))`,
    keyValid: thumbprint
      ? subquery<
          number | null
        >`(SELECT valid FROM reporter_key_records WHERE reporter_key_records.organization_id = ${briefs.organizationId}
          AND reporter_key_records.thumbprint = ${thumbprint})`
      : sql<null>`NULL`,
  };
}

type GateRow = {
  [K in keyof ReturnType<typeof gateColumns>]: ReturnType<typeof gateColumns>[K] extends SQL<infer T> ? T : never;
} & {
  proofOfWork: GateSnapshot["proofOfWork"];
  expectedHourly: number;
  dailyCap: number | null;
  intakePausedUntil: string | null;
  intakePausedMessage: string | null;
  verifiedLaneMinValid: number | null;
};

/** The snapshot decideGate reads, from the brief's row and its gate columns. */
export const snapshotOf = (row: GateRow): GateSnapshot => ({
  proofOfWork: row.proofOfWork,
  expectedHourly: row.expectedHourly,
  briefHour: row.briefHour,
  powOnUntilMs: row.powOnUntilMs,
  addressUnverifiedHour: row.addressUnverifiedHour,
  oldestUnverifiedMs: row.oldestUnverifiedMs,
  dailyCap: row.dailyCap,
  admittedToday: row.admittedToday,
  queuedAhead: row.queuedAhead,
  pausedUntil: row.intakePausedUntil,
  pauseMessage: row.intakePausedMessage,
  laneMinValid: row.verifiedLaneMinValid,
  keyValid: row.keyValid,
});

/** The keys of POW_HMAC_KEY, and the address's tag under the first. */
export async function gateKeys(address: string) {
  const keys = parsePowKeys(env.POW_HMAC_KEY);
  return { keys, tag: await addressTag(keys, address) };
}

/**
 * What must hold before anything is written: the brief's required evidence and AI-use disclosure
 * (422, one problem per member), a reporter signature that was sent (400 if it does not verify), and
 * whether the proof of work checks out (never a refusal: without it the report is unverified).
 */
export async function checkGate(
  { requirements, shortcode, input }: { requirements: SubmissionRequirements; shortcode: string; input: VulnInput },
  gate: GateInput & { tag: string; keys: ReturnType<typeof parsePowKeys> },
  nowMs: number,
): Promise<GateChecks> {
  const missing = missingRequirements(requirements, input, { hasFile: gate.hasFile });
  if (missing.length) throw new Invalid(missing.map((m) => ({ detail: m.detail, source: { member: attribute(m.member) } })));
  let thumbprint: string | null = null;
  let signatureSha256: string | null = null;
  if (gate.signature) {
    const verified = await verifyReporterSignature({
      keyHeader: gate.signature.key,
      signatureHeader: gate.signature.signature,
      payload: gate.signature.payload,
      audience: `/b/${shortcode}`,
      now: nowMs,
    });
    if (!verified.ok) throw new SignatureInvalid(verified.detail);
    thumbprint = verified.thumbprint;
    signatureSha256 = verified.signatureSha256;
  }
  let powNonce: string | null = null;
  if (gate.pow && gate.pow.length <= LIMITS.powSolutionLength) {
    const solved = await checkSolution({ keys: gate.keys, payload: gate.pow, shortcode, now: nowMs });
    if (solved.ok) powNonce = solved.nonce;
  }
  return { tag: gate.tag, powNonce, thumbprint, signatureSha256 };
}

/** The decision for what the read saw and what was verified. */
export const decide = (snapshot: GateSnapshot, checks: GateChecks, nowMs: number): GateDecision =>
  decideGate(snapshot, { powValid: checks.powNonce !== null, nowMs });

/**
 * The gate's statements before the vuln's insert: the submission's mark (its `gate` guarded by the
 * address's unverified budget or the key's lane, its nonce and signature unique), and under `auto` the
 * hour proof of work stays on once the brief's last hour runs over its expected rate.
 */
export function markStatements(
  ctx: ServiceContext,
  {
    brief,
    vulnId,
    checks,
    decision,
  }: {
    brief: { id: string; organizationId: string; proofOfWork: string; expectedHourly: number; verifiedLaneMinValid: number | null };
    vulnId: string;
    checks: GateChecks;
    decision: GateDecision;
  },
  nowMs: number,
) {
  const hourAgo = nowMs - HOUR_MS;
  let gate: SQL | GateDecision["gate"] = decision.gate;
  if (decision.unverified) {
    gate = subquery`(SELECT 'unverified' WHERE (SELECT count(*) FROM gate_marks WHERE gate_marks.address_tag = ${checks.tag}
      AND gate_marks.brief_id = ${brief.id} AND gate_marks.gate = 'unverified' AND gate_marks.at_ms > ${hourAgo})
      < ${LIMITS.unverifiedPerAddressHour})`;
  } else if (decision.lane) {
    gate = subquery`(SELECT 'verified' WHERE (SELECT valid FROM reporter_key_records WHERE reporter_key_records.organization_id =
      ${brief.organizationId} AND reporter_key_records.thumbprint = ${checks.thumbprint}) >= ${brief.verifiedLaneMinValid})`;
  }
  const statements: BatchItem<"sqlite">[] = [
    ctx.db.insert(gateMarks).values({
      id: vulnId,
      briefId: brief.id,
      addressTag: checks.tag,
      atMs: nowMs,
      gate,
      powNonce: checks.powNonce,
      signatureSha256: checks.signatureSha256,
    }),
  ];
  if (brief.proofOfWork === "auto") {
    // Counted after the mark above. While the last hour holds more than E, proof of work stays on until
    // an hour after it falls back to E: the (E+1)-th newest mark leaves the hour an hour after it came,
    // so on until two hours after it (never earlier than a later submission already said).
    const newestPastRate = subquery<number | null>`(SELECT at_ms FROM gate_marks WHERE gate_marks.brief_id = ${brief.id}
      AND gate_marks.at_ms > ${hourAgo} ORDER BY at_ms DESC LIMIT 1 OFFSET ${brief.expectedHourly})`;
    statements.push(
      ctx.db
        .insert(briefGateState)
        .select(
          ctx.db
            .select({
              briefId: briefs.id,
              powOnUntilMs: sql<number>`${newestPastRate} + ${2 * HOUR_MS}`.as("pow_on_until_ms"),
              queueHeadAt: sql<null>`NULL`.as("queue_head_at"),
            })
            .from(briefs)
            .where(sql`${briefs.id} = ${brief.id} AND ${newestPastRate} IS NOT NULL`),
        )
        .onConflictDoUpdate({
          target: briefGateState.briefId,
          set: { powOnUntilMs: sql`max(coalesce(${briefGateState.powOnUntilMs}, 0), excluded.pow_on_until_ms)` },
        }),
    );
  }
  return statements;
}

/** The inbox state a vuln is inserted with: queued as decided, or admitted only while the cap has room and nobody waits. */
export function inboxStateValue(brief: { id: string; dailyCap: number | null }, decision: GateDecision): SQL | GateDecision["inboxState"] {
  if (decision.inboxState === "queued" || brief.dailyCap === null) return decision.inboxState;
  return subquery`(SELECT 'dispatching' WHERE (SELECT count(*) FROM vulns v WHERE v.brief_id = ${brief.id}
    AND v.admitted_day = ${decision.admittedDay}) < ${brief.dailyCap}
    AND NOT EXISTS (SELECT 1 FROM vulns q WHERE q.brief_id = ${brief.id} AND q.inbox_state = 'queued'))`;
}

/** The brief's queue head, set by the first report to queue (the cron releases from it). */
export const queueHeadStatement = (ctx: ServiceContext, briefId: string, now: string) =>
  ctx.db
    .insert(briefGateState)
    .values({ briefId, powOnUntilMs: null, queueHeadAt: now })
    .onConflictDoUpdate({
      target: briefGateState.briefId,
      set: { queueHeadAt: sql`coalesce(${briefGateState.queueHeadAt}, excluded.queue_head_at)` },
    });

/**
 * How a refused write is decided again: a guard that failed names its column. Null: not the gate's
 * (the caller's own handling applies). At most a few attempts: each one only moves a decision down
 * (verified to unverified, admitted to queued), or ends in a refusal.
 */
export function redecide(
  err: unknown,
  { decision, snapshot, checks }: { decision: GateDecision; snapshot: GateSnapshot; checks: GateChecks },
  nowMs: number,
): { snapshot: GateSnapshot; checks: GateChecks } | null {
  const refused = refusedConstraint(err);
  if (!refused) return null;
  switch (refused.column) {
    case "gate_marks.gate":
      // The key's record fell short of the lane since the read: decided again without it. Or the
      // address's budget went to a concurrent submission: refused.
      if (decision.lane) return { snapshot: { ...snapshot, keyValid: null }, checks };
      throw unverifiedRefusal(snapshot.oldestUnverifiedMs, nowMs);
    case "gate_marks.pow_nonce":
      // A solution already used: this submission has none.
      return { snapshot, checks: { ...checks, powNonce: null } };
    case "gate_marks.signature_sha256":
      throw new Conflict("This signed submission was already received: sign a new one to send another report.");
    case "vulns.inbox_state":
      // The day's cap filled, or a report queued, since the read: this one queues.
      return { snapshot: { ...snapshot, queuedAhead: Math.max(1, snapshot.queuedAhead) }, checks };
    default:
      return null;
  }
}
