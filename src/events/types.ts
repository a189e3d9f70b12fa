/**
 * The webhook event types: the eight of the core API, then Vuln::Comment::Created (a comment from either
 * side), Vuln::Triage::Changed (a move between triage states, or a duplicate's new original), and the
 * cron's Vuln::Deadline::Approaching and Vuln::Deadline::Breached, and Advisory::Published (an advisory's
 * first publication and each revision after it). Their ids are constants, the same in every deployment and
 * database, so a client can keep them in configuration.
 */
export const EVENT_TYPES = [
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000001", short_name: "Vuln::Created" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000002", short_name: "Vuln::Updated" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000003", short_name: "Vuln::Read" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000004", short_name: "Vuln::Destroyed" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000005", short_name: "Vuln::Inbox::Received" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000006", short_name: "Vuln::Inbox::Stored" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000007", short_name: "Vuln::Processing::Closed" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000008", short_name: "Vuln::Processing::Reopened" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000009", short_name: "Vuln::Comment::Created" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000010", short_name: "Vuln::Triage::Changed" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000011", short_name: "Vuln::Deadline::Approaching" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000012", short_name: "Vuln::Deadline::Breached" },
  { id: "0b1e7f1a-5c52-5d7e-9a01-000000000013", short_name: "Advisory::Published" },
] as const;

export type EventType = (typeof EVENT_TYPES)[number]["short_name"];

export const eventName = (shortName: EventType) => `Events::${shortName}`;
