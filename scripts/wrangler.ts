// Runs the project's pinned wrangler from scripts, whatever PATH the caller has.
import { execFile, execFileSync, spawn, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

export const root = path.resolve(import.meta.dirname, "..");
const bin = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");
const wrangler = existsSync(bin) ? bin : "wrangler";
const execFileAsync = promisify(execFile);

const wranglerOptions = () => ({
  cwd: root,
  encoding: "utf8" as const,
  stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"],
  env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env, CI: "true" },
  maxBuffer: 64 * 1024 * 1024,
});
const busy = (output: string) => /SQLITE_BUSY|database is locked/.test(output);
const pause = (attempt: number) => Math.min(250 * attempt, 5_000);
const outputOf = (err: unknown) => {
  const e = err as { stdout?: string; stderr?: string };
  return `${e.stdout ?? ""}${e.stderr ?? ""}`;
};
function fail(args: string[], output: string): never {
  process.stderr.write(output);
  console.error(`wrangler ${args.join(" ")} failed.`);
  process.exit(1);
}

/**
 * Runs wrangler to completion and returns its output; on failure prints that output and exits.
 * Local D1 is one SQLite file: a statement from here while `npm run dev` writes to it can find it
 * locked (SQLITE_BUSY). That is only a wait, so it is retried for up to about a minute; every command
 * run through here (migrations, the seed's INSERT OR IGNORE) is safe to run again.
 */
export function runWrangler(args: string[]): string {
  for (let attempt = 1; ; attempt++) {
    try {
      return execFileSync(wrangler, args, wranglerOptions());
    } catch (err) {
      const output = outputOf(err);
      if (busy(output) && attempt < 20) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause(attempt));
        continue;
      }
      fail(args, output);
    }
  }
}

/** runWrangler without blocking: several local databases are migrated at once (each is its own file). */
export async function runWranglerAsync(args: string[]): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await execFileAsync(wrangler, args, wranglerOptions())).stdout;
    } catch (err) {
      const output = outputOf(err);
      if (busy(output) && attempt < 20) {
        await new Promise((resolve) => setTimeout(resolve, pause(attempt)));
        continue;
      }
      fail(args, output);
    }
  }
}

/**
 * wrangler with this project's defaults. CLOUDFLARE_CF_FETCH_ENABLED=false: the local runtime gives
 * requests a built-in `request.cf` instead of downloading one from workers.cloudflare.com, which
 * fails offline with a stack trace (set it to true to have the real one).
 */
export function spawnWrangler(args: string[], options: SpawnOptions = {}) {
  return spawn(wrangler, args, {
    cwd: root,
    stdio: "inherit",
    ...options,
    env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...(options.env ?? process.env) },
  });
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
