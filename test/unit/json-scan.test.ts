import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, scanJson } from "../../src/http/json-scan";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("scanJson", () => {
  it("accepts whatever JSON.stringify writes", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(scanJson(JSON.stringify(value))).toEqual({ ok: true, loneSurrogates: [] });
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with JSON.parse on what is malformed", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'{}[],:"\\ 0123456789-+.eEtrufalsn\n') }), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        const scan = scanJson(text);
        // A text JSON.parse takes may still be refused for a duplicate member, never as malformed.
        expect(scan.ok || scan.problem !== "malformed").toBe(parses);
      }),
      { numRuns: 2000 },
    );
  });

  it(`takes ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}, counting the outermost as 1`, () => {
    expect(scanJson(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(scanJson(nested(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, problem: "too_deep" });
    expect(scanJson(`{"data":${nested(MAX_JSON_DEPTH - 1)}}`).ok).toBe(true);
    expect(scanJson(`{"data":${nested(MAX_JSON_DEPTH)}}`)).toEqual({ ok: false, problem: "too_deep" });
  });

  it("cannot overflow the stack, however deep the text", () => {
    expect(scanJson(nested(1_000_000))).toEqual({ ok: false, problem: "too_deep" });
    expect(scanJson(nested(1_000_000), Infinity)).toEqual({ ok: true, loneSurrogates: [] });
    expect(scanJson('{"a":'.repeat(500_000), Infinity)).toEqual({ ok: false, problem: "malformed" });
  });

  it("refuses a member named twice in one object, at its pointer, escapes included", () => {
    expect(scanJson('{"data":{"attributes":{"title":"a","title":"b"}}}')).toEqual({
      ok: false,
      problem: "duplicate_member",
      pointer: "/data/attributes/title",
    });
    expect(scanJson('{"a/b":1,"a\\/b":2}')).toEqual({ ok: false, problem: "duplicate_member", pointer: "/a~1b" });
    expect(scanJson('{"t":1,"\\u0074":2}')).toMatchObject({ ok: false, problem: "duplicate_member" });
    // The same name in sibling objects is no duplicate.
    expect(scanJson('[{"a":1},{"a":2}]').ok).toBe(true);
    expect(scanJson('{"a":{"a":{"a":1}}}').ok).toBe(true);
  });

  it("lists lone surrogates by pointer, in values and in names, and lets pairs through", () => {
    expect(scanJson('{"data":{"attributes":{"title":"\\ud800x","tags":["ok","\\udc00"]}}}')).toEqual({
      ok: true,
      loneSurrogates: ["/data/attributes/title", "/data/attributes/tags/1"],
    });
    expect(scanJson('{"\\ud800":1}')).toEqual({ ok: true, loneSurrogates: ["/\ud800"] });
    expect(scanJson('"\\ud83d\\ude00"')).toEqual({ ok: true, loneSurrogates: [] });
  });

  it("refuses what JSON does not allow: control characters, bad escapes, trailing text", () => {
    for (const text of ['"a\u0001"', '"\\x41"', '"\\u12"', "[1,]", '{"a":1,}', "01", "1 2", "[1] x", "", "nul", '{"a" 1}', "{1:2}"]) {
      expect(scanJson(text), text).toEqual({ ok: false, problem: "malformed" });
    }
  });
});
