import { html } from "hono/html";
import type { BriefRow } from "../db/schema";
import { oneLine } from "../lib/text";
import { consoleDocument, csrfField, mayConfigure, type Who } from "./console-layout";
import { choice, errorSummary, type FormState, field } from "./console-forms";
import { type Html, when } from "./layout";

// /console/settings/briefs: the organization's briefs (the programs reporters send reports to), each
// with its state in words, and an owner's form for one brief's name, description and publication.

export const BRIEF_FIELDS: Record<string, string> = { name: "Name", short_description: "Short description", state: "State" };

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
});

export interface BriefsView {
  who: Who;
  briefs: BriefRow[];
  total: number;
  selected: BriefRow | null;
  form: FormState;
  saved: boolean;
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
    }</dd></dl>`;
  return html`<h2>Change ${oneLine(b.name)}</h2>
${errorSummary(form, BRIEF_FIELDS)}
<form method="post" action="/console/settings/briefs/${b.id}" novalidate>${csrfField(who)}
${field(form, "name", BRIEF_FIELDS.name!)}
${field(form, "short_description", BRIEF_FIELDS.short_description!)}
${choice(form, "state", BRIEF_FIELDS.state!, [
  ["published", b.publishedAt ? "Published (as it is)" : "Published, from now"],
  ["draft", "Draft: not shown to reporters"],
])}
<div class="actions"><button type="submit">Save the brief</button></div>
</form>`;
}
