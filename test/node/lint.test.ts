import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `npm run check` runs Biome with the project's biome.jsonc: the formatter, and a lint rule per layer of
// src/ that refuses imports running up the layers (docs/architecture.md, "Imports"). Each rule is shown
// here to refuse a deliberately broken import, and to accept one that runs the right way, on probe files
// laid out like src/ in a scratch folder under the same configuration.

const root = path.resolve(import.meta.dirname, "../..");
const biome = path.join(root, "node_modules", ".bin", "biome");

/** [file under src/, import specifier, refused?] */
const PROBES: [file: string, specifier: string, refused: boolean][] = [
  ["routes/v1/widgets/index.ts", "../../../app", true],
  ["routes/v1/widgets/index.ts", "../../../services/vulns", false],
  ["templates/widget.ts", "../routes/home", true],
  ["templates/widget.ts", "../lib/limits", false],
  ["services/widgets.ts", "../routes/home", true],
  ["services/widgets.ts", "../templates/layout", true],
  ["services/widgets.ts", "hono", true],
  ["services/widgets.ts", "../http/errors", true],
  ["services/widgets.ts", "../lib/idempotency-key", false],
  ["notifications/widget.ts", "../http/cache", true],
  ["notifications/widget.ts", "../intake/intake", true],
  ["notifications/widget.ts", "../services/vulns", true],
  ["notifications/widget.ts", "../lib/limits", false],
  ["events/widget.ts", "../services/vulns", true],
  ["events/widget.ts", "../webhooks/fanout", false],
  ["webhooks/widget.ts", "../events/outbox", true],
  ["webhooks/widget.ts", "../http/cache", false],
  ["intake/widget.ts", "../events/consumer", true],
  ["intake/widget.ts", "../events/outbox", false],
  ["http/widget.ts", "../services/vulns", true],
  ["http/widget.ts", "../events/outbox", true],
  ["http/widget.ts", "../lib/limits", false],
  ["http/widget.ts", "../notifications/outbox", true],
  ["lib/widget.ts", "../http/errors", true],
  ["lib/widget.ts", "hono/html", true],
  ["lib/widget.ts", "../db/schema", false],
  ["lib/widget.ts", "../notifications/outbox", true],
  ["db/widget.ts", "../lib/ids", true],
  ["db/widget.ts", "./schema", false],
  ["db/widget.ts", "../notifications/outbox", true],
];

let scratch: string;
let findings: { category: string; path: string }[];

beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "vdp-lint-"));
  // The project's configuration, outside git (so no ignore file) and with its schema found from here.
  const config = JSON.parse(readFileSync(path.join(root, "biome.jsonc"), "utf8"));
  delete config.vcs;
  config.$schema = path.join(root, "node_modules", "@biomejs", "biome", "configuration_schema.json");
  writeFileSync(path.join(scratch, "biome.json"), JSON.stringify(config));
  PROBES.forEach(([file, specifier], i) => {
    const at = path.join(scratch, "src", path.dirname(file), `probe-${i}-${path.basename(file)}`);
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, `import { thing } from "${specifier}";\n\nexport const probe = thing;\n`);
  });
  writeFileSync(path.join(scratch, "src", "lib", "unformatted.ts"), "export const a = {b:1}\n");
  // A service takes at most three parameters (a context, what it acts on, one object of the rest).
  const params = (n: number) => Array.from({ length: n }, (_, i) => `p${i}: number`).join(", ");
  const sum = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`).join(" + ");
  for (const n of [3, 4]) {
    writeFileSync(
      path.join(scratch, "src", "services", `params-${n}.ts`),
      `export function f(${params(n)}): number {\n  return ${sum(n)};\n}\n`,
    );
  }
  findings = runBiome(["check", "--reporter=json", "."]);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runBiome(args: string[]): { category: string; path: string }[] {
  let out: string;
  try {
    out = execFileSync(biome, args, { cwd: scratch, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as { diagnostics: { category: string; location: { path: string | { file: string } } }[] };
  return report.diagnostics.map((d) => ({
    category: d.category,
    path: typeof d.location.path === "string" ? d.location.path : d.location.path.file,
  }));
}

describe("the lint rules of npm run check", () => {
  it.each(PROBES.map((p, i) => [...p, i] as const))("src/%s importing %s: refused %s", (file, _specifier, refused, i) => {
    const probe = `src/${path.dirname(file)}/probe-${i}-${path.basename(file)}`;
    const mine = findings.filter((f) => f.path.endsWith(probe));
    expect(mine.map((f) => f.category)).toEqual(refused ? ["lint/style/noRestrictedImports"] : []);
  });

  it("refuses code the formatter would print otherwise", () => {
    expect(findings.filter((f) => f.path.endsWith("src/lib/unformatted.ts")).map((f) => f.category)).toEqual(["format"]);
  });

  it("refuses a service function of four parameters, and takes one of three", () => {
    const of = (n: number) => findings.filter((f) => f.path.endsWith(`src/services/params-${n}.ts`)).map((f) => f.category);
    expect(of(4)).toEqual(["lint/complexity/useMaxParams"]);
    expect(of(3)).toEqual([]);
  });

  it("passes on the project itself", () => {
    expect(() => execFileSync(biome, ["check", "--error-on-warnings"], { cwd: root, stdio: "pipe" })).not.toThrow();
  });
});

// Biome's formatter wraps code at the configured width but never breaks a template literal's text, so an
// HTML template's long line passes `npm run check` untouched. The pages' templates keep the same width by
// hand (a break in their text or between their tags renders the same); this holds them to it.
const lineWidth = (JSON.parse(readFileSync(path.join(root, "biome.jsonc"), "utf8")) as { formatter: { lineWidth: number } }).formatter
  .lineWidth;

/** "file:line" of each line of `sources` longer than the formatter's width. */
function overWidth(sources: { file: string; text: string }[]): string[] {
  return sources.flatMap(({ file, text }) =>
    text.split("\n").flatMap((line, i) => (line.length > lineWidth ? [`${file}:${i + 1} (${line.length})`] : [])),
  );
}

describe("the pages' templates, which the formatter cannot wrap", () => {
  const templates = path.join(root, "src", "templates");

  it(`keep every line within the formatter's ${lineWidth} columns`, () => {
    const sources = readdirSync(templates, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => ({ file: `src/templates/${f}`, text: readFileSync(path.join(templates, f), "utf8") }));
    expect(sources.length).toBeGreaterThan(10);
    expect(overWidth(sources)).toEqual([]);
  });

  it("would catch a line of a template one column too wide, and passes one at the width", () => {
    const at = (n: number) => `  return html\`<p>${"x".repeat(n - 23)}</p>\`;`;
    expect(at(lineWidth).length).toBe(lineWidth);
    const probe = {
      file: "src/templates/widget.ts",
      text: ['import { html } from "hono/html";', at(lineWidth + 1), at(lineWidth)].join("\n"),
    };
    expect(overWidth([probe])).toEqual([`src/templates/widget.ts:2 (${lineWidth + 1})`]);
  });
});
