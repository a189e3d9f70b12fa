import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { quietDns } from "./helpers/dns";
import { seedNeighbour } from "./helpers/world";

// Setup files run outside per-file storage isolation and may run more than once;
// applyD1Migrations skips migrations already applied, and the neighbour is seeded once.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedNeighbour();
quietDns();
