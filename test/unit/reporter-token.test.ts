import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN, generateApiKey, generateReporterToken, generateToken, REPORTER_TOKEN_PATTERN } from "../../src/lib/crypto";

describe("follow-up tokens", () => {
  it("are vdpr_ and 43 base62 characters, distinct, over the whole alphabet", () => {
    const tokens = Array.from({ length: 1000 }, () => generateReporterToken());
    for (const t of tokens) expect(t).toMatch(/^vdpr_[0-9A-Za-z]{43}$/);
    expect(new Set(tokens).size).toBe(1000);
    expect(new Set(tokens.map((t) => t.slice(5)).join("")).size).toBe(62);
  });

  it("and API keys never pass for each other", () => {
    for (let i = 0; i < 200; i++) {
      const token = generateReporterToken();
      const key = generateApiKey();
      expect([REPORTER_TOKEN_PATTERN.test(token), API_KEY_PATTERN.test(token)]).toEqual([true, false]);
      expect([REPORTER_TOKEN_PATTERN.test(key), API_KEY_PATTERN.test(key)]).toEqual([false, true]);
    }
  });

  it.each([`vdpr_${"a".repeat(39)}`, `vdpr_${"a".repeat(43)}-`, `VDPR_${"a".repeat(43)}`, `vdpr${"a".repeat(44)}`, ""])(
    "REPORTER_TOKEN_PATTERN rejects %j",
    (t) => {
      expect(REPORTER_TOKEN_PATTERN.test(t)).toBe(false);
    },
  );

  it("generateToken keeps any prefix", () => {
    expect(generateToken("x_")).toMatch(/^x_[0-9A-Za-z]{43}$/);
  });
});
