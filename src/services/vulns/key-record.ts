import type { TriageState } from "../../db/schema";
import type { KeyRecord } from "./types";

/** Which count of a key's record a report's state adds to (valid: triaged, resolved, accepted_risk), as migration 0041's triggers do. */
const OUTCOME_OF: Partial<Record<TriageState, keyof KeyRecord>> = {
  triaged: "valid",
  resolved: "valid",
  accepted_risk: "valid",
  spam: "spam",
  not_applicable: "not_applicable",
  duplicate: "duplicate",
};

/**
 * The record as the triggers leave it once a report signed with the key moves from `from` to `to`:
 * what an update answers, computed as its statement will make it (the update reads the record before
 * it writes, and answers without a read of its own).
 */
export function movedKeyRecord(record: KeyRecord | null, from: TriageState, to: TriageState): KeyRecord | null {
  if (!record || from === to) return record;
  const next = { ...record };
  const left = OUTCOME_OF[from];
  const entered = OUTCOME_OF[to];
  if (left) next[left] -= 1;
  if (entered) next[entered] += 1;
  return next;
}
