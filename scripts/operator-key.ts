// Makes an operator key, the first key of a deployment: `npm run --silent operator-key -- --local`
// (or --remote). The key is printed alone on the last line of output; only its SHA-256 is stored.
import { generateApiKey, sha256Hex } from "../src/lib/crypto.ts";
import { nowIso, uuidv7 } from "../src/lib/ids.ts";
import { flagValue, runWrangler, sqlText } from "./wrangler.ts";

const args = process.argv.slice(2);
const target = args.includes("--remote") ? "--remote" : args.includes("--local") ? "--local" : null;
const name = flagValue(args, "--name") ?? "operator";
const persistTo = flagValue(args, "--persist-to");
const persist = target === "--local" && persistTo ? ["--persist-to", persistTo] : [];
if (!target) {
  console.error("Usage: npm run --silent operator-key -- --local|--remote [--name NAME] [--persist-to DIR]");
  process.exit(2);
}

// Local D1 may be brand new; remote D1 is migrated by `npm run deploy`.
if (target === "--local") runWrangler(["d1", "migrations", "apply", "DB", "--local", ...persist]);

const key = generateApiKey();
const now = nowIso();
const id = uuidv7();
const values = [id, null, "operator", name, await sha256Hex(key), key.slice(0, 8), null, now, now].map(sqlText).join(", ");
runWrangler([
  "d1",
  "execute",
  "DB",
  target,
  ...persist,
  "--command",
  `INSERT INTO api_keys (id, organization_id, kind, name, key_hash, key_prefix, revoked_at, created_at, updated_at) VALUES (${values});`,
]);

console.log(`Operator key ${id} made in ${target.slice(2)} D1. It is shown once; keep it somewhere safe.`);
console.log(key);
