import { describe, expect, it } from "vitest";
import { inline, markdown } from "../../src/templates/markdown";

// The reference renders the OpenAPI document's descriptions: text stays text, and only the few forms
// the descriptions use become markup.
describe("the reference's Markdown", () => {
  it("escapes every character of markup before reading any form", () => {
    expect(inline(`<script>alert("x")</script> & 'q'`)).toBe("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;q&#39;");
    expect(inline("`<b>`")).toBe("<code>&#60;b&#62;</code>");
  });

  it("reads code, strong text and links to this site, an anchor or https, and nothing else as a link", () => {
    expect(inline("**Keys.** Send `Authorization: Bearer vdp_...`.")).toBe(
      "<strong>Keys.</strong> Send <code>Authorization: Bearer vdp_...</code>.",
    );
    expect(inline("[`bad_request`](/docs/errors#bad_request)")).toBe('<a href="/docs/errors#bad_request"><code>bad_request</code></a>');
    expect(inline("[spec](https://jsonapi.org/format/)")).toBe('<a href="https://jsonapi.org/format/">spec</a>');
    expect(inline("[x](javascript:alert(1))")).toBe("[x](javascript:alert(1))");
    expect(inline("[x](http://example.com)")).toBe("[x](http://example.com)");
    expect(inline('[x](/a"onmouseover="b)')).not.toContain('"onmouseover');
    // Inside code, ** and [..](..) are text.
    expect(inline("`**a** [b](/c)`")).toBe("<code>**a** [b](/c)</code>");
  });

  it("makes headings at the level asked, tables with header cells, lists and paragraphs", () => {
    const out = String(
      markdown("Intro line one\nline two.\n\n## Errors\n\n| status | code |\n|---|---|\n| 400 | `bad_request` |\n\n- one\n- two", 2),
    );
    expect(out).toBe(
      [
        "<p>Intro line one line two.</p>",
        "<h2>Errors</h2>",
        '<div class="table" role="region" aria-label="Table: status, code" tabindex="0"><table><thead><tr><th scope="col">status</th><th scope="col">code</th></tr></thead><tbody><tr><td>400</td><td><code>bad_request</code></td></tr></tbody></table></div>',
        "<ul><li>one</li><li>two</li></ul>",
      ].join("\n"),
    );
    expect(String(markdown("## A", 4))).toBe("<h4>A</h4>");
  });
});
