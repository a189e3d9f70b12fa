// `npm run test:stress`: runs the test suite while other processes keep every core busy, to prove it
// passes on a loaded machine (CI runs on a developer's machine that may have other work running).
//   npm run test:stress                          npm test once, one CPU burner per core
//   npm run test:stress -- --runs 3 --ci         three times `bash .ci/run`, each in a fresh clone of HEAD
//   npm run test:stress -- --burners 4           more burners than cores (a load average near 4 on 2 cores)
// It prints each run's result and wall time and the load average, and exits non-zero if any run failed.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { flagValue, root } from "./wrangler.ts";

const args = process.argv.slice(2);
const runs = Number(flagValue(args, "--runs") ?? 1);
const burnerCount = Number(flagValue(args, "--burners") ?? availableParallelism());
const ci = args.includes("--ci");
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(burnerCount) || burnerCount < 0) {
  console.error("Usage: npm run test:stress -- [--runs N] [--burners N] [--ci]");
  process.exit(2);
}

// A burner is a Node process spinning in a loop at normal priority: it competes for the cores exactly
// as another job on the machine would.
const burners: ChildProcess[] = [];
for (let i = 0; i < burnerCount; i++) burners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
// The run in progress is its own process group, so stopping this script stops all of it too.
let running: ChildProcess | undefined;
const stopAll = () => {
  for (const b of burners) b.kill("SIGKILL");
  if (running?.pid && running.exitCode === null) process.kill(-running.pid, "SIGTERM");
};
process.on("exit", stopAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
console.log(
  `[stress] ${burnerCount} CPU burner(s) on ${availableParallelism()} core(s); ${runs} run(s) of ${ci ? "bash .ci/run in a fresh clone of HEAD" : "npm test"}`,
);

const results: string[] = [];
let failed = 0;
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  let cwd = root;
  let command: [string, string[]] = ["npm", ["test"]];
  if (ci) {
    cwd = mkdtempSync(path.join(tmpdir(), "vdp-stress-"));
    const clone = spawnSync("git", ["clone", "-q", root, cwd], { stdio: "inherit" });
    if (clone.status !== 0) throw new Error(`git clone into ${cwd} failed`);
    command = ["bash", [".ci/run"]];
  }
  console.log(`\n[stress] run ${run} of ${runs} in ${cwd}, load average ${load()}`);
  running = spawn(command[0], command[1], {
    cwd,
    stdio: "inherit",
    detached: true,
    env: { ...process.env, ...(ci ? { CI: "true" } : {}) },
  });
  const [status, signal] = (await once(running, "exit")) as [number | null, string | null];
  const seconds = Math.round((Date.now() - started) / 1000);
  const ok = status === 0;
  if (!ok) failed++;
  results.push(
    `run ${run}: ${ok ? "passed" : `FAILED (exit ${status ?? signal})`} in ${Math.floor(seconds / 60)} min ${seconds % 60} s, load average at its end ${load()}`,
  );
  console.log(`[stress] ${results.at(-1)}`);
  if (ci) rmSync(cwd, { recursive: true, force: true });
}

console.log(`\n[stress] ${burnerCount} burner(s) on ${availableParallelism()} core(s):\n${results.map((r) => `  ${r}`).join("\n")}`);
process.exit(failed ? 1 : 0);
