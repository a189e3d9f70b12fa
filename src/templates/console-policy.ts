import { html } from "hono/html";
import type { PolicyRow, PolicyVersionRow } from "../db/schema";
import { type DiffLine, diffLines } from "../lib/line-diff";
import { oneLine } from "../lib/text";
import type { PolicyTerms } from "../services/policy-versions";
import { consoleDocument, csrfField, mayConfigure, type Who } from "./console-layout";
import { choice, errorSummary, type FormState, field } from "./console-forms";
import { type Html, when } from "./layout";
import { policyBody } from "./policy-body";

// /console/settings/policy: the organization's policies, one at a time: its fields (a form for owners,
// the same through PATCH /v1/policies/{id}'s service), its text as the public page shows it, its
// versions, and the difference between any two of them, line by line, each change said in words.

export const POLICY_FIELDS: Record<string, string> = {
  name: "Name",
  short_description: "Short description",
  point_of_contact: "Point of contact",
  contact_url: "Contact URL",
  safe_harbor: "Safe harbor",
  cvd_timeline: "Days to fix before disclosure",
  public_disclosure: "Public disclosure",
  offers_bounty: "Bounty",
  offers_swag: "Swag",
  hall_of_fame: "Hall of fame",
  body: "The policy's text (Markdown)",
};
export const YES_NO_FIELDS = ["public_disclosure", "offers_bounty", "offers_swag", "hall_of_fame"] as const;

const yesNo = (v: boolean | null) => (v === null ? "" : v ? "yes" : "no");

/** A policy's fields as the form shows them. */
export function policyFormValues(p: PolicyRow): Record<string, string> {
  return {
    name: p.name ?? "",
    short_description: p.shortDescription ?? "",
    point_of_contact: p.pointOfContact ?? "",
    contact_url: p.contactUrl ?? "",
    safe_harbor: p.safeHarbor ?? "",
    cvd_timeline: p.cvdTimeline === null ? "" : String(p.cvdTimeline),
    ...Object.fromEntries(YES_NO_FIELDS.map((f) => [f, yesNo(p[camel(f)] as boolean | null)])),
    body: p.body ?? "",
  };
}
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof PolicyRow;

/** A version's terms as lines of text, the unit the diff compares. */
export function termsLines(t: PolicyTerms): string[] {
  const said = (v: string | null) => v ?? "(not said)";
  const flag = (v: boolean | null) => (v === null ? "(not said)" : v ? "yes" : "no");
  const r = t.response_targets;
  const scope = (label: string, list: PolicyTerms["in_scope_assets"]) =>
    list.map((e) => `${label}: ${e.kind} ${e.value}${e.short_description ? ` (${e.short_description})` : ""}`);
  return [
    `Name: ${said(t.name)}`,
    `Short description: ${said(t.short_description)}`,
    `Point of contact: ${said(t.point_of_contact)}`,
    `Contact URL: ${said(t.contact_url)}`,
    `Safe harbor: ${said(t.safe_harbor)}`,
    `Public disclosure: ${flag(t.public_disclosure)}`,
    `Days to fix before disclosure: ${t.cvd_timeline ?? "(not said)"}`,
    `Bounty: ${flag(t.offers_bounty)}`,
    `Swag: ${flag(t.offers_swag)}`,
    `Hall of fame: ${flag(t.hall_of_fame)}`,
    `Acknowledge within: ${r.acknowledge_hours} hours`,
    `Triage within: ${r.triage_hours} hours`,
    ...Object.entries(r.resolve_days).map(([severity, days]) => `Resolve ${severity} within: ${days} days`),
    ...scope("In scope", t.in_scope_assets),
    ...scope("Out of scope", t.out_of_scope_assets),
    ...(t.body === undefined ? ["Text: (none)"] : ["Text:", ...t.body.split("\n")]),
  ];
}

export interface PolicySettingsView {
  who: Who;
  policies: PolicyRow[];
  selected: PolicyRow | null;
  versions: Pick<PolicyVersionRow, "number" | "sha256" | "createdAt">[];
  compare: { from: PolicyVersionRow; to: PolicyVersionRow } | null;
  form: FormState;
  saved: boolean;
}

const href = (p: PolicyRow, query = "") => `/console/settings/policy?policy=${p.id}${query}`;
const policyName = (p: PolicyRow) => oneLine(p.name ?? "Untitled policy");

export function policySettingsPage(view: PolicySettingsView): string {
  const { who, policies, selected } = view;
  return consoleDocument(
    who,
    "settings",
    selected ? `Policy: ${policyName(selected)}` : "Policy",
    html`<p><a href="/console/settings">Settings</a></p>
<h1>Policy</h1>
${
  policies.length > 1
    ? html`<nav aria-label="Policies"><ul class="tabs">${policies.map(
        (p) => html`<li><a href="${href(p)}"${p.id === selected?.id ? html` aria-current="page"` : ""}>${policyName(p)}</a></li>`,
      )}</ul></nav>`
    : ""
}
${selected ? policySections(view, selected) : html`<p>${oneLine(who.organization)} has no policy yet.</p>`}`,
  );
}

