// The processes `npm run bench` runs: `wrangler dev` for the API and for the bare Worker, each in its own
// process group on a free loopback port, and the 50 ms webhook receiver inside this process. Everything
// started here is stopped by `stopAll`, which the entry calls on exit, Ctrl-C and errors alike.
import type { ChildProcess } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { parseEnv } from "node:util";
import { root, spawnWrangler } from "../scripts/wrangler.ts";
import { devVarsFileArgs, WRANGLER_TOML } from "../scripts/wrangler-layouts.ts";

const started: ChildProcess[] = [];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The runtime the API asks for in wrangler.toml, so the bare Worker runs on the same one. */
export function apiRuntime(): { compatibilityDate: string; compatibilityFlags: string[] } {
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!compatibilityDate) throw new Error("wrangler.toml has no compatibility_date.");
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return { compatibilityDate, compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) };
}

/**
 * The development variables `npm run dev` passes: loopback webhooks, and the development keys unless .dev.vars
 * sets them (given with --env-file to a configuration written elsewhere, which wrangler would not find it beside).
 */
export function devVarArgs(config = WRANGLER_TOML): string[] {
  const vars = (file: string) => (existsSync(path.join(root, file)) ? parseEnv(readFileSync(path.join(root, file), "utf8")) : {});
  const devKeys = ["WEBHOOK_SECRET_KEY", "RECEIPT_SIGNING_KEY", "EMAIL_LINK_KEY", "POW_HMAC_KEY"].flatMap((name) => {
    const key = vars(".dev.vars.example")[name];
    return vars(".dev.vars")[name] || !key ? [] : ["--var", `${name}:${key}`];
  });
  return [...devVarsFileArgs(config), "--var", "DEV_ALLOW_LOOPBACK_WEBHOOKS:true", ...devKeys];
}

export interface Server {
  url: string;
  log: string;
  /** Stops this wrangler (its whole process group) now, rather than when the bench ends. */
  stop(): void;
}

/**
 * `wrangler dev` with `args` on a free port; resolves once it answers HTTP. Request logging is off
 * (`--log-level warn`): at hundreds of requests a second it would take CPU from both sides of a ratio.
 */
export async function startWrangler(name: string, args: string[], logDir: string): Promise<Server> {
  const port = await freePort();
  const inspector = await freePort();
  const log = path.join(logDir, `${name}.log`);
  const fd = openSync(log, "a");
  const options = [
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspector),
    "--log-level",
    "warn",
    "--show-interactive-dev-session=false",
  ];
  const child = spawnWrangler(["dev", ...args, ...options], {
    detached: true,
    stdio: ["ignore", fd, fd],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", WRANGLER_CI_DISABLE_CONFIG_WATCHING: "true" },
  });
  started.push(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev (${name}) exited:\n${readFileSync(log, "utf8").slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`wrangler dev (${name}) did not start in 120 s:\n${readFileSync(log, "utf8").slice(-3000)}`);
    const ok = await fetch(`${url}/`, { signal: AbortSignal.timeout(5000) }).then(
      (res) => res.arrayBuffer().then(() => true),
      () => false,
    );
    if (ok) return { url, log, stop: () => stopOne(child) };
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stopOne(child: ChildProcess): void {
  if (!child.pid || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Stops every wrangler started here (its whole process group: wrangler, workerd, esbuild). Synchronous, for process exit. */
export function stopAll(): void {
  for (const child of started.splice(0)) stopOne(child);
}

/** A webhook receiver that answers 200 after `delayMs`, counting deliveries by webhook-id per tag. */
export interface Receiver {
  url: string;
  /** Distinct deliveries whose body contains `tag`. */
  count(tag: string): number;
  close(): Promise<void>;
}

export async function startReceiver(delayMs: number, tags: () => readonly string[]): Promise<Receiver> {
  const seen = new Map<string, Set<string>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"] ?? "");
      const tag = tags().find((t) => body.includes(t));
      if (tag && id) {
        if (!seen.has(tag)) seen.set(tag, new Set());
        seen.get(tag)!.add(id);
      }
      setTimeout(() => res.writeHead(200).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    count: (tag) => seen.get(tag)?.size ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
