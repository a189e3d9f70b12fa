import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ScopeAsset } from "../../src/db/schema";
import { isPublished, type MaturityInput, maturityRating } from "../../src/lib/maturity";

const NOW = "2026-06-01T12:00:00.000Z";
const PAST = "2026-01-01T00:00:00.000Z";
const FUTURE = "2026-06-01T12:00:00.001Z";

const asset: ScopeAsset = { id: "0190a4b2-0000-7000-8000-000000000001", kind: "domain", value: "example.com", short_description: null };

/** A policy with every field at its "nothing" value; override what a test needs. */
function policy(overrides: Partial<MaturityInput> = {}): MaturityInput {
  return {
    publishedAt: null,
    pointOfContact: null,
    contactUrl: null,
    securitytxtUrl: null,
    inScopeAssets: [],
    safeHarbor: null,
    publicDisclosure: null,
    cvdTimeline: null,
    ...overrides,
  };
}

/** A policy that meets every rung: rating 5. */
const top = (overrides: Partial<MaturityInput> = {}): MaturityInput =>
  policy({
    publishedAt: PAST,
    pointOfContact: "security@example.com",
    inScopeAssets: [asset],
    safeHarbor: "full",
    publicDisclosure: true,
    cvdTimeline: 90,
    ...overrides,
  });

describe("isPublished", () => {
  it.each([
    [null, false],
    [PAST, true],
    [NOW, true],
    [FUTURE, false],
    ["2027-01-01T00:00:00.000Z", false],
  ])("isPublished(%j, NOW) is %s", (publishedAt, expected) => {
    expect(isPublished(publishedAt, NOW)).toBe(expected);
  });
});

describe("maturityRating ladder", () => {
  it.each<[string, MaturityInput, number]>([
    ["nothing set", policy(), 0],
    ["contact but unpublished (draft)", policy({ pointOfContact: "security@example.com" }), 0],
    ["contact but scheduled for the future", policy({ publishedAt: FUTURE, pointOfContact: "security@example.com" }), 0],
    ["published without any contact channel", policy({ publishedAt: PAST }), 0],
    [
      "published with blank contact channels",
      policy({ publishedAt: PAST, pointOfContact: "", contactUrl: "   ", securitytxtUrl: "\t" }),
      0,
    ],
    ["published with pointOfContact", policy({ publishedAt: PAST, pointOfContact: "security@example.com" }), 1],
    ["published with contactUrl", policy({ publishedAt: PAST, contactUrl: "https://example.com/report" }), 1],
    ["published with securitytxtUrl", policy({ publishedAt: PAST, securitytxtUrl: "https://example.com/.well-known/security.txt" }), 1],
    ["published exactly at now", policy({ publishedAt: NOW, contactUrl: "https://example.com/report" }), 1],
    ["+ in-scope asset", top({ safeHarbor: null, publicDisclosure: null, cvdTimeline: null }), 2],
    ["+ in-scope asset, safe harbor none", top({ safeHarbor: "none", publicDisclosure: null, cvdTimeline: null }), 2],
    ["+ safe harbor partial", top({ safeHarbor: "partial", publicDisclosure: null, cvdTimeline: null }), 3],
    ["+ safe harbor full", top({ publicDisclosure: null, cvdTimeline: null }), 4],
    ["+ public disclosure, timeline 90", top(), 5],
    ["+ public disclosure, timeline 1", top({ cvdTimeline: 1 }), 5],
    ["+ public disclosure, timeline 45", top({ cvdTimeline: 45 }), 5],
  ])("%s -> %i", (_name, input, expected) => {
    expect(maturityRating(input, NOW)).toBe(expected);
  });
});

