import { oneLine as flatten } from "../lib/text";
import type { NotificationKind, NotificationRecipient, TriageState } from "../db/schema";
import type { DeadlineKind } from "../lib/deadlines";
import { TRIAGE_IN_WORDS } from "../lib/in-words";

// Every e-mail the platform sends, as a subject, a plain-text part and an HTML part that says the same
// (escaped like the pages: every value is text, never markup; tested against an HTML parser). A template reads only its row's params,
// which name a report (title, shortcode, brief, organization) and never carry what the report says:
// no description, no comment text, no file. Links are made when the e-mail is sent. Notices to one
// address about one report that wait together go as one e-mail (a digest) saying each in turn.

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
  /** `name`: the member's, if the organization gave one. */
  | { kind: "member_invitation"; organization: string; name: string | null; role: string }
  | { kind: "report_received" | "reporter_commented"; report: ReportParams }
  /** To the member a report was assigned to (by someone else). */
  | { kind: "vuln_assigned"; report: ReportParams }
  | { kind: "deadline_approaching"; report: ReportParams; deadline: DeadlineKind; due_at: string }
  /** `role`: the contact's, as the alert found it (a responder hears a breach when no escalation contact is confirmed). */
  | { kind: "deadline_breached"; report: ReportParams; deadline: DeadlineKind; due_at: string; role: string }
  | {
      kind: "receipt";
      report: ReportParams;
      received_at: string;
      acknowledge_due_at: string | null;
      triage_due_at: string | null;
      /** Queued by the brief's daily cap: the UTC day (YYYY-MM-DD) it is expected to be released, its deadlines starting then. */
      release_expected_on?: string | null;
    }
  | { kind: "organization_commented"; report: ReportParams }
  | { kind: "triage_changed"; report: ReportParams; triage_state: TriageState; previous_triage_state: string }
  | { kind: "advisory_published"; report: ReportParams; advisory: { id: string; title: string }; credit_name: string }
  /** A member's sign-in link, one per organization the address is a member of (the links wait sealed in the row). */
  | { kind: "sign_in_link"; organizations: string[]; expires_at: string };

/** The links an e-mail may carry, made at send time from PUBLIC_ORIGIN and the MAC keys. */
export interface Links {
  /** The contact's confirmation page. */
  confirm?: string;
  /** The member's invitation page, and the page where members ask for a sign-in link. */
  invitation?: string;
  signInPage?: string;
  /** The reporter's report page (the receipt only: the one e-mail that carries the token). */
  reportPage?: string;
  /** The reporter's unsubscribe page (every reporter e-mail). */
  unsubscribe?: string;
  /** The report as an API resource (contacts' e-mails), said in words: a person cannot open it. */
  api?: string;
  /** Where the console's report pages are (`/console/reports/`), followed by a report's shortcode. */
  consoleReports?: string;
  /** Where the public advisory pages are (`/a/`), followed by an advisory's id. */
  advisoryPages?: string;
  /** A sign-in e-mail's links, in the order of its params' organizations. */
  signIn?: string[];
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export const DEADLINE_WORDS: Record<DeadlineKind, string> = {
  acknowledge: "acknowledge the report",
  triage: "triage the report",
  resolve: "resolve the report",
  disclosure: "disclose",
  cra_early_warning: "file the EU Cyber Resilience Act early warning",
  cra_notification: "file the EU Cyber Resilience Act notification",
  cra_final_report: "file the EU Cyber Resilience Act final report",
};

/** Each deadline as the work it asks for. */
const DEADLINE_TASKS: Record<DeadlineKind, string> = {
  acknowledge: "acknowledging the report",
  triage: "triaging the report",
  resolve: "resolving the report",
  disclosure: "disclosing the report",
  cra_early_warning: "filing the EU Cyber Resilience Act early warning",
  cra_notification: "filing the EU Cyber Resilience Act notification",
  cra_final_report: "filing the EU Cyber Resilience Act final report",
};

/** A triage state in a subject: the report page's words, but a question says it is one. */
export const TRIAGE_SUBJECT_WORDS: Record<TriageState, string> = { ...TRIAGE_IN_WORDS, needs_more_info: "a question for you" };

/**
 * A subject, as parts: text, a param (by its path, e.g. "report.shortcode"), a time in UTC, or a param
 * said in words. The same parts make the subject here from a row's params and in SQL where a change
 * writes its notices (src/notifications/outbox.ts), so the two cannot say different things.
 */
export type SubjectPart = string | { param: string } | { time: string } | { param: string; words: Record<string, string> };

const param = (path: string) => ({ param: path });
const shortcode = param("report.shortcode");

export const SUBJECTS: Record<NotificationKind, SubjectPart[]> = {
  contact_confirmation: ["Confirm your address for ", param("organization"), "'s vulnerability reports"],
  member_invitation: ["You are invited to ", param("organization"), "'s vulnerability reports"],
  report_received: ["New report ", shortcode, ": ", param("report.title")],
  reporter_commented: ["The reporter commented on ", shortcode],
  deadline_approaching: ["Due soon on ", shortcode, ": ", { param: "deadline", words: DEADLINE_WORDS }, " by ", { time: "due_at" }],
  deadline_breached: ["Missed on ", shortcode, ": ", { param: "deadline", words: DEADLINE_WORDS }, " was due ", { time: "due_at" }],
  receipt: ["Your report to ", param("report.organization"), " was received: ", shortcode],
  organization_commented: [param("report.organization"), " wrote about your report ", shortcode],
  triage_changed: ["Your report ", shortcode, ": ", { param: "triage_state", words: TRIAGE_SUBJECT_WORDS }],
  advisory_published: [param("report.organization"), " credits you in its advisory: ", param("advisory.title")],
  // No organization named: the row is in one organization's e-mail log, and the address may be another's member too.
  sign_in_link: ["Your sign-in link"],
  vuln_assigned: ["Assigned to you: ", shortcode, ": ", param("report.title")],
};

/** When, in UTC, as a person reads it. */
const at = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

const named = (r: ReportParams) => `"${r.title}" (${r.shortcode})`;
const through = (r: ReportParams) => (r.brief ? `through the brief "${r.brief}"` : "entered by the organization");

/** The longest subject line, in characters: a long title is cut, with an ellipsis. */
export const SUBJECT_LENGTH = 200;

/** What a subject line folds to a space: control characters, line and paragraph separators, and every space of JavaScript's \s. */
export const FOLDED_TO_SPACE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is replaced
  /[\u0000-\u001f\u007f\u2028\u2029\s]+/g;

/**
 * A subject line is one line: a title may hold line breaks or control characters, which in a header
 * would start another header. Every run of them is one space, and a subject longer than the bound is
 * cut (counted in characters, as SQLite counts them).
 */
export function oneLine(text: string): string {
  const chars = [...text.replace(FOLDED_TO_SPACE, " ").trim()];
  return chars.length > SUBJECT_LENGTH ? `${chars.slice(0, SUBJECT_LENGTH - 1).join("")}…` : chars.join("");
}

function valueAt(params: NotificationParams, path: string): string {
  const value = path.split(".").reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], params);
  return value === null || value === undefined ? "" : String(value);
}

