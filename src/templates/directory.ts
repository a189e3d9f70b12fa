import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { DirectoryRow } from "../db/schema";
import type { PublicDirectoryEntry } from "../services/public-directories";
import { maturityRating } from "../lib/maturity";
import { document } from "./layout";
import { policyTerms } from "./terms";

/** GET /d/{slug}: organizations best rated first, each with what it chose to show, in its order. */
export function directoryPage(directory: DirectoryRow, entries: PublicDirectoryEntry[], now: string): string {
  return document(
    directory.name,
    html`<h1>${oneLine(directory.name)}</h1>
${directory.description ? html`<p class="lead">${oneLine(directory.description)}</p>` : ""}
<p class="muted">Organizations with a disclosure policy rated at least ${directory.minMaturityRating} of 5, best rated first.
The rating climbs from a published contact (1) through a scope, safe harbor, and full safe harbor, to public disclosure
within 90 days (5).</p>
${entries.length === 0 ? html`<p>No organization is listed yet.</p>` : ""}
${entries.map(
  (e) => html`<section class="card" aria-labelledby="org-${e.organization.slug}">
<h2 id="org-${e.organization.slug}">${oneLine(e.organization.name)} <span class="badge">Rated ${e.rating} of 5</span></h2>
${
  e.organization.websiteUrl && /^https?:\/\//i.test(e.organization.websiteUrl)
    ? html`<p><a href="${e.organization.websiteUrl}" rel="nofollow noopener">${oneLine(e.organization.websiteUrl)}</a></p>`
    : ""
}
${
  e.organization.claimed
    ? ""
    : html`<p class="muted">Listed from public information; the organization has not claimed this listing yet.</p>`
}
${e.items.map((i) =>
  i.type === "Policy"
    ? policyTerms(i.row, maturityRating(i.row, now), 3, { responsiveness: i.responsiveness })
    : html`<h3>Program: <a href="/b/${i.row.shortcode}">${oneLine(i.row.name)}</a></h3>${
        i.row.shortDescription ? html`<p>${oneLine(i.row.shortDescription)}</p>` : ""
      }<p><a href="/b/${i.row.shortcode}">Read the terms and report a vulnerability</a></p>`,
)}
</section>`,
)}`,
    {
      heading: "Vulnerability disclosure directory",
      description:
        directory.description ??
        `${directory.name}: organizations with a vulnerability disclosure policy, best rated first, and where to report to each.`,
    },
  );
}