describe("maturityRating: each rung requires those below", () => {
  it.each<[string, MaturityInput, number]>([
    ["everything but unpublished", top({ publishedAt: null }), 0],
    ["everything but scheduled in the future", top({ publishedAt: FUTURE }), 0],
    ["everything but no contact channel", top({ pointOfContact: null }), 0],
    ["everything but blank contact channel", top({ pointOfContact: "  " }), 0],
    ["safe harbor full, disclosure 30 days, no in-scope assets", top({ inScopeAssets: [], cvdTimeline: 30 }), 1],
    ["safe harbor full, no in-scope assets", top({ inScopeAssets: [], publicDisclosure: null, cvdTimeline: null }), 1],
    ["disclosure + timeline but safe harbor none", top({ safeHarbor: "none" }), 2],
    ["disclosure + timeline but safe harbor null", top({ safeHarbor: null }), 2],
    ["disclosure true with partial safe harbor", top({ safeHarbor: "partial" }), 3],
    ["cvdTimeline 0", top({ cvdTimeline: 0 }), 4],
    ["cvdTimeline 91", top({ cvdTimeline: 91 }), 4],
    ["cvdTimeline 365", top({ cvdTimeline: 365 }), 4],
    ["cvdTimeline -1", top({ cvdTimeline: -1 }), 4],
    ["cvdTimeline null", top({ cvdTimeline: null }), 4],
    ["publicDisclosure false", top({ publicDisclosure: false }), 4],
    ["publicDisclosure null", top({ publicDisclosure: null }), 4],
  ])("%s -> %i", (_name, input, expected) => {
    expect(maturityRating(input, NOW)).toBe(expected);
  });

  it("depends on now: a scheduled policy rises from 0 to 5 when its time comes", () => {
    const scheduled = top({ publishedAt: "2026-07-01T00:00:00.000Z" });
    expect(maturityRating(scheduled, NOW)).toBe(0);
    expect(maturityRating(scheduled, "2026-07-01T00:00:00.000Z")).toBe(5);
  });
});

describe("maturityRating properties", () => {
  const blankOr = (arb: fc.Arbitrary<string>) => fc.oneof(fc.constant(null), fc.constantFrom("", " ", "\t"), arb);
  const arbPolicy: fc.Arbitrary<MaturityInput> = fc.record({
    publishedAt: fc.oneof(fc.constant(null), fc.constantFrom(PAST, NOW, FUTURE, "2030-01-01T00:00:00.000Z")),
    pointOfContact: blankOr(fc.constant("security@example.com")),
    contactUrl: blankOr(fc.constant("https://example.com/report")),
    securitytxtUrl: blankOr(fc.constant("https://example.com/.well-known/security.txt")),
    inScopeAssets: fc.array(fc.constant(asset), { maxLength: 3 }),
    safeHarbor: fc.constantFrom(null, "none", "partial", "full"),
    publicDisclosure: fc.constantFrom(null, false, true),
    cvdTimeline: fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 400 }), fc.constantFrom(0, 1, 90, 91)),
  });

  // Each removes one requirement of some rung.
  const removals: [string, (p: MaturityInput) => MaturityInput][] = [
    ["unpublish", (p) => ({ ...p, publishedAt: null })],
    ["schedule in the future", (p) => ({ ...p, publishedAt: FUTURE })],
    ["remove contact channels", (p) => ({ ...p, pointOfContact: null, contactUrl: null, securitytxtUrl: null })],
    ["remove in-scope assets", (p) => ({ ...p, inScopeAssets: [] })],
    ["safe harbor none", (p) => ({ ...p, safeHarbor: "none" })],
    ["safe harbor null", (p) => ({ ...p, safeHarbor: null })],
    ["downgrade safe harbor to partial", (p) => ({ ...p, safeHarbor: p.safeHarbor === "full" ? "partial" : p.safeHarbor })],
    ["public disclosure false", (p) => ({ ...p, publicDisclosure: false })],
    ["cvdTimeline null", (p) => ({ ...p, cvdTimeline: null })],
    ["cvdTimeline 0", (p) => ({ ...p, cvdTimeline: 0 })],
    ["cvdTimeline 91", (p) => ({ ...p, cvdTimeline: 91 })],
  ];

  it("is always an integer from 0 to 5", () => {
    fc.assert(
      fc.property(arbPolicy, (p) => {
        const rating = maturityRating(p, NOW);
        expect(Number.isInteger(rating)).toBe(true);
        expect(rating).toBeGreaterThanOrEqual(0);
        expect(rating).toBeLessThanOrEqual(5);
      }),
    );
  });

  it("is 0 whenever the contact channels are removed", () => {
    fc.assert(
      fc.property(arbPolicy, (p) => {
        expect(maturityRating({ ...p, pointOfContact: null, contactUrl: null, securitytxtUrl: "  " }, NOW)).toBe(0);
      }),
    );
  });

  it.each(removals)("never increases when we %s", (_name, remove) => {
    fc.assert(
      fc.property(arbPolicy, (p) => {
        expect(maturityRating(remove(p), NOW)).toBeLessThanOrEqual(maturityRating(p, NOW));
      }),
    );
  });

  it("reaches every rating 0..5 over generated policies", () => {
    const seen = new Set(fc.sample(arbPolicy, { numRuns: 2000, seed: 42 }).map((p) => maturityRating(p, NOW)));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
