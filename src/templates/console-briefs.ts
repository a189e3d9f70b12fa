import { html } from "hono/html";
import { AI_DISCLOSURES, type BriefRow, EVIDENCE_FIELDS, PROOF_OF_WORK_MODES } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { evidenceLabel } from "../lib/submission-requirements";
import { oneLine } from "../lib/text";
import { consoleDocument, csrfField, mayConfigure, type Who } from "./console-layout";
import { choice, errorSummary, type FormState, field } from "./console-forms";
import { type Html, when } from "./layout";

// /console/settings/briefs: the organization's briefs (the programs reporters send reports to), each
// with its state in words, and an owner's form for one brief's name, description and publication, and
// its gate: what a report must bring, proof of work, the daily cap, a pause, the verified lane.

/** The gate's fields of the form, each an attribute of the brief (the evidence ones inside submission_requirements). */
export const GATE_FIELDS: Record<string, string> = {
  ...Object.fromEntries(EVIDENCE_FIELDS.map((f) => [`evidence_${f}`, evidenceLabel(f)])),
  ai_disclosure: "AI-use disclosure",
  proof_of_work: "Proof of work",
  expected_hourly: "Expected reports an hour",
  daily_cap: "Daily cap",
  intake_paused_until: "Paused until (UTC)",
  intake_paused_message: "Message while paused",
  verified_lane_min_valid: "Verified lane",
};

export const BRIEF_FIELDS: Record<string, string> = {
  name: "Name",
  short_description: "Short description",
  state: "State",
  ...GATE_FIELDS,
};

export type BriefState = "published" | "scheduled" | "draft";
export const briefState = (b: Pick<BriefRow, "publishedAt">, now: string): BriefState =>
  b.publishedAt === null ? "draft" : b.publishedAt <= now ? "published" : "scheduled";

const STATE_WORDS: Record<BriefState, Html> = {
  published: html`<span class="state met">Published</span>`,
  scheduled: html`<span class="state soon">Scheduled</span>`,
  draft: html`<span class="state">Draft</span>`,
};

export const briefFormValues = (b: BriefRow, now: string): Record<string, string> => ({
  name: b.name,
  short_description: b.shortDescription ?? "",
  state: briefState(b, now) === "draft" ? "draft" : "published",
  ...Object.fromEntries(EVIDENCE_FIELDS.map((f) => [`evidence_${f}`, b.submissionRequirements.evidence[f] ?? ""])),
  ai_disclosure: b.submissionRequirements.ai_disclosure,
  proof_of_work: b.proofOfWork,
  expected_hourly: String(b.expectedHourly),
  daily_cap: b.dailyCap === null ? "" : String(b.dailyCap),
  intake_paused_until: b.intakePausedUntil ? b.intakePausedUntil.slice(0, 16) : "",
  intake_paused_message: b.intakePausedMessage ?? "",
  verified_lane_min_valid: b.verifiedLaneMinValid === null ? "" : String(b.verifiedLaneMinValid),
});

const POW_WORDS: Record<(typeof PROOF_OF_WORK_MODES)[number], string> = {
  off: "Off: no proof of work",
  on: "On: every report brings one",
  auto: "Auto: on while reports come faster than expected",
};
const DISCLOSURE_WORDS: Record<(typeof AI_DISCLOSURES)[number], string> = {
  off: "Not asked",
  optional: "Asked, optional",
  required: "Required",
};

