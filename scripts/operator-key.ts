// Makes an operator key, the first key of a deployment: `npm run --silent operator-key -- --local`
// (or --remote). The key is printed alone on the last line of output; only its SHA-256 is stored.
import { generateApiKey, sha256Hex } from "../src/lib/crypto.ts";
import { nowIso, uuidv7 } from "../src/lib/ids.ts";
import { runWrangler, sqlText } from "./wrangler.ts";

const args = process.argv.slice(2);
const target = args.includes("--remote") ? "--remote" : args.includes("--local") ? "--local" : null;
const nameAt = args.indexOf("--name");
const name = nameAt >= 0 ? (args[nameAt + 1] ?? null) : "operator";
if (!target) {
  console.error("Usage: npm run --silent operator-key -- --local|--remote [--name NAME]");
  process.exit(2);
}

// Local D1 may be brand new; remote D1 is migrated by `npm run deploy`.
if (target === "--local") runWrangler(["d1", "migrations", "apply", "DB", "--local"]);

const key = generateApiKey();
const now = nowIso();
const values = [uuidv7(), null, "operator", name, await sha256Hex(key), key.slice(0, 8), null, now, now].map(sqlText).join(", ");
runWrangler([
  "d1", "execute", "DB", target, "--command",
  `INSERT INTO api_keys (id, organization_id, kind, name, key_hash, key_prefix, revoked_at, created_at, updated_at) VALUES (${values});`,
]);

console.log(`Operator key made in ${target.slice(2)} D1. It is shown once; keep it somewhere safe.`);
console.log(key);
