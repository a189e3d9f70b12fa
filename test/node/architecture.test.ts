import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// docs/architecture.md says how src/ is laid out and which way its imports run. This holds the code to
// it: every folder of src/ is in the layout table, and no import runs from a lower layer to a higher one
// except the few the document names and justifies (listed here, so a new one fails until it is either
// removed or written down there too).

const root = path.resolve(import.meta.dirname, "../..");
const src = path.join(root, "src");
const doc = readFileSync(path.join(root, "docs", "architecture.md"), "utf8");

/** The layers of src/, highest first: a file may import from its own layer and the ones below it. */
const LAYERS: string[][] = [
  ["index.ts", "app.ts", "scheduled.ts", "inbound-email.ts"],
  ["routes"],
  ["templates"],
  ["services"],
  ["events"],
  ["webhooks", "intake", "notifications"],
  ["http"],
  ["lib"],
  ["db"],
];

/** Imports that run up a layer on purpose, each justified in docs/architecture.md ("Imports"). */
const ALLOWED_UPWARD: [from: string, to: string][] = [
  // The intake writes its events through the outbox, which the consumer (events/) drives.
  ["intake/intake.ts", "events/outbox.ts"],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : name.endsWith(".ts") ? [full] : [];
  });
}

/** The layer of a file, by its first path segment under src/ (a lower number is higher up). */
function layerOf(file: string): number {
  const top = path.relative(src, file).split(path.sep)[0]!;
  const at = LAYERS.findIndex((layer) => layer.includes(top));
  if (at < 0) throw new Error(`src/${top} is in no layer of test/node/architecture.test.ts`);
  return at;
}

const rel = (file: string) => path.relative(src, file).split(path.sep).join("/");
const matches = (pattern: string, file: string) => (pattern.endsWith("/*") ? file.startsWith(pattern.slice(0, -1)) : file === pattern);

/** Every import of src/ that runs from a lower layer to a higher one: [importer, imported]. */
function upwardImports(sources: { file: string; text: string }[]): [string, string][] {
  const found: [string, string][] = [];
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s+"(\.[^"]+)"/gm)) {
      const target = path.resolve(path.dirname(file), m[1]!);
      const resolved = target.endsWith(".ts") ? target : statSafe(`${target}.ts`) ? `${target}.ts` : path.join(target, "index.ts");
      if (!resolved.startsWith(src)) continue;
      if (layerOf(resolved) < layerOf(file)) found.push([rel(file), rel(resolved)]);
    }
  }
  return found;
}