/** The brief's gate in words, for whoever may not change it. */
function gateTerms(b: BriefRow): Html {
  const asked = EVIDENCE_FIELDS.filter((f) => b.submissionRequirements.evidence[f]);
  return html`<dt>Evidence asked</dt><dd>${
    asked.length ? asked.map((f) => `${evidenceLabel(f)} (${b.submissionRequirements.evidence[f]})`).join(", ") : "None"
  }</dd>
<dt>AI-use disclosure</dt><dd>${DISCLOSURE_WORDS[b.submissionRequirements.ai_disclosure]}</dd>
<dt>Proof of work</dt><dd>${POW_WORDS[b.proofOfWork]} (expecting ${b.expectedHourly} an hour)</dd>
<dt>Daily cap</dt><dd>${b.dailyCap === null ? "None" : `${b.dailyCap} a day, then queued`}</dd>
<dt>Paused</dt><dd>${b.intakePausedUntil ? `Until ${when(b.intakePausedUntil)}` : "No"}</dd>
<dt>Verified lane</dt><dd>${b.verifiedLaneMinValid === null ? "None" : `Keys with ${b.verifiedLaneMinValid} valid reports or more`}</dd>`;
}

/** The gate's part of an owner's form: each knob with what its number does. */
function gateFields(form: FormState): Html {
  const pausedError = form.errors.intake_paused_until?.length;
  return html`<h3>What a report must bring</h3>
<p class="hint">Each field is asked on the brief's page and accepted by the API. A report without a required field is refused with
the field named, and nothing is stored; an optional one left empty marks the report's evidence incomplete for your triagers.</p>
${EVIDENCE_FIELDS.map((f) =>
  choice(form, `evidence_${f}`, evidenceLabel(f), [
    ["", "Not asked"],
    ["optional", "Optional"],
    ["required", "Required"],
  ]),
)}
${choice(
  form,
  "ai_disclosure",
  GATE_FIELDS.ai_disclosure!,
  AI_DISCLOSURES.map((d) => [d, DISCLOSURE_WORDS[d]]),
)}

<h3>Keeping junk out</h3>
${choice(
  form,
  "proof_of_work",
  GATE_FIELDS.proof_of_work!,
  PROOF_OF_WORK_MODES.map((m) => [m, POW_WORDS[m]]),
)}
<p class="hint">With proof of work, the page solves a small puzzle while the reporter types (a second or two). A report sent without
one (no JavaScript, or through the API without solving) is still stored, marked unverified, ${LIMITS.unverifiedPerAddressHour} an
hour per address to this brief; more from that address are refused for the hour.</p>
${field(form, "expected_hourly", GATE_FIELDS.expected_hourly!, {
  type: "number",
  hint:
    "Default 10. Auto turns proof of work on past this many reports in the last hour, and keeps it on for" +
    " an hour after. Each time the last hour passes it again the puzzle gets 10 times harder, twice at " +
    "most.",
})}
${field(form, "daily_cap", GATE_FIELDS.daily_cap!, {
  type: "number",
  hint:
    "Reports admitted a UTC day; empty: no cap. Past it a report is never refused: it is queued, the " +
    "reporter is told the day it should be released, and each day releases the queue in order up to the " +
    "cap. No deadline runs for a queued report.",
})}
<div class="field"><label for="intake_paused_until">${GATE_FIELDS.intake_paused_until}</label>
<span class="hint" id="intake_paused_until-hint">Empty: open. Until then the page and the API take no report: they answer with your
message and when to come back.</span>${
    pausedError ? html`<span class="message" id="intake_paused_until-error">${form.errors.intake_paused_until!.join(" ")}</span>` : ""
  }
<input type="datetime-local" id="intake_paused_until" name="intake_paused_until" value="${form.values.intake_paused_until ?? ""}"${
    pausedError
      ? html` aria-invalid="true" aria-describedby="intake_paused_until-error"`
      : html` aria-describedby="intake_paused_until-hint"`
  }></div>
${field(form, "intake_paused_message", GATE_FIELDS.intake_paused_message!, {
  rows: 3,
  hint: `Shown to reporters while paused, up to ${LIMITS.pauseMessageLength} characters.`,
})}
${field(form, "verified_lane_min_valid", GATE_FIELDS.verified_lane_min_valid!, {
  type: "number",
  hint:
    "A report signed with a reporter key that has at least this many valid reports (triaged, resolved or " +
    "risk accepted) with your organization skips proof of work. Empty: no lane.",
})}
`;
}

