import { html } from "hono/html";
import { oneLine } from "../lib/text";
import { document, programFinder } from "./layout";

export interface DirectoryLink {
  name: string;
  slug: string;
  description: string | null;
}

/** GET / in a browser: where a person starts (the JSON index answers everything else). */
export function homePage(directories: DirectoryLink[]): string {
  return document(
    "Vulnerability disclosure",
    html`<h1>Report a vulnerability, or find a program</h1>
<p class="lead">Organizations publish their disclosure programs here; researchers read the terms and send reports through them,
with no account.</p>
<h2>Open a program</h2>
${programFinder()}
<h2>Directories</h2>
${
  directories.length
    ? html`<ul class="scope">${directories.map(
        (d) => html`<li><a href="/d/${d.slug}">${oneLine(d.name)}</a>${d.description ? html`: ${oneLine(d.description)}` : ""}</li>`,
      )}</ul>`
    : html`<p class="muted">No directory is published yet.</p>`
}
<h2>For developers</h2>
<ul class="scope">
<li><a href="/docs">The API reference</a>: every operation, its parameters and its errors.</li>
<li><a href="/v1/openapi.json">The OpenAPI document</a>, to generate a client.</li>
<li><a href="/docs/errors">The error codes</a>.</li>
</ul>`,
    { description: "Report a security vulnerability through an organization's disclosure program, or browse directories of programs." },
  );
}
