import { html } from "hono/html";
import { oneLine } from "../lib/text";
import type { HallOfFame } from "../services/hall-of-fame";
import { document } from "./layout";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const monthText = (ym: string) => `${MONTHS[Number(ym.slice(5, 7)) - 1]} ${ym.slice(0, 4)}`;

/** GET /h/{shortcode}: the people a policy thanks, by the names they chose, newest first. */
export function hallOfFamePage(hall: HallOfFame): string {
  const name = oneLine(hall.organization.name);
  const policyName = oneLine(hall.policy.name ?? "Vulnerability disclosure policy");
  return document(
    `Hall of fame · ${name}`,
    html`<p class="muted">${name} · <a href="/p/${hall.policy.shortcode}">${policyName}</a></p>
<h1>Hall of fame</h1>
<p>${name} thanks the people who reported vulnerabilities it then fixed or disclosed. Each is listed by the name they chose, only with
their consent, with the month of the report and its severity.</p>
${
  hall.entries.length
    ? // Only a name is free text, wrapped anywhere to fit a phone; the labels and short values keep whole
      // (overflow-wrap:anywhere lets the table squeeze any cell to a letter's width: "Severi / ty").
      html`<table>
<thead><tr><th scope="col">Name</th><th scope="col" class="nowrap">Reported</th><th scope="col" class="nowrap">Severity</th></tr></thead>
<tbody>${hall.entries.map(
        (e) =>
          html`<tr><td>${oneLine(e.name)}</td><td class="nowrap">${monthText(e.month)}</td><td class="nowrap">${
            e.severity ? e.severity[0]!.toUpperCase() + e.severity.slice(1) : "Not rated"
          }</td></tr>`,
      )}</tbody>
</table>`
    : html`<p class="muted">Nobody is listed yet.</p>`
}`,
    { heading: `${name} · Hall of fame`, description: `The researchers ${name} thanks for reporting vulnerabilities.` },
  );
}
