import { html } from "hono/html";
import { oneLine } from "../lib/text";
import { maturityRating } from "../lib/maturity";
import type { PublishedPolicy } from "../services/policy-versions";
import { document, when } from "./layout";
import { policyTerms } from "./terms";
import { policyBody } from "./policy-body";

/** GET /p/{shortcode}: a published policy for people, its open programs, and every version of its terms. */
export function policyPage({ policy, organization, briefs, versions, advisories, responsiveness }: PublishedPolicy, now: string): string {
  const name = oneLine(organization.name);
  const title = oneLine(policy.name ?? "Vulnerability disclosure policy");
  return document(
    `${title} · ${name}`,
    html`<p class="muted">${name}${
      organization.websiteUrl && /^https?:\/\//i.test(organization.websiteUrl)
        ? html` · <a href="${organization.websiteUrl}" rel="nofollow noopener">${oneLine(organization.websiteUrl)}</a>`
        : ""
    }</p>
<h1>${title}</h1>
${policyTerms({ ...policy, name: null }, maturityRating(policy, now), 2, { responsiveness })}
${policy.body ? html`<h2>The policy in full</h2>${policyBody(policy.body, 3)}` : ""}
<h2>Report through</h2>
${
  briefs.length
    ? html`<ul class="scope">${briefs.map(
        (b) =>
          html`<li><a href="/b/${b.shortcode}">${oneLine(b.name)}</a>${
            b.shortDescription ? html`: ${oneLine(b.shortDescription)}` : ""
          }</li>`,
      )}</ul>`
    : html`<p>${name} has no open program under this policy right now.</p>`
}
${
  advisories.length
    ? html`<h2>Advisories</h2><ul class="scope">${advisories.map(
        (a) =>
          html`<li><a href="/a/${a.id}">${oneLine(a.title)}</a>${a.cveId ? html` <span class="muted mono">${a.cveId}</span>` : ""}${
            a.state === "withdrawn" ? html` <span class="muted">(withdrawn)</span>` : ""
          }${a.publishedAt ? html`, ${when(a.publishedAt)}` : ""}</li>`,
      )}</ul>`
    : ""
}
${
  policy.hallOfFame
    ? html`<h2>Hall of fame</h2><p><a href="/h/${policy.shortcode}">The researchers ${name} thanks</a>, by the names they chose.</p>`
    : ""
}
<h2>Versions of these terms</h2>
<p>Every change of the terms above makes a new version; none is ever changed. A report records the version in force when it was sent,
and its receipt states it. Each version's SHA-256 is over its terms as RFC 8785 canonical JSON, so anyone can check it.</p>
${
  versions.length
    ? html`<ul class="scope">${versions.map(
        (v) =>
          html`<li><a href="/v1/p/policies/${policy.shortcode}/versions/${String(v.number)}">Version ${String(v.number)}</a>,
${when(v.createdAt)} <span class="muted mono">SHA-256 ${v.sha256}</span></li>`,
      )}</ul>`
    : html`<p class="muted">The first version of these terms is being recorded.</p>`
}`,
    {
      heading: `${name} · Vulnerability disclosure`,
      description: `${name}'s vulnerability disclosure policy: its terms, where to report, and every version of the terms.`,
    },
  );
}
