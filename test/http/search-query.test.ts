import fc from "fast-check";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ftsQuery } from "../../src/lib/search-query";

describe("ftsQuery", () => {
  it.each([
    ["stored xss", '"stored" AND "xss"'],
    ['"stored xss" profile', '"stored xss" AND "profile"'],
    ["inject*", '"inject"*'],
    ["foo-bar.example", '"foo bar example"'],
    ['OR NEAR( "unclosed', '"OR" AND "NEAR" AND "unclosed"'],
    ["café", '"café"'],
    ["  -- ** () ", null],
    ["", null],
  ])("%j is %j", (text, query) => {
    expect(ftsQuery(text)).toBe(query);
  });

  it("keeps at most 16 terms", () => {
    expect(ftsQuery(Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "))?.split(" AND ")).toHaveLength(16);
  });

  // The independent judge is SQLite's own FTS5 parser: whatever is typed, the query parses. It is
  // first shown to reject what the function must never produce.
  const parses = async (query: string) => {
    try {
      await env.DB.prepare("SELECT count(*) FROM probe_search WHERE probe_search MATCH ?1").bind(query).all();
      return true;
    } catch {
      return false;
    }
  };
  it("SQLite refuses raw FTS5 syntax from a person (the judge can fail)", async () => {
    await env.DB.prepare("CREATE VIRTUAL TABLE IF NOT EXISTS probe_search USING fts5(body)").run();
    expect(await parses('NEAR( "unclosed')).toBe(false);
    expect(await parses("a AND")).toBe(false);
  });
  it("makes of any text a query SQLite parses, or none", async () => {
    await env.DB.prepare("CREATE VIRTUAL TABLE IF NOT EXISTS probe_search USING fts5(body)").run();
    const text = fc.oneof(
      fc.string({ maxLength: 60, unit: "grapheme" }),
      fc.string({ maxLength: 30, unit: fc.constantFrom(...'"*()-: ANDORNEAR^+{}ab1é'.split("")) }),
    );
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        const query = ftsQuery(t);
        return query === null || (await parses(query));
      }),
      { numRuns: 300 },
    );
  });
});
