import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { quietDns } from "./helpers/dns";
import { seedNeighbour } from "./helpers/world";
import { platformDatabase, sharded } from "./helpers/shards";

// Setup files run outside per-file storage isolation and may run more than once;
// applyD1Migrations skips migrations already applied, and the neighbour is seeded once.
// A sharded world (the workers-sharded project) lays its catalog and tenant databases out by the same migrations.
// Each database on its own, all at once.
const bindings = env as unknown as Record<string, D1Database | undefined>;
await Promise.all(
  ["DB", "CATALOG", "TENANT_1", "TENANT_2"].flatMap((name) =>
    bindings[name] ? [applyD1Migrations(bindings[name], env.TEST_MIGRATIONS)] : [],
  ),
);
// Its tests that look inside read and write the platform's databases as one (see platformDatabase).
if (sharded()) (env as unknown as { DB: D1Database }).DB = platformDatabase([env.CATALOG, env.TENANT_1, env.TENANT_2]);
await seedNeighbour();
quietDns();
