// `npm run db:migrate:local` and `npm run db:migrate:remote`: applies migrations/ to every D1 database the
// configuration binds (wrangler.toml: the catalog and each tenant database; a one-database deployment's DB),
// with `wrangler d1 migrations apply <binding>`; each database keeps its own d1_migrations. Local databases
// are migrated at once (each is its own file); remote ones one after the other, stopping at the first that
// fails, so `npm run deploy` never deploys a Worker ahead of a database.
// Options: --local | --remote, --one-database or --config FILE (another configuration), --persist-to DIR (with --local).
import { flagValue, runWrangler, runWranglerAsync } from "./wrangler.ts";
import { configOf, d1Bindings, d1Target, WRANGLER_TOML } from "./wrangler-layouts.ts";

export interface MigrateOptions {
  target: "--local" | "--remote";
  /** The wrangler configuration; wrangler.toml by default. */
  config?: string;
  /** Local D1's folder (with --local), as wrangler dev's --persist-to. */
  persistTo?: string;
  /** Prints each database's outcome as it is migrated (the command does; the seed stays quiet). */
  report?: (binding: string, output: string) => void;
}

/** Applies the migrations to each D1 binding of the configuration; answers the bindings, in order. */
export async function migrateAll({ target, config = WRANGLER_TOML, persistTo, report }: MigrateOptions): Promise<string[]> {
  const bindings = d1Bindings(config).map((d) => d.binding);
  const args = (binding: string) => ["d1", "migrations", "apply", binding, ...d1Target({ target, config, persistTo })];
  if (target === "--local") {
    const outputs = await Promise.all(bindings.map((binding) => runWranglerAsync(args(binding))));
    for (const [i, binding] of bindings.entries()) report?.(binding, outputs[i]!);
  } else {
    for (const binding of bindings) report?.(binding, runWrangler(args(binding)));
  }
  return bindings;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const target = args.includes("--remote") ? "--remote" : args.includes("--local") ? "--local" : null;
  if (!target) {
    console.error(
      "Usage: npm run db:migrate:local | db:migrate:remote  (node scripts/migrate.ts --local|--remote [--one-database | --config FILE] [--persist-to DIR])",
    );
    process.exit(2);
  }
  const config = configOf(args);
  const bindings = await migrateAll({
    target,
    config,
    persistTo: flagValue(args, "--persist-to"),
    report: (binding, output) => {
      const applied = [...output.matchAll(/│\s*(\d{4}_[\w-]+\.sql)\s*│\s*✅/g)].map((m) => m[1]);
      const done = /No migrations to apply/.test(output) ? "up to date" : `${applied.length || "its"} migrations applied`;
      console.log(`${binding}: ${done}`);
    },
  });
  console.log(`Migrated ${bindings.length} ${target.slice(2)} D1 database${bindings.length === 1 ? "" : "s"}: ${bindings.join(", ")}.`);
}
