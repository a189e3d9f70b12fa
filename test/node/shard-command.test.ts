import { spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// `npm run shard` drives POST /v1/organizations/{id}/move until the move ends; here against a stand-in of
// the route (the sharded Worker's own route is tested in test/shards/move*.test.ts), to see what the
// command sends, how it waits, and what it prints.

const root = path.resolve(import.meta.dirname, "../..");

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: any;
  at: number;
}

type Answer = { status: number; headers?: Record<string, string>; step?: string; waitMs?: number; note?: string };

/** A stand-in that answers each request with the next of `answers`, and records what it was sent. */
async function standIn(answers: Answer[]) {
  const seen: Seen[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = "";
      req.on("data", (c) => (text += c));
      req.on("end", () => resolve(text));
    });
  const server = createServer(async (req, res) => {
    const text = await read(req);
    seen.push({
      method: req.method!,
      url: req.url!,
      auth: req.headers.authorization,
      body: text ? JSON.parse(text) : null,
      at: Date.now(),
    });
    const a = answers[Math.min(seen.length - 1, answers.length - 1)]!;
    const attributes = {
      from: "TENANT_1",
      to: "TENANT_2",
      step: a.step ?? "done",
      table: null,
      note: a.note ?? null,
      waiting_until: a.waitMs ? new Date(Date.now() + a.waitMs).toISOString() : null,
      counts: a.step === "done" ? { vulns: { from: 3, to: 3 }, comments: { from: 2, to: 2 }, assets: { from: 0, to: 0 } } : null,
    };
    res.writeHead(a.status, { "Content-Type": "application/vnd.api+json", ...a.headers });
    res.end(
      a.status < 300
        ? JSON.stringify({ data: { type: "organization_move", id: "move-1", attributes } })
        : JSON.stringify({ errors: [{ status: String(a.status), detail: a.note ?? "refused" }] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

function shard(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ["scripts/shard.ts", ...args], {
      cwd: root,
      env: { ...process.env, VDP_OPERATOR_KEY: "", ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("npm run shard", () => {
  it("move: starts the move, then advances that move only, waiting as long as it says and after a 503, until it is done", async () => {
    const api = await standIn([
      { status: 201, step: "fencing", waitMs: 400 },
      { status: 503, headers: { "Retry-After": "1" } },
      { status: 200, step: "settling" },
      { status: 200, step: "copying" },
      { status: 200, step: "draining", waitMs: 300 },
      { status: 200, step: "done" },
    ]);
    const run = await shard(["move", "acme-security", "TENANT_2", "--origin", api.origin, "--key", "vdp_operator"]);
    expect([run.code, run.err]).toEqual([0, ""]);
    expect(api.seen.map((s) => `${s.method} ${s.url}`)).toEqual(Array(6).fill("POST /v1/organizations/acme-security/move"));
    expect(api.seen.every((s) => s.auth === "Bearer vdp_operator")).toBe(true);
    expect(api.seen[0]!.body).toEqual({ data: { type: "organization_move", attributes: { to: "TENANT_2" } } });
    expect(api.seen.slice(1).map((s) => s.body.data.id)).toEqual(Array(5).fill("move-1"));
    // It waited out the fence's lookups, then the 503's Retry-After, before asking again.
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(350);
    expect(api.seen[2]!.at - api.seen[1]!.at).toBeGreaterThanOrEqual(900);
    const lines = run.out.trim().split("\n");
    expect(lines.map((l) => l.split("  ")[2])).toEqual(["fencing", "settling", "copying", "draining", "done", undefined]);
    expect(lines.at(-1)).toBe("Moved 5 rows in 2 tables to TENANT_2; counts equal before the switch.");
  });

  it("move: exits 1 with the reason when the move rolled back, and with the API's words when it refuses", async () => {
    const rolled = await standIn([{ status: 200, step: "rolled_back", note: "the counts differ: comments (2 here, 1 there)" }]);
    const run = await shard(["move", "acme", "TENANT_2", "--origin", rolled.origin], { VDP_OPERATOR_KEY: "vdp_env" });
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/rolled_back {2}the counts differ: comments \(2 here, 1 there\)/);
    expect(rolled.seen[0]!.auth).toBe("Bearer vdp_env");
    const refused = await standIn([{ status: 422, note: "The organization is in TENANT_2 already." }]);
    const no = await shard(["move", "acme", "TENANT_2", "--origin", refused.origin, "--key", "k"]);
    expect([no.code, no.err.trim()]).toEqual([
      1,
      `POST ${refused.origin}/v1/organizations/acme/move: 422 The organization is in TENANT_2 already.`,
    ]);
  });

  it("cancel: rolls back until the rollback has ended; status: one read; without a key or an organization: usage", async () => {
    const api = await standIn([
      { status: 200, step: "rolling_back" },
      { status: 200, step: "rolling_back" },
      { status: 200, step: "rolled_back" },
    ]);
    const run = await shard(["cancel", "acme", "--origin", api.origin, "--key", "k"]);
    expect(run.code).toBe(0);
    expect(api.seen.map((s) => s.method)).toEqual(["DELETE", "DELETE", "DELETE"]);
    const status = await standIn([{ status: 200, step: "copying" }]);
    const shown = await shard(["status", "acme", "--origin", status.origin, "--key", "k"]);
    expect([shown.code, status.seen.map((s) => s.method)]).toEqual([0, ["GET"]]);
    expect(shown.out).toMatch(/TENANT_1 -> TENANT_2 {2}copying/);
    expect((await shard(["move", "acme", "TENANT_2"])).code).toBe(2);
    expect((await shard(["move", "--key", "k"])).err).toMatch(/^Usage: npm run shard -- move/);
  });
});
