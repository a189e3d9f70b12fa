import type { Gate, InboxState, ProofOfWorkMode } from "../db/schema";
import { IntakePaused, RateLimited } from "./domain-errors";
import { LIMITS } from "./limits";

// The gate's decision for one public submission, from what the submission's read batch saw. Pure, so
// every rule is tested without D1; the write that follows guards each count it relied on, so a race
// is refused by the database and decided again, never admitted twice (services/gate/admission.ts).

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What the read batch saw of the brief, the client's address and the reporter key. */
export interface GateSnapshot {
  proofOfWork: ProofOfWorkMode;
  expectedHourly: number;
  /** The brief's public submissions in the last hour (this one not counted), counted under auto only, up to one past its rate. */
  briefHour: number;
  /** Until when `auto` keeps proof of work on (epoch ms), or null. */
  powOnUntilMs: number | null;
  /** The address's submissions to this brief without a valid solution in the last hour, and the oldest one's time. */
  addressUnverifiedHour: number;
  oldestUnverifiedMs: number | null;
  dailyCap: number | null;
  /** Reports the brief admitted today (UTC), and reports waiting in its queue. */
  admittedToday: number;
  queuedAhead: number;
  pausedUntil: string | null;
  pauseMessage: string | null;
  /** The brief's verified lane (null: none), and the key's valid reports with the organization (null: not signed). */
  laneMinValid: number | null;
  keyValid: number | null;
}

export interface GateDecision {
  gate: Gate;
  /** The key's record opened the verified lane (the write guards it). */
  lane: boolean;
  /** The address's unverified budget is spent unless the write's guard finds room (unverified only). */
  unverified: boolean;
  inboxState: Extract<InboxState, "dispatching" | "queued">;
  /** The UTC day the report counts against the cap (admitted under a cap), else null. */
  admittedDay: string | null;
  /** Queued: the UTC day it should be released. */
  releaseExpectedOn: string | null;
}

/** The UTC day of a time, YYYY-MM-DD. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Whether the brief asks for proof of work now: always (on), never (off), or while its last hour runs over (auto). */
export function powRequired(
  s: Pick<GateSnapshot, "proofOfWork" | "expectedHourly" | "briefHour" | "powOnUntilMs">,
  nowMs: number,
): boolean {
  if (s.proofOfWork !== "auto") return s.proofOfWork === "on";
  return s.briefHour + 1 > s.expectedHourly || (s.powOnUntilMs !== null && s.powOnUntilMs > nowMs);
}

/** The day a report queued behind `queuedAhead` others is expected out, the cap admitting `cap` a day from tomorrow. */
export const releaseDay = (nowMs: number, queuedAhead: number, cap: number): string =>
  utcDay(nowMs + DAY_MS * (1 + Math.floor(queuedAhead / cap)));

/** Refuses while the brief is paused, saying until when and how many seconds remain. */
export function assertOpen(s: Pick<GateSnapshot, "pausedUntil" | "pauseMessage">, nowMs: number): void {
  if (s.pausedUntil === null) return;
  const until = Date.parse(s.pausedUntil);
  if (until > nowMs) throw new IntakePaused(s.pausedUntil, s.pauseMessage, (until - nowMs) / 1000);
}

/** The address's budget without a valid solution is spent: 429 until its oldest such submission is an hour old. */
export function unverifiedRefusal(oldestUnverifiedMs: number | null, nowMs: number): RateLimited {
  const retry = oldestUnverifiedMs === null ? 60 : Math.max(1, (oldestUnverifiedMs + HOUR_MS - nowMs) / 1000);
  return new RateLimited(
    `This brief asks for proof of work, and this address has sent it ${LIMITS.unverifiedPerAddressHour} reports without it in the ` +
      "last hour. Send the report from the brief's page (it solves the challenge), or with a solved challenge, or wait.",
    retry,
  );
}

/**
 * The gate for a submission: paused → refused; proof of work asked and neither a valid solution nor
 * the key's lane → unverified (refused once the address's budget is spent); under a cap that is full
 * or has a queue → queued with its expected day.
 */
export function decideGate(s: GateSnapshot, { powValid, nowMs }: { powValid: boolean; nowMs: number }): GateDecision {
  assertOpen(s, nowMs);
  const lane = s.laneMinValid !== null && s.keyValid !== null && s.keyValid >= s.laneMinValid;
  let gate: Gate = "not_required";
  if (powRequired(s, nowMs)) gate = powValid || lane ? "verified" : "unverified";
  if (gate === "unverified" && s.addressUnverifiedHour >= LIMITS.unverifiedPerAddressHour) {
    throw unverifiedRefusal(s.oldestUnverifiedMs, nowMs);
  }
  const today = utcDay(nowMs);
  const queued = s.dailyCap !== null && (s.queuedAhead > 0 || s.admittedToday >= s.dailyCap);
  return {
    gate,
    lane: gate === "verified" && !powValid && lane,
    unverified: gate === "unverified",
    inboxState: queued ? "queued" : "dispatching",
    admittedDay: s.dailyCap !== null && !queued ? today : null,
    releaseExpectedOn: queued ? releaseDay(nowMs, s.queuedAhead, s.dailyCap!) : null,
  };
}