function statSafe(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

const sources = () => files(src).map((file) => ({ file, text: readFileSync(file, "utf8") }));
const unexplained = (edges: [string, string][]) =>
  edges.filter(([from, to]) => !ALLOWED_UPWARD.some(([f, t]) => matches(f, from) && matches(t, to)));

describe("docs/architecture.md", () => {
  it("lists every folder of src/ in its layout table", () => {
    const folders = readdirSync(src).filter((name) => statSync(path.join(src, name)).isDirectory());
    const missing = folders.filter((name) => !doc.includes(`\`src/${name}/`));
    expect(missing).toEqual([]);
  });

  it("names and justifies every import that runs up a layer, and src/ has no other", () => {
    expect(unexplained(upwardImports(sources()))).toEqual([]);
    for (const [from, to] of ALLOWED_UPWARD) expect(doc).toContain(`\`${from}\` → \`${to}\``);
  });

  it("would catch a service importing a route, or the database layer importing a service", () => {
    const broken = [
      { file: path.join(src, "services", "briefs.ts"), text: 'import { briefsRouter } from "../routes/v1/briefs";\n' },
      { file: path.join(src, "db", "index.ts"), text: 'export { vulnScope } from "../services/context";\n' },
    ];
    expect(unexplained(upwardImports(broken))).toEqual([
      ["services/briefs.ts", "routes/v1/briefs/index.ts"],
      ["db/index.ts", "services/context.ts"],
    ]);
  });
});

/**
 * SQL text in src/ that would let a subquery bind an outer column to its own table: a `sql` template
 * holding `(SELECT` (it must be a `subquery` template, which writes every column with its table's name),
 * or an outer column written by hand as `sql.raw('"table"."column"')` (name it as a column instead).
 * Answers "file:line" for each.
 */
function unqualifiedSubqueries(sources: { file: string; text: string }[]): string[] {
  const found: string[] = [];
  const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/\bsql(?:<[^`]*?>)?`([^`]*)`/gs)) {
      if (/\(\s*select\b/i.test(m[1]!)) found.push(`${rel(file)}:${lineOf(text, m.index)}`);
    }
    for (const m of text.matchAll(/sql\.raw\(\s*[`'"]"\w+"\."\w+"[`'"]\s*\)/g)) found.push(`${rel(file)}:${lineOf(text, m.index)}`);
  }
  return found;
}

describe("subqueries written as SQL text", () => {
  it("all go through subquery(), which names every column with its table", () => {
    expect(unqualifiedSubqueries(sources())).toEqual([]);
  });

  it("would catch a subquery in a plain sql template, and an outer column written by hand", () => {
    const broken = [
      {
        file: path.join(src, "services", "vulns.ts"),
        text: "const v = sql<string>`(SELECT id FROM policy_versions\n  WHERE policy_versions.policy_id = $" + "{briefs.policyId})`;\n",
      },
      { file: path.join(src, "services", "webhooks.ts"), text: 'const a = 1;\nconst outer = sql.raw(`"webhooks"."id"`);\n' },
      {
        file: path.join(src, "services", "briefs.ts"),
        text: "const fine = subquery`(SELECT 1 FROM briefs WHERE id = $" + "{briefs.id})`;\n",
      },
    ];
    expect(unqualifiedSubqueries(broken)).toEqual(["services/vulns.ts:1", "services/webhooks.ts:2"]);
  });
});

/**
 * The repository paths docs/architecture.md names that do not exist. A path is a code span that names a
 * file or folder of the repository (`src/...`, `test/...`, `scripts/...`, a file at the root); in a row of
 * the layout table, a bare name (`bearer.ts`, `schema/`) is looked for under that row's folder, then at
 * the root. Placeholders (`<resource>`, the `widgets` of "Adding a resource") are no paths.
 */
function missingPaths(text: string, exists: (fromRoot: string) => boolean): string[] {
  const missing: string[] = [];
  const isPath = (span: string) => /^[\w.-]+(\/[\w.-]+)*\/?$/.test(span) && /\.(ts|jsonc|toml|md|json|example)$|\/$/.test(span);
  const placeholder = (span: string) => /widget|<|\{/.test(span);
  const rooted = (span: string) => /^(src|test|scripts|bench|docs|migrations)\//.test(span) || !span.includes("/");
  for (const line of text.split("\n")) {
    const row = /^\| `([^`]+\/)`/.exec(line)?.[1];
    for (const [, span] of line.matchAll(/`([^`\s]+)`/g)) {
      if (!span || !isPath(span) || placeholder(span)) continue;
      const candidates = row && !span.startsWith(row) ? [path.posix.join(row, span), span] : [span];
      if (!row && !rooted(span)) continue;
      if (!candidates.some(exists)) missing.push(span);
    }
  }
  return missing;
}

/** Whether a path exists, at the root or, for a bare name, anywhere under its folder. */
function existsInRepository(fromRoot: string): boolean {
  const full = path.join(root, fromRoot);
  if (statSafe(full) || statDirSafe(full)) return true;
  const dir = path.join(root, path.posix.dirname(fromRoot));
  const base = path.posix.basename(fromRoot);
  if (!statDirSafe(dir)) return false;
  const under = (d: string): boolean =>
    readdirSync(d).some((name) => {
      const p = path.join(d, name);
      return name === base.replace(/\/$/, "") || (statDirSafe(p) && name !== "node_modules" && under(p));
    });
  return under(dir);
}

function statDirSafe(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The imports of src/http/ from the layers between routes/ and http/. */
function httpImportsBelowRoutes(sources: { file: string; text: string }[]): string[] {
  const layers = ["services", "events", "webhooks", "intake", "notifications"];
  const found: string[] = [];
  for (const { file, text } of sources) {
    if (!layers.includes(rel(file).split("/")[0]!)) continue;
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s+"(\.[^"]+)"/gm)) {
      const target = path
        .relative(src, path.resolve(path.dirname(file), m[1]!))
        .split(path.sep)
        .join("/");
      if (target.startsWith("http/")) found.push(`${rel(file)} → ${target}`);
    }
  }
  return found;
}

describe("docs/architecture.md, kept true", () => {
  it("names only files and folders that exist", () => {
    expect(missingPaths(doc, existsInRepository)).toEqual([]);
  });

  it("would catch a file that is gone, a bare name missing from its row's folder, and passes placeholders", () => {
    const broken = [
      "The cache (`src/http/gone.ts`), the widgets (`src/services/widgets.ts`, `src/routes/v1/<resource>/`).",
      "| `src/http/` | auth (`bearer.ts`), the lost (`lost.ts`) |",
      "| `src/db/` | `schema/`; `migrations/` is drizzle-kit's output |",
    ].join("\n");
    expect(missingPaths(broken, existsInRepository)).toEqual(["src/http/gone.ts", "lost.ts"]);
  });

  it("draws the app-wide middleware in the order src/app.ts applies it", () => {
    const app = readFileSync(path.join(src, "app.ts"), "utf8");
    const applied = [...new Set([...app.matchAll(/app\.use\([^,]+,\s*(\w+)\(/g)].map((m) => m[1]!))];
    expect(applied.length).toBeGreaterThan(8);
    const drawn = [...doc.matchAll(/^ {2}├─ (\w+)\s/gm)].map((m) => m[1]!).filter((name) => applied.includes(name));
    expect(drawn).toEqual(applied);
  });

  it("lists every step of the cron", () => {
    const scheduled = readFileSync(path.join(src, "scheduled.ts"), "utf8");
    // Each shard's steps, and the platform's own (run once, sharded ones among them).
    const steps = [...scheduled.matchAll(/^ +(\w+): \(\) => (?!Promise\.)/gm)].map((m) => m[1]!);
    expect(steps.length).toBeGreaterThan(5);
    expect(steps.filter((step) => !doc.includes(`\`${step}\``))).toEqual([]);
  });

  it("says static assets exist exactly when wrangler.toml has them", () => {
    const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
    expect(/no static assets/.test(doc)).toBe(!/^\[assets\]/m.test(toml));
  });

  it("services and the layers below routes import nothing of src/http/", () => {
    expect(httpImportsBelowRoutes(sources())).toEqual([]);
    expect(doc).toContain("`src/lib/idempotency-key.ts`");
  });

  it("would catch a service importing the HTTP errors", () => {
    const broken = [
      { file: path.join(src, "services", "briefs.ts"), text: 'import { ApiError } from "../http/errors";\n' },
      { file: path.join(src, "services", "context.ts"), text: 'import type { IdempotencyUnit } from "../http/idempotency-key";\n' },
      { file: path.join(src, "routes", "docs.ts"), text: 'import { ApiError } from "../http/errors";\n' },
    ];
    expect(httpImportsBelowRoutes(broken)).toEqual(["services/briefs.ts → http/errors", "services/context.ts → http/idempotency-key"]);
  });
});

// The scripts Node runs directly (npm run dev's seed, operator-key, key) import a few files of src/ by
// path; Node resolves no extensionless import, so those files must load in plain Node, as they are.
describe("the files of src/ that the scripts import", () => {
  const scripts = readdirSync(path.join(root, "scripts")).filter((f) => f.endsWith(".ts"));
  const imported = [
    ...new Set(
      scripts.flatMap((f) =>
        [...readFileSync(path.join(root, "scripts", f), "utf8").matchAll(/from "(\.\.\/src\/[^"]+\.ts)"/g)].map((m) =>
          path.resolve(root, "scripts", m[1]!),
        ),
      ),
    ),
  ];

  it.each(imported.map((f) => [path.relative(root, f)]))("%s loads in plain Node", (file) => {
    const node = path.join(root, "node_modules", ".bin", "node");
    expect(() =>
      execFileSync(node, ["--input-type=module", "-e", `await import(${JSON.stringify(path.join(root, file))})`], { stdio: "pipe" }),
    ).not.toThrow();
  });
});
