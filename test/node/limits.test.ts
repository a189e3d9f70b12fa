import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RATE_LIMIT_BINDINGS } from "../../src/lib/limits";

// wrangler.toml configures the rate-limit bindings; src/lib/limits.ts is where every limit a client
// can reach is defined. The two must agree, binding for binding.

const root = path.resolve(import.meta.dirname, "../..");

/** Each [[ratelimits]] table of a wrangler.toml: its binding name and its simple.limit and period. */
function rateLimits(toml: string): Record<string, { limit: number; period: number }> {
  const found: Record<string, { limit: number; period: number }> = {};
  for (const table of toml.split(/\n(?=\[)/).filter((t) => t.startsWith("[[ratelimits]]"))) {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(table)?.[1];
    const simple = /^simple\s*=\s*\{\s*limit\s*=\s*(\d+)\s*,\s*period\s*=\s*(\d+)\s*\}/m.exec(table);
    if (!name || !simple) throw new Error(`a [[ratelimits]] table without a name or a simple limit:\n${table}`);
    found[name] = { limit: Number(simple[1]), period: Number(simple[2]) };
  }
  return found;
}

const expected = Object.fromEntries(Object.entries(RATE_LIMIT_BINDINGS).map(([name, limit]) => [name, { limit, period: 60 }]));

describe("wrangler.toml's rate limits", () => {
  it("are the limits module's, binding for binding, each a minute", () => {
    expect(rateLimits(readFileSync(path.join(root, "wrangler.toml"), "utf8"))).toEqual(expected);
  });

  it("would be caught if they drifted: a changed limit, a missing binding", () => {
    const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
    expect(rateLimits(toml.replace(/limit = 600\b/, "limit = 1000"))).not.toEqual(expected);
    expect(rateLimits(toml.replace(/\[\[ratelimits\]\]\nname = "REPORTER_RATE_LIMITER"[^[]*/, ""))).not.toEqual(expected);
  });
});
