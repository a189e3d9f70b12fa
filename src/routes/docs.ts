import { Hono } from "hono";
import { html, raw } from "hono/html";
import type { AppEnv } from "../http/app-env";
import { ERROR_CODES, ERRORS_PAGE, type ErrorCode } from "../http/errors";
import { document, PAGE_CSP } from "../templates/layout";
import { inline } from "../templates/markdown";
import { type ReferenceDocument, referencePage } from "../templates/reference";

// The reference and the error codes: pages for people, rendered by the Worker like the others (this
// origin's stylesheet, no script), the reference from the OpenAPI document the API serves.

const errorsPage = () =>
  document(
    "VDP API errors",
    html`<h1>Errors</h1>
<p>Every error answer is a JSON:API document, <code>{"errors":[...]}</code>, one object per problem. Each object has
<code>status</code> (a string), <code>code</code>, <code>title</code>, usually <code>detail</code> and <code>source</code>
(<code>pointer</code> into the request document, <code>parameter</code> for a query parameter, <code>header</code>),
<code>links.about</code> (a link to its code below) and <code>meta.request_id</code> (the <code>X-Request-Id</code> of the
answer: quote it when asking about a failure). At most 25 objects are listed; <code>meta.errors_omitted</code> says how many more there were.</p>
${(Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
  const { status, title, about } = ERROR_CODES[code];
  return html`<section id="${code}">
<h2><code>${code}</code> ${status} ${title}</h2>
<p>${raw(inline(about))}</p>
</section>`;
})}
<p><a href="/docs">The API reference</a></p>`,
    {
      heading: "VDP API reference",
      description: "Every error code of the VDP API: its status, what it means and what to do.",
      footer: html`Every error answer of the API links to its code on this page.`,
    },
  );

/** The pages' headers: their policy, and a copy any cache may keep a few minutes (they change on deploy only). */
const PAGE_HEADERS = { "Content-Security-Policy": PAGE_CSP, "Cache-Control": "public, max-age=300" };

/**
 * GET /docs and GET /docs/errors: HTML for people, no key. Each page is rendered on its first request
 * in an isolate (the reference from `served`, the OpenAPI document) and kept.
 */
export function docsRouter(served: () => ReferenceDocument) {
  let reference: string | undefined;
  let errors: string | undefined;
  return new Hono<AppEnv>()
    .get("/docs", (c) => c.html((reference ??= referencePage(served())), 200, PAGE_HEADERS))
    .get(ERRORS_PAGE, (c) => c.html((errors ??= errorsPage()), 200, PAGE_HEADERS));
}