export function subjectOf(p: NotificationParams): string {
  const said = SUBJECTS[p.kind].map((part) => {
    if (typeof part === "string") return part;
    if ("time" in part) return at(valueAt(p, part.time));
    const value = valueAt(p, part.param);
    return "words" in part ? (part.words[value] ?? value) : value;
  });
  return oneLine(said.join(""));
}

/** Paragraphs, each a line of text (a link is a paragraph of its own). */
type Paragraph = string | { link: string; label: string };

/**
 * One notice: its e-mail's text when it goes alone (`body`, then `actions`), and its part of a digest
 * (`headline`, with `details`), whose actions are said once after every part, an answer's last.
 */
interface Notice {
  body: Paragraph[];
  headline: string;
  details?: Paragraph[];
  actions: Paragraph[];
}

/** A member's role, as the invitation says it. */
const ROLE_WORDS: Record<string, string> = {
  owner: "an owner (everything, the organization's settings and people included)",
  triager: "a triager (reads everything and works the reports and advisories)",
  viewer: "a viewer (reads everything, changes nothing)",
};

const inTheApi = (url: string) => `In the API: GET ${url} with your organization's key.`;
const READ_IT = "Read it on your report's page (the link is in your receipt e-mail).";
const TO_ANSWER =
  "To answer, reply to this e-mail: the text of your reply becomes your answer in the report's conversation, or answer on your " +
  "report's page.";
const received = (r: ReportParams) => (r.brief ? `received ${through(r)}` : through(r));
const escalatedTo = (p: { role: string; report: ReportParams }) =>
  p.role === "responder"
    ? `You get this e-mail because ${p.report.organization} has no confirmed escalation contact, and you are one of its contacts.`
    : `You get this e-mail because you are an escalation contact of ${p.report.organization}.`;

/** A receipt's word on a report the brief's daily cap queued: safe, waiting, and when its deadlines start. */
const queuedWords = (r: ReportParams, day: string) =>
  `${r.brief ? `The brief "${r.brief}"` : r.organization} takes a limited number of reports a day, and today's intake is full. Your ` +
  `report is safely stored and queued, not dropped: it is expected to be released to ${r.organization}'s inbox on ${day} (UTC), ` +
  "and its deadlines start then.";

