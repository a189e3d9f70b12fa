import { raw } from "hono/html";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import { LIMITS } from "../lib/limits";
import type { Html } from "./layout";

// A policy's full text (Markdown: CommonMark and GitHub's tables, task lists, strikethrough, footnotes,
// autolinks), rendered by micromark with raw HTML off: every `<` a writer typed comes out as `&lt;`, so
// every tag in micromark's output is one micromark made, in its own fixed spelling, with its attribute
// values encoded (a `"` inside one is `&quot;`). That makes the pass after it exact: it reads those
// tags alone and narrows them to what a policy page may hold.
//
// - A link keeps its href only to an https: or mailto: address, or to a place on the same page (a
//   footnote's `#user-content-...`); any other (http:, javascript:, data:, vbscript:, relative, or one
//   micromark emptied) loses it and stays its text.
// - An image is never loaded (the pages' CSP forbids other origins anyway): an https one becomes a link
//   to it named by its alt text, any other its alt text.
// - A task list's checkbox becomes a word ("Done:" / "To do:"), headings start at the page's level and
//   never skip one, and a table scrolls inside a named region on a narrow screen.
//
// micromark's inline resolution is quadratic in the delimiters of one paragraph (100,000 characters of
// `*a` take over a minute), and its containers in their depth; `bounded` escapes such runs before the
// parse, so the work is bounded whatever the text, and ordinary text renders as written.

/** Emphasis and link delimiters one paragraph may hold before they are read as plain characters. */
const DELIMITERS_PER_PARAGRAPH = 400;
/** Block quotes a line may open before the rest are read as text. */
const QUOTE_DEPTH = 16;

const DEEP_QUOTE = new RegExp(`^(?:[ \\t]*>){${QUOTE_DEPTH + 1}}`);
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The text as micromark will read it, made cheap to read: cut to the limit, and in each paragraph with
 * more delimiters than a text needs (`*`, `_`, `~`, `[`, `]`), each escaped. Fenced code is left alone.
 */
export function bounded(text: string): string {
  const lines = text.slice(0, LIMITS.policyBodyLength).replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  let run: string[] = [];
  const flush = () => {
    const delimiters = run.reduce((n, line) => n + (line.match(/[*_~[\]]/g)?.length ?? 0), 0);
    for (const line of run) out.push(delimiters > DELIMITERS_PER_PARAGRAPH ? escapeDelimiters(line) : line);
    run = [];
  };
  for (const line of lines) {
    const opens = FENCE.exec(line)?.[1];
    if (fence !== null) {
      out.push(line);
      if (opens && opens[0] === fence[0] && opens.length >= fence.length && line.trim() === opens) fence = null;
    } else if (opens) {
      flush();
      out.push(line);
      fence = opens;
    } else if (line.trim() === "") {
      flush();
      out.push(line);
    } else run.push(shallowQuotes(line));
  }
  flush();
  return out.join("\n");
}

const escapeDelimiters = (line: string) => line.replace(/\\[\s\S]|[*_~[\]]/g, (m) => (m.length === 2 ? m : `\\${m}`));

/** A line's block quotes past QUOTE_DEPTH: the next `>` escaped, so the rest is the innermost quote's text. */
function shallowQuotes(line: string): string {
  if (!DEEP_QUOTE.test(line)) return line;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === ">" && ++depth === QUOTE_DEPTH + 1) return `${line.slice(0, i)}\\${line.slice(i)}`;
  }
  return line;
}

const LINK_TARGET = /^(?:https:|mailto:|#)/i;
/** Every tag the pass changes, as micromark spells it (see above). */
const TAG = /<(\/?)(a|img|input|table|h[1-6])\b([^>]*)>/g;

/** The policy's text as markup, headings starting at `headingLevel`. */
export function policyBody(text: string, headingLevel = 3): Html {
  const html = micromark(bounded(text), { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
  let inLink = 0;
  let tables = 0;
  let previousHeading = headingLevel - 1;
  let openHeading = headingLevel;
  const narrowed = html.replace(TAG, (tag, closing: string, name: string, attributes: string) => {
    if (name === "a") {
      if (closing) {
        inLink--;
        return tag;
      }
      inLink++;
      return tag.replace(/ href="([^"]*)"/, (h, href: string) => (LINK_TARGET.test(href) ? h : ""));
    }
    if (name === "img") {
      const src = / src="([^"]*)"/.exec(attributes)?.[1] ?? "";
      const alt = / alt="([^"]*)"/.exec(attributes)?.[1] || "";
      if (inLink || !/^https:/i.test(src)) return alt;
      return `<a href="${src}">${alt || "Image"}</a>`;
    }
    if (name === "input") return / checked=""/.test(attributes) ? "<strong>Done:</strong>" : "<strong>To do:</strong>";
    if (name === "table")
      return closing ? "</table></div>" : `<div class="table" role="region" aria-label="Table ${++tables}" tabindex="0">${tag}`;
    if (closing) return `</h${openHeading}>`;
    openHeading = Math.min(6, headingLevel + Number(name[1]) - 1, previousHeading + 1);
    previousHeading = openHeading;
    return `<h${openHeading}${attributes}>`;
  });
  return raw(`<div class="policy-body">${narrowed}</div>`);
}
