// Fails when src/db/schema has changes that no migration captures: drizzle-kit generates into a
// scratch copy of migrations/, and any new file there means `npm run db:generate` was forgotten.
// Run by `npm run check` (and so by `npm test`).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";

const scratch = "node_modules/.cache/migrations-check";
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
cpSync("migrations", scratch, { recursive: true });

execFileSync("drizzle-kit", ["generate", "--dialect", "sqlite", "--schema", "./src/db/schema/index.ts", "--out", scratch], {
  stdio: ["ignore", "pipe", "pipe"],
});

const before = new Set(readdirSync("migrations"));
const added = readdirSync(scratch).filter((f) => !before.has(f));
rmSync(scratch, { recursive: true, force: true });
if (added.length > 0) {
  console.error(`The schema in src/db/schema has changes no migration captures (drizzle-kit would add ${added.join(", ")}).`);
  console.error("Run `npm run db:generate` and commit the new migration.");
  process.exit(1);
}
