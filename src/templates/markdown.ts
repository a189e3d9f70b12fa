import { html, raw } from "hono/html";
import type { Html } from "./layout";

// The few Markdown forms the OpenAPI document's descriptions use, rendered as the pages render
// everything: every character of the text escaped first, then only these forms become markup.
// Blocks: "## heading", "| table |" rows, "- list" items, paragraphs. Inline: `code`, **strong**,
// [text](link) to this site (/...), an anchor (#...) or https.

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** One line's inline forms, as markup (the text escaped). */
export function inline(text: string): string {
  // Code spans are set aside first, so what is inside them is never read as another form.
  const codes: string[] = [];
  return escapeHtml(text.replaceAll("\uE000", ""))
    .replace(/`([^`]+)`/g, (_, code: string) => `\uE000${codes.push(code) - 1}\uE000`)
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/\[([^\]]+)\]\(((?:\/|#|https:\/\/)[^)\s]*)\)/g, '<a href="$2">$1</a>')
    .replace(/\uE000(\d+)\uE000/g, (_, n: string) => `<code>${codes[Number(n)]}</code>`);
}

/** A table that scrolls inside itself on a narrow screen, reachable by keyboard as a named region. */
export function scrolling(label: string, table: Html): Html {
  return html`<div class="table" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());

/** A description as markup: headings start at `headingLevel` (a "##" in the text becomes that level). */
export function markdown(text: string, headingLevel = 3): Html {
  const blocks: string[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, headingLevel + heading[1]!.length - 2);
      blocks.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
      i++;
      continue;
    }
    if (line.trimStart().startsWith("|")) {
      const rows: string[] = [];
      while (i < lines.length && lines[i]!.trimStart().startsWith("|")) rows.push(lines[i++]!);
      const [head, , ...body] = rows;
      const ths = cells(head!).map((c) => `<th scope="col">${inline(c)}</th>`);
      const trs = body.map(
        (r) =>
          `<tr>${cells(r)
            .map((c) => `<td>${inline(c)}</td>`)
            .join("")}</tr>`,
      );
      const table = `<table><thead><tr>${ths.join("")}</tr></thead><tbody>${trs.join("")}</tbody></table>`;
      blocks.push(String(scrolling(`Table: ${cells(head!).join(", ")}`.replace(/`/g, ""), raw(table))));
      continue;
    }
    if (/^\s*[-*]\s+/.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^\s*[-*]\s+/.test(lines[i]!)) items.push(lines[i++]!.replace(/^\s*[-*]\s+/, ""));
      blocks.push(`<ul>${items.map((item) => `<li>${inline(item)}</li>`).join("")}</ul>`);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "" && !/^(#{1,6}\s|\s*\||\s*[-*]\s)/.test(lines[i]!)) paragraph.push(lines[i++]!);
    blocks.push(`<p>${inline(paragraph.join(" "))}</p>`);
  }
  return html`${raw(blocks.join("\n"))}`;
}
