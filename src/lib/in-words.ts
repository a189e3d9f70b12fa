import type { TriageState } from "../db/schema";

// What the reporter reads of a report's state, the same on its page and in its e-mails.

/** Each triage state as the reporter reads it. */
export const TRIAGE_IN_WORDS: Record<TriageState, string> = {
  new: "Received, not reviewed yet",
  triaged: "Confirmed by the organization, being worked on",
  needs_more_info: "The organization needs more information from you: answer in the conversation below",
  resolved: "Resolved (closed)",
  duplicate: "Closed as a duplicate of an earlier report",
  informative: "Closed as informative: no change planned",
  not_applicable: "Closed as not applicable: out of scope or not a vulnerability",
  spam: "Closed as spam",
  accepted_risk: "Closed: the organization accepts the risk",
};
