import { describe, expect, it } from "vitest";
import type { ScopeAsset } from "../../src/db/schema";
import { assignScopeIds } from "../../src/services/scopes";

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const existing: ScopeAsset[] = [
  { id: "00000000-0000-7000-8000-00000000000a", kind: "domain", value: "example.com", short_description: "main site" },
  { id: "00000000-0000-7000-8000-00000000000b", kind: "url", value: "https://example.com/", short_description: null },
];
const existingIds = new Set(existing.map((s) => s.id));

describe("assignScopeIds", () => {
  it("returns an empty array for empty input", () => {
    expect(assignScopeIds([])).toEqual([]);
    expect(assignScopeIds([], existing)).toEqual([]);
  });

  it("keeps the id of an entry with the same kind and value", () => {
    const out = assignScopeIds([{ kind: "domain", value: "example.com", short_description: "changed" }], existing);
    expect(out).toEqual([
      { id: "00000000-0000-7000-8000-00000000000a", kind: "domain", value: "example.com", short_description: "changed" },
    ]);
  });

  it("gives new entries fresh uuidv7 ids", () => {
    const out = assignScopeIds(
      [
        { kind: "domain", value: "new.example.com" },
        { kind: "other", value: "a device" },
      ],
      existing,
    );
    expect(out).toHaveLength(2);
    for (const entry of out) {
      expect(entry.id).toMatch(UUIDV7);
      expect(existingIds.has(entry.id)).toBe(false);
    }
    expect(out[0]!.id).not.toBe(out[1]!.id);
  });

  it("matches on kind and value together, not on either alone", () => {
    const out = assignScopeIds(
      [
        { kind: "wildcard_domain", value: "example.com" },
        { kind: "domain", value: "https://example.com/" },
        { kind: "domain", value: "EXAMPLE.com" },
      ],
      existing,
    );
    expect(out.map((s) => s.id).some((id) => existingIds.has(id))).toBe(false);
    expect(new Set(out.map((s) => s.id)).size).toBe(3);
  });

  it("mixes kept and new ids in input order", () => {
    const out = assignScopeIds(
      [
        { kind: "url", value: "https://example.com/" },
        { kind: "domain", value: "api.example.com", short_description: "API" },
        { kind: "domain", value: "example.com" },
      ],
      existing,
    );
    expect(out.map((s) => [s.kind, s.value])).toEqual([
      ["url", "https://example.com/"],
      ["domain", "api.example.com"],
      ["domain", "example.com"],
    ]);
    expect(out[0]!.id).toBe("00000000-0000-7000-8000-00000000000b");
    expect(out[1]!.id).toMatch(UUIDV7);
    expect(existingIds.has(out[1]!.id)).toBe(false);
    expect(out[2]!.id).toBe("00000000-0000-7000-8000-00000000000a");
  });

  it("collapses duplicates in the input to the first occurrence", () => {
    const out = assignScopeIds([
      { kind: "domain", value: "a.example.com", short_description: "first" },
      { kind: "domain", value: "b.example.com" },
      { kind: "domain", value: "a.example.com", short_description: "second" },
      { kind: "domain", value: "b.example.com" },
    ]);
    expect(out).toHaveLength(2);
    expect(out.map((s) => [s.value, s.short_description])).toEqual([
      ["a.example.com", "first"],
      ["b.example.com", null],
    ]);
  });

  it("collapses duplicates of an existing entry to one entry with its id", () => {
    const out = assignScopeIds(
      [
        { kind: "domain", value: "example.com" },
        { kind: "domain", value: "example.com" },
      ],
      existing,
    );
    expect(out).toEqual([{ id: "00000000-0000-7000-8000-00000000000a", kind: "domain", value: "example.com", short_description: null }]);
  });

  it("defaults short_description to null when missing or null, and keeps a given one", () => {
    const out = assignScopeIds([
      { kind: "domain", value: "a.example.com" },
      { kind: "domain", value: "b.example.com", short_description: null },
      { kind: "domain", value: "c.example.com", short_description: "kept" },
      { kind: "domain", value: "d.example.com", short_description: "" },
    ]);
    expect(out.map((s) => s.short_description)).toEqual([null, null, "kept", ""]);
    expect(Object.keys(out[0]!).sort()).toEqual(["id", "kind", "short_description", "value"]);
  });

  it("does not carry over the existing short_description", () => {
    const out = assignScopeIds([{ kind: "domain", value: "example.com" }], existing);
    expect(out[0]!.short_description).toBeNull();
  });

  it("drops existing entries that are not in the input", () => {
    const out = assignScopeIds([{ kind: "url", value: "https://example.com/" }], existing);
    expect(out).toEqual([
      { id: "00000000-0000-7000-8000-00000000000b", kind: "url", value: "https://example.com/", short_description: null },
    ]);
  });
});