function policySections(view: PolicySettingsView, p: PolicyRow): Html {
  const { who, form } = view;
  const state = p.publishedAt
    ? html`<span class="state met">Published</span> since ${when(p.publishedAt)}: <a href="/p/${p.shortcode}">its public page</a>`
    : html`<span class="state">Draft</span>, not shown to anyone outside the organization`;
  return html`<h2>${policyName(p)}</h2>
<p>${state}.</p>
${view.saved ? html`<p class="notice" role="status">Saved. A change of the terms is a new version below.</p>` : ""}
${mayConfigure(who) ? policyForm(p, form, who) : policyFacts(p)}
${p.body ? html`<h2>The text as its page shows it</h2>${policyBody(p.body, 3)}` : ""}
${versionsSection(view, p)}`;
}

function policyForm(p: PolicyRow, form: FormState, who: Who): Html {
  const yesNoChoice = (name: string) =>
    choice(form, name, POLICY_FIELDS[name]!, [
      ["", "Not said"],
      ["yes", "Yes"],
      ["no", "No"],
    ]);
  return html`${errorSummary(form, POLICY_FIELDS)}
<form method="post" action="/console/settings/policy/${p.id}" novalidate>${csrfField(who)}
${field(form, "name", POLICY_FIELDS.name!)}
${field(form, "short_description", POLICY_FIELDS.short_description!)}
${field(form, "point_of_contact", POLICY_FIELDS.point_of_contact!, { hint: "An e-mail address or a name." })}
${field(form, "contact_url", POLICY_FIELDS.contact_url!, { type: "url" })}
${choice(form, "safe_harbor", POLICY_FIELDS.safe_harbor!, [
  ["", "Not said"],
  ["full", "Full"],
  ["partial", "Partial"],
  ["none", "None"],
])}
${field(form, "cvd_timeline", POLICY_FIELDS.cvd_timeline!, { type: "number", hint: "0 to 365." })}
<fieldset><legend>What the policy offers</legend>${YES_NO_FIELDS.map(yesNoChoice)}</fieldset>
${field(form, "body", POLICY_FIELDS.body!, {
  rows: 16,
  hint: "Markdown: headings, lists, tables, code, emphasis and links to https: or mailto: addresses. HTML is shown as text.",
})}
<div class="actions"><button type="submit">Save the policy</button></div>
</form>`;
}

function policyFacts(p: PolicyRow): Html {
  const values = policyFormValues(p);
  const shown = (name: string) => {
    const v = values[name] ?? "";
    if (name === "safe_harbor" || YES_NO_FIELDS.includes(name as never))
      return v === "" ? "Not said" : v === "yes" ? "Yes" : v === "no" ? "No" : v;
    return v === "" ? "Not said" : oneLine(v);
  };
  return html`<p>Only the organization's owners change the policy.</p>
<dl class="terms">${Object.keys(POLICY_FIELDS)
    .filter((n) => n !== "body")
    .map((n) => html`<dt>${POLICY_FIELDS[n]}</dt><dd>${shown(n)}</dd>`)}</dl>`;
}

function versionsSection(view: PolicySettingsView, p: PolicyRow): Html {
  const { versions, compare } = view;
  const options = (chosen: number | undefined) =>
    versions.map(
      (v) => html`<option value="${String(v.number)}"${v.number === chosen ? " selected" : ""}>Version ${String(v.number)}</option>`,
    );
  const [newest, previous] = [versions[0]?.number, versions[1]?.number ?? versions[0]?.number];
  return html`<h2>Versions of the terms</h2>
<p>Every change of the terms is a new version, never changed afterwards; a report records the one in force when it came in.</p>
<table class="stack">
<thead><tr><th scope="col">Version</th><th scope="col">Made</th><th scope="col">SHA-256</th></tr></thead>
<tbody>${versions.map(
    (v) => html`<tr><td data-label="Version">${String(v.number)}</td><td data-label="Made">${when(v.createdAt)}</td>
<td data-label="SHA-256" class="mono">${v.sha256}</td></tr>`,
  )}</tbody></table>
${
  versions.length > 1
    ? html`<h2 id="compare">Compare two versions</h2>
<form method="get" action="/console/settings/policy" class="toolbar"><input type="hidden" name="policy" value="${p.id}">
<div class="field"><label for="from">From</label><select id="from" name="from">${options(compare?.from.number ?? previous)}</select></div>
<div class="field"><label for="to">To</label><select id="to" name="to">${options(compare?.to.number ?? newest)}</select></div>
<button type="submit">Compare</button></form>
${compare ? diffSection(compare.from, compare.to) : ""}`
    : ""
}`;
}

function diffSection(from: PolicyVersionRow, to: PolicyVersionRow): Html {
  const lines = diffLines(termsLines(JSON.parse(from.terms) as PolicyTerms), termsLines(JSON.parse(to.terms) as PolicyTerms));
  const added = lines.filter((l) => l.kind === "added").length;
  const removed = lines.filter((l) => l.kind === "removed").length;
  const count = (n: number, what: string) => `${n} line${n === 1 ? "" : "s"} ${what}`;
  return html`<h3>From version ${String(from.number)} to version ${String(to.number)}</h3>
<p>${added || removed ? `${count(added, "added")}, ${count(removed, "removed")}.` : "The two versions' terms are the same."}
Added lines are marked +, removed ones −.</p>
<div class="diff">${lines.map(diffLine)}</div>`;
}

function diffLine(l: DiffLine): Html {
  if (l.kind === "added") return html`<ins class="line"><span class="visually-hidden">Added: </span>+ ${l.text}</ins>`;
  if (l.kind === "removed") return html`<del class="line"><span class="visually-hidden">Removed: </span>− ${l.text}</del>`;
  return html`<span class="line">  ${l.text}</span>`;
}
