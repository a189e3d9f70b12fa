import { describe, expect, it } from "vitest";
import { fillPlaceholders } from "../../src/lib/canned-responses";

describe("fillPlaceholders", () => {
  const values = { reporter_name: "Ana", shortcode: "7KQ2-M9XD-4TRA", policy_url: "https://acme.example/p/ACME" };

  it("fills each known placeholder, every time it appears", () => {
    expect(fillPlaceholders("Hi {{reporter_name}}, {{shortcode}} ({{shortcode}}) under {{policy_url}}.", values)).toBe(
      "Hi Ana, 7KQ2-M9XD-4TRA (7KQ2-M9XD-4TRA) under https://acme.example/p/ACME.",
    );
  });

  it("leaves unknown placeholders, near misses and placeholders without a value as typed", () => {
    expect(fillPlaceholders("{{reporter}} {{ shortcode }} {{Shortcode}} {shortcode} {{constructor}} {{toString}}", values)).toBe(
      "{{reporter}} {{ shortcode }} {{Shortcode}} {shortcode} {{constructor}} {{toString}}",
    );
    expect(fillPlaceholders("Hi {{reporter_name}}", { reporter_name: null })).toBe("Hi {{reporter_name}}");
    expect(fillPlaceholders("Hi {{reporter_name}}", {})).toBe("Hi {{reporter_name}}");
  });

  it("never expands a value again, nor reads $ patterns in it", () => {
    const sly = { ...values, reporter_name: "{{policy_url}} $& $1 $$" };
    expect(fillPlaceholders("Hi {{reporter_name}}, see {{policy_url}}", sly)).toBe(
      "Hi {{policy_url}} $& $1 $$, see https://acme.example/p/ACME",
    );
  });

  it("keeps text around the braces: a placeholder inside more braces is still one", () => {
    expect(fillPlaceholders("{{{shortcode}}}", values)).toBe("{7KQ2-M9XD-4TRA}");
    expect(fillPlaceholders("", values)).toBe("");
  });
});