export interface BriefsView {
  who: Who;
  briefs: BriefRow[];
  total: number;
  selected: BriefRow | null;
  form: FormState;
  saved: boolean;
  /** What an owner's release of the queue just did. */
  released?: { released: number; stillQueued: number };
  now: string;
}

export function briefsPage(view: BriefsView): string {
  const { who, briefs, selected, now } = view;
  return consoleDocument(
    who,
    "settings",
    selected ? `Brief: ${oneLine(selected.name)}` : "Briefs",
    html`<p><a href="/console/settings">Settings</a></p>
<h1>Briefs</h1>
<p class="lead">${view.total} brief${view.total === 1 ? "" : "s"}: the programs reporters send their reports to.</p>
${view.saved ? html`<p class="notice" role="status">Saved.</p>` : ""}
${
  view.released
    ? html`<p class="notice" role="status">Released ${view.released.released} queued report${view.released.released === 1 ? "" : "s"}; ${
        view.released.stillQueued
      } still queued.</p>`
    : ""
}
<table class="stack">
<thead><tr><th scope="col">Brief</th><th scope="col">State</th><th scope="col">Public page</th><th scope="col">Changed</th></tr></thead>
<tbody>${briefs.map(
      (b) => html`<tr><td data-label="Brief"><a href="/console/settings/briefs?brief=${b.id}"${
        b.id === selected?.id ? html` aria-current="true"` : ""
      }>${oneLine(b.name)}</a>${b.shortDescription ? html`<br><span class="muted">${oneLine(b.shortDescription)}</span>` : ""}</td>
<td data-label="State">${STATE_WORDS[briefState(b, now)]}${
        b.publishedAt ? html` <span class="muted">${when(b.publishedAt)}</span>` : ""
      }</td>
<td data-label="Public page">${
        briefState(b, now) === "published" ? html`<a href="/b/${b.shortcode}">/b/${b.shortcode}</a>` : "None yet"
      }</td>
<td data-label="Changed">${when(b.updatedAt)}</td></tr>`,
    )}</tbody></table>
${selected ? briefSection(view, selected) : ""}`,
  );
}

function briefSection({ who, form }: BriefsView, b: BriefRow): Html {
  if (!mayConfigure(who))
    return html`<h2>${oneLine(b.name)}</h2><p>Only the organization's owners change a brief.</p>
<dl class="terms"><dt>Name</dt><dd>${oneLine(b.name)}</dd><dt>Short description</dt><dd>${
      b.shortDescription ? oneLine(b.shortDescription) : "None"
    }</dd>${gateTerms(b)}</dl>`;
  return html`<h2>Change ${oneLine(b.name)}</h2>
${errorSummary(form, BRIEF_FIELDS)}
<form method="post" action="/console/settings/briefs/${b.id}" novalidate>${csrfField(who)}
${field(form, "name", BRIEF_FIELDS.name!)}
${field(form, "short_description", BRIEF_FIELDS.short_description!)}
${choice(form, "state", BRIEF_FIELDS.state!, [
  ["published", b.publishedAt ? "Published (as it is)" : "Published, from now"],
  ["draft", "Draft: not shown to reporters"],
])}
${gateFields(form)}
<div class="actions"><button type="submit">Save the brief</button></div>
</form>
<form method="post" action="/console/settings/briefs/${b.id}/release-queued" class="card" id="release-queued">${csrfField(who)}
<h3>Release queued reports</h3>
<p class="hint">Admits up to ${LIMITS.queueReleaseBatch} reports the daily cap queued, oldest first, now instead of on their days
(they count on today's cap). Their deadlines start, and your people and webhooks are told, as for any new report.</p>
<div class="actions"><button type="submit" class="secondary">Release queued reports</button></div>
</form>`;
}
