import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { PolicyRow, ScopeAsset } from "../db/schema";
import type { Html } from "./layout";
import type { Responsiveness } from "../services/metrics";
import { responseTargetsOf } from "../lib/deadlines";

const SAFE_HARBOR: Record<string, string> = {
  full: "Full: the organization will not pursue legal action for good-faith research within this policy.",
  partial: "Partial: some research within this policy is covered; read the organization's full policy.",
  none: "None: the organization offers no safe harbor. Take care.",
};

/** What an entry of a scope covers, in words (never the API's token, such as wildcard_domain). */
function kindInWords(a: ScopeAsset): string {
  switch (a.kind) {
    case "domain":
      return "this host only";
    case "wildcard_domain":
      return `any subdomain of ${a.value.replace(/^\*\./, "")}`;
    case "url":
      return "web address";
    case "ip_address":
      return "IP address";
    case "cidr":
      return "IP range";
    case "ios_app":
      return "iOS app";
    case "android_app":
      return "Android app";
    case "source_code":
      return "source code";
    case "executable":
      return "program to download";
    case "hardware":
      return "hardware";
    default:
      return "other";
  }
}

export function scopeList(assets: ScopeAsset[], empty: string): Html {
  if (assets.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<ul class="scope">${assets.map(
    (a) =>
      html`<li><code>${oneLine(a.value)}</code> <span class="muted">(${kindInWords(a)})</span>${
        a.short_description ? html`: ${oneLine(a.short_description)}` : ""
      }</li>`,
  )}</ul>`;
}

/** What each rung of the disclose.io maturity ladder adds, as a researcher weighs it. */
const RUNGS = [
  "published, with no way to reach the organization",
  "a way to reach the organization",
  "a stated scope",
  "partial safe harbor",
  "full safe harbor",
  "public disclosure allowed, with a timeline of 90 days or less",
];

function maturity(rating: number): Html {
  const has = rating > 0 ? `It has ${RUNGS.slice(1, rating + 1).join(", ")}.` : "It promises nothing yet.";
  const next = rating < 5 ? ` Not yet: ${RUNGS[rating + 1]}.` : "";
  return html`<span class="badge">${rating} of 5</span> <span class="muted">How complete this policy's promises
are, on the disclose.io ladder: each rung needs the ones below it.
${has}${next}</span>`;
}

/** Only http(s) links become links: a stored value is never trusted to be a safe URL. */
function link(url: string | null): Html | string {
  if (!url) return "";
  return /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="nofollow noopener">${oneLine(url)}</a>` : oneLine(url);
}

function contact(p: PolicyRow): Html {
  const ways = [
    p.pointOfContact ? html`<li>${oneLine(p.pointOfContact)}</li>` : null,
    p.contactUrl ? html`<li>${link(p.contactUrl)}</li>` : null,
    p.securitytxtUrl ? html`<li>security.txt: ${link(p.securitytxtUrl)}</li>` : null,
  ].filter((w) => w !== null);
  return ways.length ? html`<ul class="scope">${ways}</ul>` : html`<span class="muted">Not given: use the form on this page.</span>`;
}

/** A span of time as people say it: minutes under an hour, hours under two days, then days. */
export function durationInWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (seconds < 3_600) return plural(Math.max(1, Math.round(seconds / 60)), "minute");
  if (seconds < 48 * 3_600) return plural(Math.round(seconds / 3_600), "hour");
  return plural(Math.round(seconds / 86_400), "day");
}

/** What the policy promises about answering, and, once it has enough reports, how it kept that lately. */
function responsivenessInWords(p: PolicyRow, r: Responsiveness | null): Html {
  const targets = responseTargetsOf(p.responseTargets);
  // A promise is said exactly: in days when it is whole days, else in hours.
  const exactly = (hours: number) => (hours % 24 ? `${hours} hour${hours === 1 ? "" : "s"}` : durationInWords(hours * 3_600));
  const promise =
    `Promises to acknowledge a report within ${exactly(targets.acknowledge_hours)} ` +
    `and to triage it within ${exactly(targets.triage_hours)}.`;
  if (!r) return html`${promise} <span class="muted">Too few reports in the last 90 days to show how it keeps this.</span>`;
  const share = r.acknowledgedOnTime === null ? null : `${Math.round(r.acknowledgedOnTime * 100)}% of reports acknowledged on time`;
  const median =
    r.medianSecondsToAcknowledge === null ? null : `median time to acknowledge ${durationInWords(r.medianSecondsToAcknowledge)}`;
  const kept = [share, median].filter((s) => s !== null).join("; ");
  const lately = kept
    ? `In the last ${r.periodDays} days: ${kept}.`
    : `No report of the last ${r.periodDays} days has reached its deadline yet.`;
  return html`${promise} ${lately}`;
}

/** A policy's terms, in the order a researcher weighs them: scope, safe harbor, disclosure, timeline, contact. */
export function policyTerms(
  p: PolicyRow,
  rating: number | null,
  headingLevel: 2 | 3 = 2,
  opts: { scope?: boolean; responsiveness?: Responsiveness | null } = {},
): Html {
  const h = (text: string) => (headingLevel === 2 ? html`<h2>${text}</h2>` : html`<h3>${text}</h3>`);
  const yesNo = (v: boolean | null) => (v === null ? "Not stated" : v ? "Yes" : "No");
  return html`${h(p.name ? `Policy: ${oneLine(p.name)}` : "The disclosure policy")}
${p.shortDescription ? html`<p>${oneLine(p.shortDescription)}</p>` : ""}
<dl class="terms">
${rating === null ? "" : html`<dt>Maturity rating</dt><dd>${maturity(rating)}</dd>`}
${
  opts.scope === false
    ? ""
    : html`<dt>In scope</dt><dd>${scopeList(p.inScopeAssets, "None listed.")}</dd>
<dt>Out of scope</dt><dd>${scopeList(p.outOfScopeAssets, "None listed.")}</dd>`
}
<dt>Safe harbor</dt><dd>${p.safeHarbor ? (SAFE_HARBOR[p.safeHarbor] ?? p.safeHarbor) : "Not stated."}</dd>
<dt>Public disclosure</dt><dd>${
    p.publicDisclosure === null
      ? "Not stated."
      : p.publicDisclosure
        ? "Allowed, in coordination with the organization."
        : "Not allowed: do not publish findings."
  }</dd>
<dt>Timeline</dt><dd>${p.cvdTimeline ? `${p.cvdTimeline} days to fix before coordinated disclosure.` : "Not stated."}</dd>
<dt>Contact</dt><dd>${contact(p)}</dd>
${opts.responsiveness === undefined ? "" : html`<dt>Responsiveness</dt><dd>${responsivenessInWords(p, opts.responsiveness)}</dd>`}
<dt>Bounty</dt><dd>${yesNo(p.offersBounty)}</dd>
${p.hostedPolicyUrl ? html`<dt>Full policy</dt><dd>${link(p.hostedPolicyUrl)}</dd>` : ""}
</dl>`;
}
