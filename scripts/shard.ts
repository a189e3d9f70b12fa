// Moves an organization to another tenant database of a sharded deployment, online (docs/scale.md, "Moving
// an organization"):
//   npm run shard -- move <organization id or slug> <TENANT_n>   start (or resume) the move and drive it to its end
//   npm run shard -- status <organization id or slug>            where its latest move is
//   npm run shard -- cancel <organization id or slug>            roll back a move that has not switched yet
//   npm run shard -- adopt --local|--remote [--persist-to DIR]   fill a new catalog from a one-database
//                                                                deployment's database, bound as TENANT_1
//                                                                (scripts/shard-adopt.ts; docs/scale.md,
//                                                                "From one database to sharded")
// The API's origin comes from --origin or VDP_ORIGIN (default http://localhost:8787), an operator key from
// --key or VDP_OPERATOR_KEY. Each call of POST /v1/organizations/{id}/move advances the move by one bounded
// step; between calls this waits as long as the move says it waits. Killed, it loses nothing: run it again
// (the cron advances the move meanwhile, a step a minute).
import { adopt } from "./shard-adopt.ts";
import { flagValue } from "./wrangler.ts";

interface Move {
  step: string;
  from: string;
  to: string;
  table: string | null;
  note: string | null;
  waiting_until: string | null;
  counts: { table: string; from: number; to: number }[] | null;
}

const FINISHED = new Set(["done", "rolled_back"]);
// A step that waits for queue work to settle says no time: ask again after this.
const POLL_MS = 5_000;

const args = process.argv.slice(2);
if (args[0] === "adopt") {
  await adopt(args.slice(1));
  process.exit(0);
}
const positional = args.filter((a, i) => !a.startsWith("--") && !["--origin", "--key"].includes(args[i - 1] ?? ""));
const [command, organization, to] = positional;
const origin = (flagValue(args, "--origin") ?? process.env.VDP_ORIGIN ?? "http://localhost:8787").replace(/\/$/, "");
const key = flagValue(args, "--key") ?? process.env.VDP_OPERATOR_KEY;

function usage(): never {
  console.error(
    "Usage: npm run shard -- move <organization id or slug> <TENANT_n> | status <organization> | cancel <organization>\n" +
      "       [--origin URL (or VDP_ORIGIN)] [--key OPERATOR_KEY (or VDP_OPERATOR_KEY)]\n" +
      "       npm run shard -- adopt --local|--remote [--persist-to DIR] [--config FILE]",
  );
  process.exit(2);
}
if (!organization || !key || !((command === "move" && to) || command === "status" || command === "cancel")) usage();

const path = `${origin}/v1/organizations/${encodeURIComponent(organization)}/move`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * One call of the route; a 503 (the API busy, or the move held by the cron a moment) is waited out and sent
 * again. A 404 from `allow404` answers null (a cancel the cron finished first).
 */
async function call(method: "GET" | "POST" | "DELETE", moveId?: string, allow404 = false): Promise<{ id: string; move: Move } | null> {
  for (;;) {
    const res = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${key}`, Accept: "application/vnd.api+json", "Content-Type": "application/vnd.api+json" },
      ...(method === "POST"
        ? { body: JSON.stringify({ data: { type: "organization_move", ...(moveId ? { id: moveId } : {}), attributes: { to } } }) }
        : {}),
    });
    const text = await res.text();
    if (res.status === 503) {
      await sleep(Number(res.headers.get("Retry-After") ?? 5) * 1000);
      continue;
    }
    if (res.status === 404 && allow404) return null;
    if (!res.ok) {
      let detail = text.slice(0, 500);
      try {
        detail = (JSON.parse(text) as { errors: { detail: string }[] }).errors.map((e) => e.detail).join("; ");
      } catch {}
      console.error(`${method} ${path}: ${res.status} ${detail}`);
      process.exit(1);
    }
    const { data } = JSON.parse(text) as { data: { id: string; attributes: Move } };
    return { id: data.id, move: data.attributes };
  }
}

function say(move: Move): void {
  const copied = move.counts ? move.counts.reduce((n, c) => n + c.from, 0) : null;
  const parts = [
    new Date().toISOString(),
    `${move.from} -> ${move.to}`,
    move.step,
    move.table ? `table ${move.table}` : "",
    copied !== null ? `${copied} rows` : "",
    move.note ?? "",
  ];
  console.log(parts.filter(Boolean).join("  "));
}

if (command === "status") {
  say((await call("GET"))!.move);
  process.exit(0);
}

// The first call starts the move (or resumes the one under way); the next ones advance that move only.
let { id, move } = (await call(command === "move" ? "POST" : "DELETE"))!;
say(move);
while (!FINISHED.has(move.step)) {
  await sleep(move.waiting_until ? Date.parse(move.waiting_until) - Date.now() : move.step === "settling" ? POLL_MS : 0);
  const next = command === "move" ? await call("POST", id) : ((await call("DELETE", undefined, true)) ?? (await call("GET")));
  ({ id, move } = next!);
  say(move);
}
if (move.step === "done" && move.counts) {
  const tables = move.counts.filter((c) => c.from > 0);
  console.log(
    `Moved ${tables.reduce((n, c) => n + c.from, 0)} rows in ${tables.length} tables to ${move.to}; counts equal before the switch.`,
  );
}
process.exit(move.step === (command === "move" ? "done" : "rolled_back") ? 0 : 1);
