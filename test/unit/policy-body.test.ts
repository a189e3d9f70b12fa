import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/lib/limits";
import { bounded, policyBody } from "../../src/templates/policy-body";

// A policy's full text as its page shows it: Markdown's forms as markup, and nothing a writer typed as
// a tag, an attribute, a script's address or an image from elsewhere.

const render = (text: string, level?: number) => String(policyBody(text, level));
/** Every tag of the output with its attributes, to check nothing outside the allowed set appears. */
const tags = (out: string) => [...out.matchAll(/<([a-z0-9]+)((?:\s[^>]*)?)>/gi)].map((m) => ({ name: m[1]!.toLowerCase(), attrs: m[2]! }));
const ALLOWED = new Set([
  "div",
  "p",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "em",
  "strong",
  "del",
  "code",
  "pre",
  "blockquote",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "hr",
  "br",
  "sup",
  "section",
]);
function harmless(out: string) {
  for (const { name, attrs } of tags(out)) {
    expect(ALLOWED.has(name), `<${name}> in ${out}`).toBe(true);
    // micromark quotes every value and encodes its quotes: outside the values, only attribute names remain.
    const names = attrs
      .replace(/="[^"]*"/g, "")
      .replace(/\/$/, "")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    for (const attr of names)
      expect(attr, `${attr} in ${out}`).toMatch(/^(href|title|id|class|role|aria-[a-z]+|tabindex|data-[a-z-]+|align)$/);
    const href = /\shref="([^"]*)"/.exec(attrs)?.[1];
    if (href !== undefined) expect(href).toMatch(/^(https:|mailto:|#)/i);
  }
  expect(out).not.toMatch(/<script|<img|<iframe|<svg|<object|<embed|<style|<form|<input/i);
}

