// The two database layouts of the Worker, from wrangler.toml: sharded as it declares (CATALOG and TENANT_1 ..
// TENANT_K), and one database (DB) for a small deployment. wrangler.toml keeps the one-database block as a
// comment; oneDatabaseConfig writes the same configuration with that block in place of the sharded ones, for
// what runs the one-database layout here (the tests' "workers" project, the bench's servers, the scripts'
// `--one-database`). Plain Node: test/vitest.config.ts, bench/ and scripts/ import it.
// `node scripts/wrangler-layouts.ts` writes the one-database configuration and prints its path.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
/** The configuration the platform runs (sharded). */
export const WRANGLER_TOML = path.join(root, "wrangler.toml");
/** Where oneDatabaseConfig writes by default: under .wrangler/, which git ignores. */
export const ONE_DATABASE_TOML = path.join(root, ".wrangler", "layouts", "one-database.toml");

export interface D1Binding {
  binding: string;
  databaseName: string;
  databaseId: string;
  migrationsDir: string | undefined;
}

const HEADER = /^\s*\[/;
const D1_HEADER = /^\s*\[\[d1_databases\]\]\s*(#.*)?$/;
const COMMENTED_D1_HEADER = /^#\s?\[\[d1_databases\]\]\s*$/;
const COMMENTED_ENTRY = /^#\s?(\w+\s*=\s*.*)$/;
const stringValue = (lines: readonly string[], key: string) =>
  lines.map((l) => new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`).exec(l)?.[1]).find((v) => v !== undefined);

/** The line ranges [start, end) of each uncommented [[d1_databases]] table; the comments just above the next table stay its own. */
function d1Tables(lines: readonly string[]): [number, number][] {
  const tables: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!D1_HEADER.test(lines[i]!)) continue;
    let end = i + 1;
    while (end < lines.length && !HEADER.test(lines[end]!)) end++;
    // A table ends at its last key: blank lines and comments after it introduce what follows.
    while (end > i + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!)) end--;
    tables.push([i, end]);
  }
  return tables;
}

/** The D1 bindings a wrangler configuration declares, in order. */
export function d1Bindings(configPath = WRANGLER_TOML): D1Binding[] {
  const lines = readFileSync(configPath, "utf8").split("\n");
  return d1Tables(lines).map(([start, end]) => {
    const table = lines.slice(start + 1, end);
    const binding = stringValue(table, "binding");
    const databaseName = stringValue(table, "database_name");
    const databaseId = stringValue(table, "database_id");
    if (!binding || !databaseName || !databaseId)
      throw new Error(`${configPath}: a [[d1_databases]] table at line ${start + 1} lacks binding, database_name or database_id.`);
    return { binding, databaseName, databaseId, migrationsDir: stringValue(table, "migrations_dir") };
  });
}

/** The tenant databases' bindings of a configuration (TENANT_1 .. TENANT_K), in order; none for one database. */
export function tenantBindings(configPath = WRANGLER_TOML): string[] {
  const tenant = /^TENANT_([1-9][0-9]*)$/;
  return d1Bindings(configPath)
    .map((d) => d.binding)
    .filter((b) => tenant.test(b))
    .sort((a, b) => Number(tenant.exec(a)![1]) - Number(tenant.exec(b)![1]));
}

/** Whether a configuration is sharded (it binds tenant databases), as the Worker decides it (shardsOf, src/db/shards.ts). */
export function isSharded(configPath = WRANGLER_TOML): boolean {
  return tenantBindings(configPath).length > 0;
}

/** The one-database block wrangler.toml keeps as a comment, uncommented. */
function commentedOneDatabase(lines: readonly string[], configPath: string): string[] {
  const at = lines.findIndex((l) => COMMENTED_D1_HEADER.test(l));
  const block: string[] = [];
  for (let i = at + 1; at >= 0 && i < lines.length && COMMENTED_ENTRY.test(lines[i]!); i++)
    block.push(COMMENTED_ENTRY.exec(lines[i]!)![1]!);
  if (stringValue(block, "binding") !== "DB")
    throw new Error(`${configPath} keeps no commented one-database block ("# [[d1_databases]]" then '# binding = "DB"' ...).`);
  return ["[[d1_databases]]", ...block];
}

/** A relative path of the configuration, as a file in `outDir` must write it. */
function moved(value: string, from: string, to: string): string {
  if (path.isAbsolute(value)) return value;
  const rel = path.relative(to, path.resolve(from, value)).split(path.sep).join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

const PATH_KEYS = /^(\s*(?:main|migrations_dir|directory)\s*=\s*")([^"]+)(".*)$/;
const ALIAS_ENTRY = /^(\s*"[^"]+"\s*=\s*")(\.{1,2}\/[^"]*)(".*)$/;
const SCHEMA_COMMENT = /^(#:schema\s+)(\S+)(.*)$/;

/**
 * The one-database text of a configuration, for a file in `outDir`: its [[d1_databases]] tables replaced by
 * the one-database block it keeps as a comment, and its relative paths (main, migrations_dir, an [assets]
 * directory, [alias] targets) rewritten for the new place.
 */
export function oneDatabaseText(text: string, configPath: string, outDir: string): string {
  const lines = text.split("\n");
  const tables = d1Tables(lines);
  if (tables.length === 0) throw new Error(`${configPath} declares no [[d1_databases]].`);
  const block = commentedOneDatabase(lines, configPath);
  const from = path.dirname(configPath);
  const rewrite = (m: RegExpExecArray | null) => (m ? `${m[1]}${moved(m[2]!, from, outDir)}${m[3]}` : undefined);
  const out: string[] = [];
  let table: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const within = tables.find(([start, end]) => i >= start && i < end);
    const line = within ? (within === tables[0] && i === within[0] ? block.join("\n") : undefined) : lines[i]!;
    if (line === undefined) continue;
    if (HEADER.test(line)) table = /^\s*\[+([\w.]+)\]+/.exec(line)?.[1];
    for (const each of line.split("\n"))
      out.push(
        rewrite(SCHEMA_COMMENT.exec(each)) ??
          rewrite(PATH_KEYS.exec(each)) ??
          (table === "alias" ? rewrite(ALIAS_ENTRY.exec(each)) : undefined) ??
          each,
      );
  }
  const source = path.relative(outDir, configPath).split(path.sep).join("/");
  const written = out.join("\n").replace(/\n{3,}/g, "\n\n");
  return `# Written by scripts/wrangler-layouts.ts from ${source}, with one database (DB) for its [[d1_databases]]: edit that file, not this one.\n${written}`;
}

/**
 * Writes the one-database variant of `source` (wrangler.toml) to `target` (under .wrangler/ by default)
 * and answers its path. Written only when it changed, and by rename: runs that start at once read a whole file.
 */
export function oneDatabaseConfig(source = WRANGLER_TOML, target = ONE_DATABASE_TOML): string {
  const text = oneDatabaseText(readFileSync(source, "utf8"), source, path.dirname(target));
  if (existsSync(target) && readFileSync(target, "utf8") === text) return target;
  mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, target);
  return target;
}

/** The flag the scripts (dev, seed, operator-key, migrate) take for the one-database layout, in place of `--config`. */
export const ONE_DATABASE_FLAG = "--one-database";

/**
 * The configuration a script's arguments name: `--one-database` (the derived one-database configuration),
 * `--config FILE` or `-c FILE` (as wrangler reads them), else wrangler.toml.
 */
export function configOf(args: readonly string[]): string {
  if (args.includes(ONE_DATABASE_FLAG)) return oneDatabaseConfig();
  const at = args.findIndex((a) => a === "--config" || a === "-c" || a.startsWith("--config="));
  if (at < 0) return WRANGLER_TOML;
  const value = args[at]!.startsWith("--config=") ? args[at]!.slice("--config=".length) : args[at + 1];
  if (!value) throw new Error("--config needs a file.");
  return path.resolve(value);
}

/**
 * wrangler dev reads `.dev.vars` beside its configuration: one written elsewhere (under .wrangler/) is given
 * the project's own with `--env-file`, when there is one.
 */
export function devVarsFileArgs(configPath: string): string[] {
  const own = path.join(root, ".dev.vars");
  return path.dirname(path.resolve(configPath)) !== root && existsSync(own) ? ["--env-file", own] : [];
}

if (import.meta.main) console.log(oneDatabaseConfig());

/**
 * The options a `wrangler d1` command takes to reach a configuration's databases: local or remote, the
 * configuration when it is not wrangler.toml, and a local state's folder (`--persist-to`, local only).
 */
export function d1Target({ target, config, persistTo }: { target: "--local" | "--remote"; config: string; persistTo?: string }): string[] {
  return [
    target,
    ...(config === WRANGLER_TOML ? [] : ["--config", config]),
    ...(target === "--local" && persistTo ? ["--persist-to", persistTo] : []),
  ];
}
