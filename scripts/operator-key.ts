// Makes an operator key, the first key of a deployment: `npm run --silent operator-key -- --local`
// (or --remote). The key is printed alone on the last line of output; only its SHA-256 is stored. An operator
// belongs to no organization: a sharded deployment (wrangler.toml) keeps the key in its catalog, named there
// as no organization's (catalog_names, organization_id ""), which is where its requests find it; a
// one-database one keeps it in DB. `--one-database` or `--config FILE` for another configuration, `--persist-to DIR` with --local.
import { generateApiKey, sha256Hex } from "../src/lib/crypto.ts";
import { nowIso, uuidv7 } from "../src/lib/ids.ts";
import { migrateAll } from "./migrate.ts";
import { flagValue, runWrangler, sqlText } from "./wrangler.ts";
import { configOf, d1Target, isSharded } from "./wrangler-layouts.ts";

const args = process.argv.slice(2);
const target = args.includes("--remote") ? "--remote" : args.includes("--local") ? "--local" : null;
const name = flagValue(args, "--name") ?? "operator";
const persistTo = flagValue(args, "--persist-to");
const config = configOf(args);
if (!target) {
  console.error(
    "Usage: npm run --silent operator-key -- --local|--remote [--name NAME] [--persist-to DIR] [--one-database | --config FILE]",
  );
  process.exit(2);
}
const options = d1Target({ target, config, persistTo });

// Local D1 may be brand new; remote D1 is migrated by `npm run deploy`.
if (target === "--local") await migrateAll({ target, config, persistTo });

const key = generateApiKey();
const now = nowIso();
const id = uuidv7();
const keyHash = await sha256Hex(key);
const values = [id, null, "operator", name, keyHash, key.slice(0, 8), null, now, now].map(sqlText).join(", ");
const sharded = isSharded(config);
const database = sharded ? "CATALOG" : "DB";
// One command for the key and its catalog name: locally wrangler runs its statements as one batch; remotely it
// sends them in one request.
const statements = [
  `INSERT INTO api_keys (id, organization_id, kind, name, key_hash, key_prefix, revoked_at, created_at, updated_at) VALUES (${values});`,
  ...(sharded
    ? [`INSERT INTO catalog_names (kind, name, organization_id, created_at) VALUES ('api_key', ${sqlText(keyHash)}, '', ${sqlText(now)});`]
    : []),
];
runWrangler(["d1", "execute", database, ...options, "--command", statements.join(" ")]);

console.log(`Operator key ${id} made in ${target.slice(2)} D1 (${database}). It is shown once; keep it somewhere safe.`);
console.log(key);
