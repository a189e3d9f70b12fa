// `npm run dev`: migrates local D1 (the catalog and each tenant database of wrangler.toml), seeds a demo
// organization and its neighbour (idempotently, each in the shard the platform places it in), prints a key,
// curls to try and where each organization is, then serves with `wrangler dev` and fires the scheduled
// handler every minute, as the deployed cron trigger would. Arguments after `--` go to wrangler dev:
// `npm run dev -- --port 8788`; `-- --one-database` serves (and seeds) the one-database layout of a small
// deployment, `-- --config FILE` another configuration.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { DEMO, seedDemo } from "./seed.ts";
import { SEED_LINK_HOURS } from "../src/lib/seed-links.ts";
import { flagValue, root, spawnWrangler } from "./wrangler.ts";
import { configOf, devVarsFileArgs, ONE_DATABASE_FLAG } from "./wrangler-layouts.ts";

// `--one-database` is this script's (the layout of a small deployment); wrangler gets its configuration.
const args = process.argv.slice(2);
const passthrough = args.includes(ONE_DATABASE_FLAG)
  ? [...args.filter((a) => a !== ONE_DATABASE_FLAG), "--config", configOf([ONE_DATABASE_FLAG])]
  : args;

console.log("Applying local D1 migrations to every database and seeding the demo organization…");
// wrangler dev's --persist-to and --config also decide where the migrations and the seed go.
const { key, signInPath, shards } = await seedDemo(flagValue(passthrough, "--persist-to"), configOf(passthrough));
const where =
  shards.demo === "DB"
    ? "One database (DB) holds everything."
    : `Sharded: the catalog (CATALOG) finds each organization's database: the demo organization is in ${shards.demo},
  its neighbour (Neighbour Security Co) in ${shards.neighbour}.`;

const base = `http://localhost:${flagValue(passthrough, "--port") ?? "8787"}`;
console.log(`
  Demo organization "Demo Security Co" is ready.
  ${where}
  Report a vulnerability in your browser: ${base}/b/${DEMO.briefShortcode}
  Directory page:                         ${base}/d/${DEMO.directorySlug}

  API key:       ${key}
  Console:       ${base}${signInPath}
                 (signs this machine's browser in as ${DEMO.ownerEmail}, the demo owner: once, within ${SEED_LINK_HOURS} hours)

  Try:           curl -s ${base}/v1/policies -H "Authorization: Bearer ${key}"
  Public brief:  curl -s ${base}/v1/p/briefs/${DEMO.briefShortcode}
  Directory:     curl -s ${base}/v1/p/directories/${DEMO.directorySlug}
  OpenAPI:       curl -s ${base}/v1/openapi.json
  Reference:     ${base}/docs

  The scheduled handler (outbox sweep, retries, purges) runs every minute, as the deployed cron would.
`);

// The dev configuration: webhooks may target a receiver on 127.0.0.1 (never a default elsewhere), and
// the development keys of .dev.vars.example (sealing webhook secrets, signing receipts) are used for
// each one .dev.vars does not set.
const vars = (file: string) => (existsSync(path.join(root, file)) ? parseEnv(readFileSync(path.join(root, file), "utf8")) : {});
const devKey = (["WEBHOOK_SECRET_KEY", "RECEIPT_SIGNING_KEY", "EMAIL_LINK_KEY", "POW_HMAC_KEY"] as const).flatMap((name) =>
  vars(".dev.vars")[name] ? [] : ["--var", `${name}:${vars(".dev.vars.example")[name]}`],
);
// Links in e-mails point at this server, on whatever port it was given (unless .dev.vars says otherwise).
const publicOrigin = vars(".dev.vars").PUBLIC_ORIGIN ? [] : ["--var", `PUBLIC_ORIGIN:${base}`];
// DEV_SEED_SIGN_IN: the console accepts the seed's link above, from this machine only (src/routes/pages/console.ts).
const child = spawnWrangler([
  "dev",
  ...devVarsFileArgs(configOf(passthrough)),
  "--test-scheduled",
  "--var",
  "DEV_ALLOW_LOOPBACK_WEBHOOKS:true",
  "--var",
  "DEV_SEED_SIGN_IN:true",
  ...devKey,
  ...publicOrigin,
  ...passthrough,
]);

// The cron trigger does not fire under wrangler dev; --test-scheduled exposes /__scheduled, called
// here once the server answers and then every minute.
const local = `http://${flagValue(passthrough, "--ip") ?? "127.0.0.1"}:${flagValue(passthrough, "--port") ?? "8787"}`;
const fire = () =>
  fetch(`${local}/__scheduled?cron=${encodeURIComponent("* * * * *")}`)
    .then((res) => res.arrayBuffer().then(() => res.ok))
    .catch(() => false);
// One attempt at a time: while wrangler starts, an attempt can take longer than the pause between
// them, and overlapping attempts would each succeed and print.
let stopping = false;
let cron: NodeJS.Timeout | undefined;
void (async () => {
  while (!stopping && !(await fire())) await new Promise((resolve) => setTimeout(resolve, 1000));
  if (stopping) return;
  console.log("[dev] scheduled handler fired; again every minute");
  cron = setInterval(fire, 60_000);
})();

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopping = true;
    clearInterval(cron);
    child.kill(signal);
  });
}
child.on("exit", (code) => process.exit(code ?? 0));
