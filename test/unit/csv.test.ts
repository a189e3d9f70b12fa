import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { csvCell, csvDocument } from "../../src/lib/csv";

// RFC 4180: records end in CRLF; a field holding a comma, a double quote, CR or LF is quoted, its
// quotes doubled. A cell a spreadsheet would run as a formula is made text first (OWASP's CSV
// injection advice), since an audit row carries what clients sent (a User-Agent, a key's name).

const parse = (text: string) => Papa.parse<string[]>(text, { newline: "\r\n" });

describe("the CSV writer", () => {
  it("writes fields that a standard parser reads back exactly, whatever they hold", () => {
    const rows = [
      ["plain", "with, comma", 'with "quotes"', "line\r\nbreak", "lone\nLF", "lone\rCR", "", "ünïcødé ☃"],
      ["a", "b", "c", "d", "e", "f", "g", "h"],
    ];
    const text = csvDocument(["one", "two", "three", "four", "five", "six", "seven", "eight"], rows);
    expect(text.endsWith("\r\n")).toBe(true);
    const parsed = parse(text.slice(0, -2));
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([["one", "two", "three", "four", "five", "six", "seven", "eight"], ...rows]);
  });

  it("leaves empty for null and quotes only where it must", () => {
    expect(csvDocument(["a", "b"], [[null, "x"]])).toBe("a,b\r\n,x\r\n");
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
  });

  it("makes a cell that would start a formula text, and keeps the rest of it", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
      const cell = `${start}HYPERLINK("http://evil.example","x")`;
      expect(parse(csvCell(cell)).data).toEqual([[`'${cell}`]]);
    }
  });
});
