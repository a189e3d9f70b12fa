import type { TriageState } from "../db/schema";
import type { DeadlineKind } from "../lib/deadlines";
import { TRIAGE_IN_WORDS } from "../lib/in-words";
import { oneLine as flatten } from "../lib/text";

// Every e-mail the platform sends, as a subject, a plain-text part and an HTML part that says the same
// (escaped like the pages: every value is text, never markup; tested against an HTML parser). A template reads only its row's params,
// which name a report (title, shortcode, brief, organization) and never carry what the report says:
// no description, no comment text, no file. Links are made when the e-mail is sent.

/** The report an e-mail is about, as its params name it. */
export interface ReportParams {
  id: string;
  shortcode: string;
  title: string;
  brief: string | null;
  organization: string;
}

export type NotificationParams =
  | { kind: "contact_confirmation"; organization: string; name: string; role: string }
  | { kind: "report_received" | "reporter_commented"; report: ReportParams }
  | { kind: "deadline_approaching" | "deadline_breached"; report: ReportParams; deadline: DeadlineKind; due_at: string }
  | { kind: "receipt"; report: ReportParams; received_at: string; acknowledge_due_at: string | null; triage_due_at: string | null }
  | { kind: "organization_commented"; report: ReportParams }
  | { kind: "triage_changed"; report: ReportParams; triage_state: TriageState; previous_triage_state: string };

