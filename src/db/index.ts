import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import { retryingRolledBack } from "./retry";
import * as schema from "./schema";

/**
 * A Drizzle client over a D1 binding or a D1 session. No `schema` is passed: the code uses the query
 * builder, never relational queries, and building their config costs ~9% of a cached read's CPU.
 * Drizzle's types name D1Database only; it calls prepare and batch, hence the cast. Statements the
 * local runtime rolled back because another process wrote its file run again (see retry.ts).
 */
export function createDb(d1: D1Database | D1DatabaseSession) {
  return drizzle(retryingRolledBack(d1) as D1Database);
}

export type Db = ReturnType<typeof createDb>;

/** One statement of a D1 batch built at run time (Drizzle types a batch as a tuple known in advance). */
export type Statement = BatchItem<"sqlite">;
export { schema };

/** Where a session starts: the primary (writes, and the queue and cron), any replica, or a bookmark. */
export type SessionStart = "first-primary" | "first-unconstrained" | string;

/**
 * A request's database: a D1 session (read replication) opened on first use, so a request that never
 * queries (a cache hit) sets nothing up. Its bookmark lets a client read its own writes later from any
 * replica. In a sharded deployment it starts unrouted: the request finds its organization's shard (by its
 * key, its session or what its path carries) and routes here before it reads anything.
 */
export class RequestDatabase {
  #session?: D1DatabaseSession;
  #db?: Db;
  #d1?: D1Database;
  #shard?: string;
  #fallback?: { shard: string; d1: D1Database };

  constructor(
    readonly start: SessionStart,
    route?: { shard: string; d1: D1Database },
  ) {
    if (route) this.route(route.shard, route.d1);
  }

  /** Points the request at a shard's database. Once it has read, it stays: a second shard is a bug. */
  route(shard: string, d1: D1Database): void {
    if (this.#shard === shard) return;
    if (this.#db) throw new Error(`This request already reads ${this.#shard}; it cannot move to ${shard}.`);
    this.#shard = shard;
    this.#d1 = d1;
  }

  /**
   * Where the request reads if nothing routes it before its first query: an operator's request, which
   * belongs to no organization, reads the catalog unless its path names an organization.
   */
  fallBackTo(shard: string, d1: D1Database): void {
    this.#fallback = { shard, d1 };
  }

  /** Whether something routed the request already (a fallback is not a route). */
  get routed(): boolean {
    return this.#d1 !== undefined;
  }

  /** The binding name of the shard the request reads (`DB` for one database), once it is known. */
  get shard(): string | undefined {
    return this.#shard ?? this.#fallback?.shard;
  }

  get db(): Db {
    if (!this.#db) {
      if (!this.#d1 && this.#fallback) this.route(this.#fallback.shard, this.#fallback.d1);
      if (!this.#d1) throw new Error("This request reads the database before it has found its shard.");
      this.#session = this.#d1.withSession(this.start);
      this.#db = createDb(this.#session);
    }
    return this.#db;
  }

  /** The latest bookmark of the session, or null if nothing ran. */
  bookmark(): string | null {
    return this.#session?.getBookmark() ?? null;
  }
}

/** The queue consumer and the cron write: their sessions start at the primary. */
export function primaryDb(d1: D1Database): Db {
  return createDb(d1.withSession("first-primary"));
}
