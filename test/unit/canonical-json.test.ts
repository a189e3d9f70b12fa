import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/lib/canonical-json";

// The project's canonical JSON, held to an independent implementation of RFC 8785 (canonicalize).

describe("canonicalJson", () => {
  it("writes what the canonicalize library writes, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it("sorts keys by UTF-16 code units and leaves undefined members out", () => {
    const value = { "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, b: [true, null], a: { d: 1.5, c: "x" }, gone: undefined };
    expect(canonicalJson(value)).toBe(canonicalize(value));
    expect(canonicalJson(value)).toBe('{"\\r":2,"a":{"c":"x","d":1.5},"b":[true,null],"\u20ac":1,"\ud83d\ude00":3}');
  });

  it("refuses a number JSON cannot hold", () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
  });
});