/** The links an e-mail may carry, made at send time from PUBLIC_ORIGIN and the MAC keys. */
export interface Links {
  /** The contact's confirmation page. */
  confirm?: string;
  /** The reporter's report page (the receipt only: the one e-mail that carries the token). */
  reportPage?: string;
  /** The reporter's unsubscribe page (every reporter e-mail). */
  unsubscribe?: string;
  /** The report as an API resource (contacts' e-mails). */
  api?: string;
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

const DEADLINE_WORDS: Record<DeadlineKind, string> = {
  acknowledge: "acknowledge the report",
  triage: "triage the report",
  resolve: "resolve the report",
  disclosure: "disclose",
  cra_early_warning: "file the EU Cyber Resilience Act early warning",
  cra_notification: "file the EU Cyber Resilience Act notification",
  cra_final_report: "file the EU Cyber Resilience Act final report",
};

// The report page's words, but an e-mail has no conversation below it.
const STATE_WORDS: Record<TriageState, string> = {
  ...TRIAGE_IN_WORDS,
  needs_more_info: "The organization needs more information from you: answer on your report's page, or reply to this e-mail",
};

/** When, in UTC, as a person reads it. */
const at = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

const named = (r: ReportParams) => `${r.title} (${r.shortcode})`;
const through = (r: ReportParams) => (r.brief ? `through the brief "${r.brief}"` : "entered by the organization");

/** The longest subject line, in characters: a long title is cut, with an ellipsis. */
export const SUBJECT_LENGTH = 200;

/**
 * A subject line is one line: a title may hold line breaks or control characters, which in a header
 * would start another header. Every run of them is one space, and a subject longer than the bound is cut.
 */
export function oneLine(text: string): string {
  const flat = flatten(text);
  return flat.length > SUBJECT_LENGTH ? `${flat.slice(0, SUBJECT_LENGTH - 1)}…` : flat;
}

export function subjectOf(p: NotificationParams): string {
  return oneLine(subjectText(p));
}

function subjectText(p: NotificationParams): string {
  switch (p.kind) {
    case "contact_confirmation":
      return `Confirm your address for ${p.organization}'s vulnerability reports`;
    case "report_received":
      return `New report ${p.report.shortcode}: ${p.report.title}`;
    case "reporter_commented":
      return `The reporter commented on ${p.report.shortcode}`;
    case "deadline_approaching":
      return `Due soon on ${p.report.shortcode}: ${DEADLINE_WORDS[p.deadline]} by ${at(p.due_at)}`;
    case "deadline_breached":
      return `Missed on ${p.report.shortcode}: ${DEADLINE_WORDS[p.deadline]} was due ${at(p.due_at)}`;
    case "receipt":
      return `Your report to ${p.report.organization} was received: ${p.report.shortcode}`;
    case "organization_commented":
      return `${p.report.organization} wrote about your report ${p.report.shortcode}`;
    case "triage_changed":
      return `Your report ${p.report.shortcode}: ${STATE_WORDS[p.triage_state]}`;
  }
}

/** Paragraphs, each a line of text (a link is a paragraph of its own). */
type Paragraph = string | { link: string; label: string };

function paragraphsOf(p: NotificationParams, links: Links): Paragraph[] {
  switch (p.kind) {
    case "contact_confirmation":
      return [
        `Hello ${p.name},`,
        `${p.organization} added this address as a ${p.role} contact for the vulnerability reports it receives. Open the link and press the button on the page to confirm it. Until then nothing else is sent here.`,
        { link: links.confirm!, label: "Confirm this address" },
        "If you did not expect this, ignore this e-mail: nothing more will come.",
      ];
    case "report_received":
      return [
        `A new report came in for ${p.report.organization}, ${through(p.report)}:`,
        named(p.report),
        "Read it with your organization's API key (this e-mail never carries what a report says):",
        { link: links.api!, label: links.api! },
      ];
    case "reporter_commented":
      return [
        `The reporter of ${named(p.report)} added a comment.`,
        "Read the conversation with your organization's API key:",
        { link: `${links.api!}/comments`, label: `${links.api!}/comments` },
      ];
    case "deadline_approaching":
      return [
        `${p.report.organization} promised to ${DEADLINE_WORDS[p.deadline]} ${named(p.report)} by ${at(p.due_at)}, and has not yet.`,
        { link: links.api!, label: links.api! },
      ];
    case "deadline_breached":
      return [
        `${p.report.organization} promised to ${DEADLINE_WORDS[p.deadline]} ${named(p.report)} by ${at(p.due_at)}. That time has passed and it is not done. You get this as an escalation contact.`,
        { link: links.api!, label: links.api! },
      ];
    case "receipt":
      return [
        `${p.report.organization} received your report "${p.report.title}" ${through(p.report)} at ${at(p.received_at)}. Its reference is ${p.report.shortcode}.`,
        ...(p.acknowledge_due_at || p.triage_due_at
          ? [
              `${p.report.organization} promises to acknowledge it by ${p.acknowledge_due_at ? at(p.acknowledge_due_at) : "(no promise)"} and to triage it by ${p.triage_due_at ? at(p.triage_due_at) : "(no promise)"}.`,
            ]
          : []),
        "Your report's page shows its state and the conversation, takes your answers and files, and gives you a signed receipt. Keep this e-mail: its link is your only way back, and it is never shown again.",
        { link: links.reportPage!, label: "Open your report" },
        "Later e-mails about this report say what changed without this link. You can answer them by replying.",
      ];
    case "organization_commented":
      return [
        `${p.report.organization} wrote about your report ${named(p.report)}.`,
        "Read it on your report's page (the link is in your receipt e-mail), or reply to this e-mail to answer.",
      ];
    case "triage_changed":
      return [
        `Your report ${named(p.report)} to ${p.report.organization} moved:`,
        STATE_WORDS[p.triage_state],
        "Your report's page (the link is in your receipt e-mail) shows the details.",
      ];
  }
}

function footerOf(links: Links): Paragraph[] {
  if (!links.unsubscribe) return [];
  return [
    "You get these e-mails because you asked to hear about this report.",
    { link: links.unsubscribe, label: "Stop e-mails about this report" },
  ];
}

/** Text as HTML text or an attribute's value: every character that could start markup, escaped. */
const escaped = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function render(p: NotificationParams, links: Links): Rendered {
  const body = paragraphsOf(p, links);
  const footer = footerOf(links);
  // Each paragraph is one line, whatever a title or a name kept from before that rule holds.
  const asText = (x: Paragraph) => (typeof x === "string" ? flatten(x) : x.link);
  const text = [...body.map(asText), ...(footer.length ? ["--", ...footer.map(asText)] : [])].join("\n\n");
  const asHtml = (x: Paragraph) =>
    typeof x === "string" ? `<p>${escaped(flatten(x))}</p>` : `<p><a href="${escaped(x.link)}">${escaped(x.label)}</a></p>`;
  const html = [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${escaped(subjectOf(p))}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 40em">',
    ...body.map(asHtml),
    ...(footer.length ? ['<hr><div style="color: #555; font-size: 0.9em">', ...footer.map(asHtml), "</div>"] : []),
    "</body></html>",
  ].join("\n");
  return { subject: subjectOf(p), text, html };
}
