import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../http/app-env";
import { ERROR_CODES, ERRORS_PAGE, type ErrorCode } from "../http/errors";

// The reference page: a small HTML page from the Worker that loads the reference's script from the
// static assets (public/assets/, copied from node_modules on install), so nothing comes from a CDN and
// the Worker's bundle stays small. Its configuration rides in a data attribute: no inline script, so
// the page runs under `script-src 'self'`.
const REFERENCE_SCRIPT = "/assets/scalar-api-reference.js";
const CONFIGURATION = JSON.stringify({
  url: "/v1/openapi.json",
  withDefaultFonts: false, // the default fonts come from a third-party host
  hideClientButton: true,
  defaultOpenAllTags: true,
  hideDarkModeToggle: false,
  agent: { disabled: true }, // the assistant talks to a third-party service
  showDeveloperTools: "never",
  // Each operation's heading has a "Copy link" button placed just after its last word; when that word
  // ends the line, the button stuck out of a phone's screen and the page scrolled sideways. Room for it:
  // The markdown tables (the error codes) scroll inside themselves on a phone instead of squeezing
  // each column to a word's width (!important: the reference's own table rules are more specific).
  customCss:
    ".section-header { padding-inline-end: 2rem; } table { display: block !important; max-width: 100%; overflow-x: auto; } table th, table td { min-width: 7rem !important; } table td:last-child { min-width: 16rem !important; }",
});

// Scripts from this origin only, and no inline script; the reference's components set inline styles.
const docsHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    fontSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body>
${body}
</body>
</html>
`;

const referencePage = page(
  "VDP API reference",
  `<noscript><p>The interactive reference needs JavaScript. The same content: <a href="/v1/openapi.json">the OpenAPI document</a> and <a href="${ERRORS_PAGE}">the error codes</a>.</p></noscript>
<div id="api-reference" data-configuration='${escapeHtml(CONFIGURATION)}'></div>
<script src="${REFERENCE_SCRIPT}"></script>`,
);

const errorsPage = page(
  "VDP API errors",
  `<main>
<h1>Errors</h1>
<p>Every error answer is a JSON:API document, <code>{"errors":[...]}</code>, one object per problem. Each object has
<code>status</code> (a string), <code>code</code>, <code>title</code>, usually <code>detail</code> and <code>source</code>
(<code>pointer</code> into the request document, <code>parameter</code> for a query parameter, <code>header</code>),
<code>links.about</code> (a link to its code below) and <code>meta.request_id</code> (the <code>X-Request-Id</code> of the
answer: quote it when asking about a failure). At most 25 objects are listed; <code>meta.errors_omitted</code> says how many more there were.</p>
${(Object.keys(ERROR_CODES) as ErrorCode[])
  .map((code) => {
    const { status, title, about } = ERROR_CODES[code];
    const text = escapeHtml(about).replace(/`([^`]+)`/g, "<code>$1</code>");
    return `<section id="${code}">\n<h2><code>${code}</code> ${status} ${escapeHtml(title)}</h2>\n<p>${text}</p>\n</section>`;
  })
  .join("\n")}
<p><a href="/docs">The API reference</a></p>
</main>`,
);

/** GET /docs and GET /docs/errors: HTML for people, no key. */
export const docsRouter = new Hono<AppEnv>()
  .use("/docs", docsHeaders)
  .use("/docs/*", docsHeaders)
  .get("/docs", (c) => c.html(referencePage))
  .get(ERRORS_PAGE, (c) => c.html(errorsPage));
