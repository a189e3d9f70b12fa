// `npm run --silent key [-- --persist-to DIR]`: prints the demo organization's API key, read from where
// `npm run dev` (or `npm run seed`) keeps it beside local D1, without migrating or seeding again.
import { existsSync, readFileSync } from "node:fs";
import { demoKeyFile } from "./seed.ts";
import { flagValue } from "./wrangler.ts";

const file = demoKeyFile(flagValue(process.argv.slice(2), "--persist-to"));
const key = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
if (!key) {
  console.error(`No demo key at ${file} yet: run \`npm run dev\` (or \`npm run seed\`) once, then this again.`);
  process.exit(1);
}
console.log(key);
