import { html } from "hono/html";
import { oneLine } from "../lib/text";
import { PAGES_CSS_PATH } from "./styles";

/** The pages' icon (a shield, in the header's colour), also answered at /favicon.ico where browsers look first. */
export const ICON_PATH = "/favicon.svg";
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<path fill="#0b3d59" d="M16 2 4 6v9c0 7.5 5.1 13.3 12 15 6.9-1.7 12-7.5 12-15V6z"/>' +
  '<path fill="#fff" d="m14 21-5-5 2-2 3 3 7-7 2 2z"/></svg>';

/** A piece of markup: `html` results stay synchronous here (no promise is ever interpolated). */
export type Html = ReturnType<typeof html>;

/**
 * The pages' policy: this origin's stylesheet and nothing else, forms posting back here only. No
 * script at all: every page works without one.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The console's policy: the pages' own, and this origin's one script (passkeys), which may call back
 * here only. No inline script, no other origin.
 */
export const CONSOLE_CSP = `${PAGE_CSP}; script-src 'self'; connect-src 'self'`;

/**
 * A brief's page: the pages' own, and this origin's gate script (gate-script.ts), which fetches the
 * proof-of-work challenge from here and solves it in workers loaded from here. No inline script, no
 * blob: worker, no other origin.
 */
export const BRIEF_CSP = `${PAGE_CSP}; script-src 'self'; connect-src 'self'; worker-src 'self'`;

/**
 * A whole page. `html` escapes every interpolated string, so user text can only ever be text; the
 * only markup is this file's and its callers' templates.
 */
export function document(
  title: string,
  main: Html | Html[],
  opts: { heading?: string; description?: string; footer?: Html; script?: string; nav?: Html; wide?: boolean } = {},
): string {
  // The title, the header and the description name records: each one line, whatever a row kept holds.
  return String(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${oneLine(title)}</title>
${
  opts.description ? html`<meta name="description" content="${oneLine(opts.description)}">\n` : ""
}<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${PAGES_CSS_PATH}">
${
  opts.script
    ? html`<script src="${opts.script}" defer></script>
`
    : ""
}</head>
<body${opts.wide ? html` class="wide"` : ""}>
<header class="site"><div class="wrap"><p>${oneLine(opts.heading ?? "Vulnerability disclosure")}</p></div>${opts.nav ?? ""}</header>
<main id="main" class="wrap">
${main}
</main>
<footer class="site"><div class="wrap">
<p>${opts.footer ?? "Reports sent here go to the organization named on the page, through its disclosure program."} ${
    opts.script
      ? "The one script this page runs is this site's own; nothing loads from another site."
      : "Nothing on these pages runs a script or loads anything from another site."
  }</p>
</div></footer>
</body>
</html>
`);
}

/** A form that opens a disclosure program by the code on its page or link (GET /b?code=...). */
export function programFinder(): Html {
  return html`<form method="get" action="/b" class="finder">
<div class="field">
<label for="code">Program code</label>
<span class="hint" id="code-hint">As on the program's page or in its link, e.g. DEMX-0001. Any case.</span>
<input type="text" id="code" name="code" required maxlength="20" autocapitalize="characters" spellcheck="false"
  aria-describedby="code-hint">
</div>
<button type="submit">Open the program</button>
</form>`;
}

export function notFoundPage(what = "page"): string {
  return document(
    "Not found",
    html`<h1>Not found</h1>
<p class="lead">There is no ${what} at this address.</p>
<p>If someone gave you this link, check that it was copied in full. A disclosure program that was withdrawn is no longer shown here;
a report link that does not open any more belongs to a report that was deleted.</p>
<h2>Where next</h2>
${programFinder()}
<p><a href="/">The start page</a> lists the directories of programs and the API's reference.</p>`,
  );
}

export function tooManyPage(retryAfter: number): string {
  return document(
    "Too many requests",
    html`<h1>Too many requests</h1>
<p class="lead">This address sent too many requests in the last minute.</p>
<p>Nothing you typed was sent to anyone by this answer. Wait ${retryAfter} seconds, then go back and send the form again:
most browsers keep what you typed when you go back.</p>`,
  );
}

export function problemPage(title: string, text: string): string {
  return document(title, html`<h1>${title}</h1><p class="lead">${text}</p>`);
}

/** A date-time as people read it, in UTC so the cached page is the same for everyone. */
export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
