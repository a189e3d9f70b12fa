declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The sharded world's catalog and tenant databases (the workers-sharded project only). */
    CATALOG: D1Database;
    TENANT_1: D1Database;
    TENANT_2: D1Database;
  }
}