describe("a policy's text", () => {
  it("renders headings from the page's level, never skipping one", () => {
    expect(render("# Scope\n\n## Hosts\n\ntext\n\n#### Deep\n\n# Next")).toBe(
      '<div class="policy-body"><h3>Scope</h3>\n<h4>Hosts</h4>\n<p>text</p>\n<h5>Deep</h5>\n<h3>Next</h3></div>',
    );
    expect(render("### Starts low\n\n###### Lowest", 2)).toBe('<div class="policy-body"><h2>Starts low</h2>\n<h3>Lowest</h3></div>');
    expect(render("Setext\n======")).toContain("<h3>Setext</h3>");
  });

  it("renders lists, task lists, tables, code and emphasis", () => {
    const out = render(
      "- one\n- **two**\n\n1. first\n2. *second*\n\n- [x] done\n- [ ] open\n\n| Host | In scope |\n|---|:-:|\n| a.example | yes |\n\n" +
        "`inline <b>` and ~~gone~~\n\n```js\nif (a < b) alert(1)\n```\n\n> quoted\n\n---",
    );
    expect(out).toContain("<ul>\n<li>one</li>\n<li><strong>two</strong></li>\n</ul>");
    expect(out).toContain("<ol>\n<li>first</li>\n<li><em>second</em></li>\n</ol>");
    expect(out).toContain("<li><strong>Done:</strong> done</li>");
    expect(out).toContain("<li><strong>To do:</strong> open</li>");
    expect(out).toContain('<div class="table" role="region" aria-label="Table 1" tabindex="0"><table>');
    expect(out).toContain("<th>Host</th>");
    expect(out).toContain('<td align="center">yes</td>');
    expect(out).toContain("</table></div>");
    expect(out).toContain("<code>inline &lt;b&gt;</code> and <del>gone</del>");
    expect(out).toContain('<pre><code class="language-js">if (a &lt; b) alert(1)\n</code></pre>');
    expect(out).toContain("<blockquote>\n<p>quoted</p>\n</blockquote>");
    expect(out).toContain("<hr />");
    harmless(out.replaceAll(' align="center"', ""));
  });

  it("keeps links to https and mailto addresses, and autolinks of them", () => {
    const out = render(
      "[site](https://acme.example/security) [mail](mailto:security@acme.example) <https://a.example/x> security@acme.example " +
        "https://b.example/y [^1]\n\n[^1]: A note.",
    );
    expect(out).toContain('<a href="https://acme.example/security">site</a>');
    expect(out).toContain('<a href="mailto:security@acme.example">mail</a>');
    expect(out).toContain('<a href="https://a.example/x">https://a.example/x</a>');
    expect(out).toContain('<a href="mailto:security@acme.example">security@acme.example</a>');
    expect(out).toContain('<a href="https://b.example/y">https://b.example/y</a>');
    // A footnote links within the page.
    expect(out).toContain('href="#user-content-fn-1"');
    harmless(out);
  });

  it("takes the href from every other link: javascript:, data:, vbscript:, http:, relative, reference and autolink", () => {
    for (const link of [
      "[x](javascript:alert(1))",
      "[x](JaVaScRiPt:alert(1))",
      "[x](java&#115;cript:alert(1))",
      "[x](&#x6A;avascript:alert(1))",
      "[x](<javascript:alert(1)>)",
      "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
      "[x](vbscript:msgbox(1))",
      "[x](http://acme.example)",
      "[x](//evil.example)",
      "[x](/console)",
      "[x][r]\n\n[r]: javascript:alert(1)",
      "<javascript:alert(1)>",
      "<data:text/html,x>",
      "<irc://irc.example>",
      "www.acme.example",
      '[x](https://a.example "title\\" onmouseover=\\"alert(1)")',
    ]) {
      const out = render(link);
      harmless(out);
      expect(out, link).not.toMatch(/href="(?!https:|#)/i);
    }
    expect(render("[x](javascript:alert(1))")).toBe('<div class="policy-body"><p><a>x</a></p></div>');
  });

  it("writes raw HTML out as text: script, img onerror, blocks and inline tags", () => {
    for (const text of [
      "<script>alert(1)</script>",
      "<img src=x onerror=alert(1)>",
      '<div onclick="alert(1)">\n\n*block*\n\n</div>',
      "para <b onmouseover=alert(1)>bold</b> <!-- comment --> <?php ?> <![CDATA[x]]>",
      "<iframe src=https://evil.example></iframe>",
      "<svg><script>alert(1)</script></svg>",
      "<style>body{display:none}</style>",
      "<a href=javascript:alert(1)>x</a>",
    ]) {
      const out = render(text);
      harmless(out);
      expect(out).toContain("&lt;");
    }
    expect(render("<script>alert(1)</script>")).toBe('<div class="policy-body">&lt;script&gt;alert(1)&lt;/script&gt;</div>');
  });

  it("loads no image: an https one is a link named by its alt text, any other its alt text", () => {
    expect(render("![Our logo](https://cdn.example/logo.png)")).toBe(
      '<div class="policy-body"><p><a href="https://cdn.example/logo.png">Our logo</a></p></div>',
    );
    expect(render("![](https://cdn.example/logo.png)")).toContain('<a href="https://cdn.example/logo.png">Image</a>');
    expect(render("![x](javascript:alert(1)) ![y](http://a.example/i.png) ![z](data:image/png;base64,AA)")).toBe(
      '<div class="policy-body"><p>x y z</p></div>',
    );
    // Inside a link, the link stays the only one.
    expect(render("[![logo](https://cdn.example/l.png)](https://acme.example)")).toBe(
      '<div class="policy-body"><p><a href="https://acme.example">logo</a></p></div>',
    );
    expect(render('![a" onerror="alert(1)](https://x.example/i.png)')).not.toContain('" onerror');
  });

  it("cuts a huge text to the limit before reading it", () => {
    const huge = `${"a".repeat(LIMITS.policyBodyLength)}TAIL`;
    expect(bounded(huge)).toHaveLength(LIMITS.policyBodyLength);
    expect(render(huge)).not.toContain("TAIL");
  });

  it("bounds the work of any text: runs of delimiters and deep quotes are read as plain characters", () => {
    // Unbounded, micromark takes over a minute on the first of these in Node (its emphasis is quadratic in one
    // paragraph), and 15 s on the deep quotes; bounded, a second or less each.
    const n = LIMITS.policyBodyLength;
    for (const text of ["*a", "**_", "~a", "[a](", "> "].map((p) => p.repeat(n).slice(0, n))) {
      const out = render(text);
      harmless(out);
      expect(out.length).toBeLessThan(20 * n);
    }
    // An ordinary paragraph is untouched, and so is fenced code however many delimiters it holds.
    expect(bounded("some *emphasis* and [a link](https://a.example)")).toBe("some *emphasis* and [a link](https://a.example)");
    const code = `\`\`\`\n${"*a ".repeat(1000)}\n\`\`\``;
    expect(bounded(code)).toBe(code);
    expect(bounded("*a ".repeat(1000))).toBe("\\*a ".repeat(1000));
    expect(bounded(`${"> ".repeat(40)}x`)).toBe(`${"> ".repeat(16)}\\${"> ".repeat(24).slice(0)}x`);
  });
});