function noticeOf(p: NotificationParams, links: Links): Notice {
  switch (p.kind) {
    case "contact_confirmation":
      return {
        body: [
          `Hello ${p.name},`,
          `${p.organization} added this address as a ${p.role} contact for the vulnerability reports it receives. Open the link and ` +
            `press the button on the page to confirm it. Until then nothing else is sent here.`,
          { link: links.confirm!, label: "Confirm this address" },
          "If you did not expect this, ignore this e-mail: nothing more will come.",
        ],
        headline: "Confirm your address",
        actions: [],
      };
    case "member_invitation":
      return {
        body: [
          p.name ? `Hello ${p.name},` : "Hello,",
          `${p.organization} invited this address to work on the vulnerability reports it receives, as ${ROLE_WORDS[p.role] ?? p.role}. ` +
            "Open the link and press the button on the page to accept.",
          { link: links.invitation!, label: "Accept the invitation" },
          `Then sign in with this address at ${links.signInPage!}: the platform e-mails you a sign-in link, no password.`,
          "If you did not expect this, ignore this e-mail: nothing more will come.",
        ],
        headline: "You are invited",
        actions: [],
      };
    case "report_received":
      return {
        body: [
          `A new report came in for ${p.report.organization}, ${through(p.report)}: ${named(p.report)}.`,
          "This e-mail never carries what a report says: read it with your organization's API key.",
        ],
        headline: `The report came in, ${through(p.report)}.`,
        actions: [inTheApi(links.api!)],
      };
    case "vuln_assigned": {
      const page = `${links.consoleReports}${p.report.shortcode}`;
      return {
        body: [
          `A report to ${p.report.organization} was assigned to you: ${named(p.report)}, ${received(p.report)}.`,
          "This e-mail never carries what a report says: read it in the console (sign in first).",
          { link: page, label: `Open ${p.report.shortcode} in the console` },
        ],
        headline: "The report was assigned to you.",
        details: [{ link: page, label: `Open ${p.report.shortcode} in the console` }],
        actions: [],
      };
    }
    case "reporter_commented":
      return {
        body: [`The reporter of ${named(p.report)} added a comment. Read the conversation with your organization's API key.`],
        headline: "The reporter added a comment.",
        actions: [inTheApi(`${links.api!}/comments`)],
      };
    case "deadline_approaching":
      return {
        body: [
          `${p.report.organization} has a deadline coming up on a report.`,
          `Report: ${named(p.report)}, ${received(p.report)}.`,
          `Due: ${DEADLINE_TASKS[p.deadline]}, by ${at(p.due_at)}. It is not done yet.`,
        ],
        headline: `Due soon: ${DEADLINE_TASKS[p.deadline]}, by ${at(p.due_at)}. It is not done yet.`,
        actions: [inTheApi(links.api!)],
      };
    case "deadline_breached":
      return {
        body: [
          `${p.report.organization} missed a deadline on a report.`,
          `Report: ${named(p.report)}, ${received(p.report)}.`,
          `Missed: ${DEADLINE_TASKS[p.deadline]}, due ${at(p.due_at)}. It is not done yet.`,
        ],
        headline: `Missed: ${DEADLINE_TASKS[p.deadline]}, due ${at(p.due_at)}. It is not done yet.`,
        actions: [escalatedTo(p), inTheApi(links.api!)],
      };
    case "receipt":
      return {
        body: [
          `${p.report.organization} received your report "${p.report.title}" ${through(p.report)} at ${at(p.received_at)}. Its ` +
            `reference is ${p.report.shortcode}.`,
          ...(p.release_expected_on ? [queuedWords(p.report, p.release_expected_on)] : []),
          ...(p.acknowledge_due_at || p.triage_due_at
            ? [
                `${p.report.organization} promises to acknowledge it by ` +
                  `${p.acknowledge_due_at ? at(p.acknowledge_due_at) : "(no promise)"} and to triage it by ${p.triage_due_at ? at(p.triage_due_at) : "(no promise)"}.`,
              ]
            : []),
          "Your report's page shows its state and the conversation, takes your answers and files, and gives you a signed receipt. " +
            "Keep this e-mail: its link is your only way back, and it is never shown again.",
          { link: links.reportPage!, label: "Open your report" },
          "Later e-mails about this report say what changed without this link. You can answer them by replying.",
        ],
        headline: p.release_expected_on ? `Your report was received and queued until ${p.release_expected_on}` : "Your report was received",
        actions: [],
      };
    case "organization_commented":
      return {
        body: [`${p.report.organization} wrote about your report ${named(p.report)}.`],
        headline: `${p.report.organization} wrote to you.`,
        actions: [READ_IT, TO_ANSWER],
      };
    case "triage_changed":
      if (p.triage_state === "needs_more_info")
        return {
          body: [
            `${p.report.organization} asked you a question about your report ${named(p.report)} and waits for your answer. Until you ` +
              `answer, the report waits for you.`,
          ],
          headline: `${p.report.organization} asked you a question and waits for your answer.`,
          actions: ["Read the question on your report's page (the link is in your receipt e-mail).", TO_ANSWER],
        };
      return {
        body: [`Your report ${named(p.report)} to ${p.report.organization} moved:`, TRIAGE_IN_WORDS[p.triage_state]],
        headline: `Its state is now: ${TRIAGE_IN_WORDS[p.triage_state]}.`,
        actions: ["Your report's page (the link is in your receipt e-mail) shows the details and the conversation."],
      };
    case "sign_in_link":
      return {
        body: [
          p.organizations.length === 1
            ? `Someone, hopefully you, asked to sign in to ${p.organizations[0]}'s vulnerability disclosure console with this address.`
            : "Someone, hopefully you, asked to sign in to the vulnerability disclosure console with this address, which is a member of " +
              `${p.organizations.length} organizations: each link signs in to one.`,
          // The text part shows a link as its address alone: each is named in the paragraph before it.
          ...p.organizations.flatMap((organization, i) => [
            `${organization}:`,
            { link: links.signIn?.[i] ?? "", label: `Sign in to ${organization}` },
          ]),
          `Each link works once, until ${at(p.expires_at)}, and only in the browser that asked for it: open it there and press the ` +
            "button on its page.",
          "If you did not ask, ignore this e-mail: nobody can use the link without it.",
        ],
        headline: "Your sign-in link",
        actions: [],
      };
    case "advisory_published": {
      const page = `${links.advisoryPages}${p.advisory.id}`;
      return {
        body: [
          `${p.report.organization} published an advisory that credits you, as "${p.credit_name}", for your report ${named(p.report)}:`,
          p.advisory.title,
          { link: page, label: page },
        ],
        headline: `${p.report.organization} published an advisory that credits you, as "${p.credit_name}": ${p.advisory.title}`,
        details: [{ link: page, label: page }],
        actions: [],
      };
    }
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

function rendered(subject: string, body: Paragraph[], links: Links): Rendered {
  const footer = footerOf(links);
  // Each paragraph is one line, whatever a title or a name kept from before that rule holds.
  const asText = (x: Paragraph) => (typeof x === "string" ? flatten(x) : x.link);
  const text = [...body.map(asText), ...(footer.length ? ["--", ...footer.map(asText)] : [])].join("\n\n");
  const asHtml = (x: Paragraph) =>
    typeof x === "string" ? `<p>${escaped(flatten(x))}</p>` : `<p><a href="${escaped(x.link)}">${escaped(x.label)}</a></p>`;
  const html = [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${escaped(subject)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 40em">',
    ...body.map(asHtml),
    ...(footer.length ? ['<hr><div style="color: #555; font-size: 0.9em">', ...footer.map(asHtml), "</div>"] : []),
    "</body></html>",
  ].join("\n");
  return { subject, text, html };
}

export function render(p: NotificationParams, links: Links): Rendered {
  const notice = noticeOf(p, links);
  return rendered(subjectOf(p), [...notice.body, ...notice.actions], links);
}

/**
 * Several notices to one address about one report, oldest first, as one e-mail: the report named once,
 * each notice in a line of its own, then what the reader can do, each said once (an answer last). One
 * notice renders as itself.
 */
export function renderDigest(notices: readonly NotificationParams[], links: Links, recipient: NotificationRecipient): Rendered {
  if (notices.length === 1) return render(notices[0]!, links);
  const first = notices[0]!;
  if (!("report" in first)) throw new Error("only notices about a report go together");
  const r = first.report;
  const toReporter = recipient === "reporter";
  const subject = oneLine(
    toReporter
      ? `Your report ${r.shortcode}: ${notices.length} updates from ${r.organization}`
      : `${notices.length} updates on ${r.shortcode}: ${r.title}`,
  );
  const body: Paragraph[] = [
    toReporter
      ? `${notices.length} updates about your report ${named(r)} to ${r.organization}, oldest first:`
      : `${notices.length} updates about the report ${named(r)} to ${r.organization}, oldest first:`,
  ];
  const actions = new Map<string, Paragraph>();
  notices.forEach((n, i) => {
    const notice = noticeOf(n, links);
    body.push(`${i + 1}. ${notice.headline}`, ...(notice.details ?? []));
    for (const action of notice.actions) actions.set(typeof action === "string" ? action : action.link, action);
  });
  const answer = actions.get(TO_ANSWER);
  actions.delete(TO_ANSWER);
  return rendered(subject, [...body, ...actions.values(), ...(answer ? [answer] : [])], links);
}
