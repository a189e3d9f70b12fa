import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { waitFor } from "../helpers/wait";

// One `npm run dev` for every Node-side test file: starting wrangler costs seconds of CPU, and the
// files only read from it or make their own records. It runs on a free port with a scratch local D1
// (--persist-to), so it never touches a developer's state.

export interface DevServer {
  base: string;
  port: number;
  persistTo: string;
  /** What npm run dev printed up to the first scheduled run: the banner, the key, wrangler's ready line. */
  banner: string;
  /** A file that keeps everything npm run dev prints, for as long as it runs. */
  logFile: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    dev: DevServer;
  }
}

const root = path.resolve(import.meta.dirname, "../..");
let dev: ChildProcess | undefined;
let persistTo = "";

export default async function setup(project: TestProject) {
  persistTo = mkdtempSync(path.join(tmpdir(), "vdp-dev-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  let output = "";
  // Custom domains are looked up at a resolver nobody listens on: the lookups the tests cause (a
  // verification, the cron's) fail at once, on this machine, and say so.
  const resolver = ["--var", "DNS_OVER_HTTPS_URL:http://127.0.0.1:9/dns-query"];
  dev = spawn(process.execPath, ["scripts/dev.ts", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", persistTo, ...resolver], {
    cwd: root,
    detached: true,
    // As a person runs it: not under NODE_ENV=test (Vitest's), which makes the local runtime skip
    // things a person's npm run dev does, such as fetching request.cf data.
    env: { ...process.env, NODE_ENV: undefined, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  const logFile = path.join(persistTo, "dev-output.log");
  const keep = (chunk: Buffer) => {
    output += chunk;
    appendFileSync(logFile, chunk);
  };
  dev.stdout!.on("data", keep);
  dev.stderr!.on("data", keep);
  // Started means serving and past its first scheduled run; a process that exits fails at once.
  const exited = new Promise<never>((_, reject) => dev!.once("exit", (code) => reject(new Error(`npm run dev exited with ${code}`))));
  exited.catch(() => {}); // it exits at teardown too, once nobody waits on it
  const started = waitFor(
    "npm run dev to serve and fire its first scheduled run",
    () => /Ready on/.test(output) && /scheduled handler fired/.test(output),
    Boolean,
    {
      timeout: 240_000,
      interval: 250,
    },
  );
  await Promise.race([started, exited]).catch((err: Error) => {
    throw new Error(`${err.message}\n${output}`);
  });
  project.provide("dev", { base: `http://127.0.0.1:${port}`, port, persistTo, banner: output, logFile });
  return () => {
    // What it prints while it stops has nowhere to go once its folder is removed.
    dev?.stdout?.off("data", keep);
    dev?.stderr?.off("data", keep);
    if (dev?.pid) process.kill(-dev.pid, "SIGTERM");
    rmSync(persistTo, { recursive: true, force: true });
  };
}
