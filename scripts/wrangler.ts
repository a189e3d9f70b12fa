// Runs the project's pinned wrangler from scripts, whatever PATH the caller has.
import { execFileSync, spawn, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "..");
const bin = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");
const wrangler = existsSync(bin) ? bin : "wrangler";

/** Runs wrangler to completion and returns its output; on failure prints that output and exits. */
export function runWrangler(args: string[]): string {
  try {
    return execFileSync(wrangler, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true" } });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    process.stderr.write(`${e.stdout ?? ""}${e.stderr ?? ""}`);
    console.error(`wrangler ${args.join(" ")} failed.`);
    process.exit(1);
  }
}

export function spawnWrangler(args: string[], options: SpawnOptions = {}) {
  return spawn(wrangler, args, { cwd: root, stdio: "inherit", ...options });
}

/** SQL string literal. */
export function sqlText(value: string | null): string {
  return value === null ? "NULL" : `'${value.replaceAll("'", "''")}'`;
}

/** The value of `--flag value` or `--flag=value` in args, if present. */
export function flagValue(args: string[], flag: string): string | undefined {
  const at = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (at < 0) return undefined;
  return args[at]!.includes("=") ? args[at]!.slice(flag.length + 1) : args[at + 1];
}
