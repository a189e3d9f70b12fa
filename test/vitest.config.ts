import { readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { oneDatabaseConfig, WRANGLER_TOML } from "../scripts/wrangler-layouts.ts";

const root = path.resolve(import.meta.dirname, "..");

export default defineConfig(async () => {
  // The same folder wrangler applies: the tests run against the generated migrations, never a copy.
  const migrations = await readD1Migrations(path.join(root, "migrations"));
  // The development keys from .dev.vars.example, so tests run on a fresh clone (.dev.vars is not in git).
  const { WEBHOOK_SECRET_KEY, RECEIPT_SIGNING_KEY, EMAIL_LINK_KEY, POW_HMAC_KEY } = parseEnv(
    readFileSync(path.join(root, ".dev.vars.example"), "utf8"),
  );

  // The API through HTTP, inside workerd, with storage isolated per file: once with one database (DB, the
  // configuration scripts/wrangler-layouts.ts derives), once sharded as wrangler.toml declares it (CATALOG,
  // TENANT_1, TENANT_2, which test/setup.ts and test/helpers/shards.ts name).
  function workersProject(name: string, include: string[], configPath: string, sharded: boolean) {
    return {
      plugins: [
        cloudflareTest({
          wrangler: { configPath },
          miniflare: {
            bindings: {
              TEST_MIGRATIONS: migrations,
              WEBHOOK_SECRET_KEY: WEBHOOK_SECRET_KEY!,
              RECEIPT_SIGNING_KEY: RECEIPT_SIGNING_KEY!,
              EMAIL_LINK_KEY: EMAIL_LINK_KEY!,
              POW_HMAC_KEY: POW_HMAC_KEY!,
              // The origin the tests' requests use: links and security.txt name it.
              PUBLIC_ORIGIN: "https://api.vdp.test",
              // Custom domains are checked against a resolver nobody listens on: a test that checks
              // one answers it with a fake (helpers/dns.ts), and nothing else reaches the network.
              DNS_OVER_HTTPS_URL: "http://127.0.0.1:9/dns-query",
            },
          },
        }),
      ],
      test: {
        name,
        root,
        include,
        // The shards' own tests need a catalog and two tenant databases; the unit tests need neither layout.
        exclude: ["test/node/**", "test/unit/**", ...(sharded ? [] : ["test/shards/**"])],
        setupFiles: ["test/setup.ts"],
        // Bounds for a machine that is busy with other work, not targets: speed is measured by
        // npm run bench. A test that waits for something waits on the condition (test/helpers/wait.ts).
        testTimeout: 60_000,
        hookTimeout: 120_000,
      },
    };
  }

  // Logic alone, inside workerd (signing, schedules, parsers, ratings): no database is migrated and no
  // neighbour seeded for them, which is most of what a file of the other projects costs to start.
  const unit = workersProject("unit", ["test/unit/**/*.test.ts"], oneDatabaseConfig(), false);
  unit.test = { ...unit.test, exclude: [], setupFiles: [] };

  return {
    root,
    test: {
      // Vitest's default on two cores is one file at a time (cores - 1); most files wait on workerd, a
      // child process or a browser more than they compute, so two at a time roughly halves the run.
      maxWorkers: 2,
      projects: [
        workersProject("workers", ["test/**/*.test.ts"], oneDatabaseConfig(), false),
        // The same Worker sharded: a catalog and two tenant databases, organizations placed in both.
        workersProject("workers-sharded", ["test/**/*.test.ts"], WRANGLER_TOML, true),
        unit,
        {
          // The commands a user runs (npm run dev, operator-key), run as processes from Node.
          test: {
            name: "node",
            root,
            environment: "node",
            include: ["test/node/**/*.test.ts"],
            // One npm run dev shared by every file (see global-setup.ts).
            globalSetup: ["test/node/global-setup.ts"],
            // Generous for the same reason: these run processes and a browser, and a loaded machine
            // only makes them slower.
            testTimeout: 300_000,
            hookTimeout: 300_000,
          },
        },
      ],
    },
  };
});
