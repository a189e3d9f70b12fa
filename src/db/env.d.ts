// wrangler.toml declares the sharded layout (CATALOG, TENANT_1 ..), so `wrangler types` leaves DB out. A
// one-database deployment binds DB instead (its block is kept commented in wrangler.toml), and the Worker
// reads which it is from its bindings, in one place: shardsOf (src/db/shards.ts), which never reads DB in a
// sharded deployment. Typed as present for the code that runs only after shardsOf said "one database".
interface Env {
  /** The one database of a small deployment; absent in a sharded one (see shardsOf). */
  DB: D1Database;
}
declare namespace Cloudflare {
  interface Env {
    /** The one database of a small deployment; absent in a sharded one (see shardsOf). */
    DB: D1Database;
  }
}
