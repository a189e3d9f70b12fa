import type { Db, RequestDatabase } from "../db";
import type { Caller } from "../lib/caller";
import type { IdempotencyUnit } from "../lib/idempotency-key";

/** The console session the door opened (src/http/session.ts), for the pages and the checks of unsafe requests. */
export interface DoorSession {
  id: string;
  /** The cookie's secret: the form token is derived from it. */
  secret: string;
  organizationName: string;
  email: string;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** This request's D1 session, opened on first use: `c.var.database.db`. */
    database: RequestDatabase;
    caller: Caller;
    /** The database the request's key was found in (an operator's: the catalog of a sharded deployment). */
    keyDatabase?: Db;
    idempotency?: IdempotencyUnit;
    /** The console session the request came with, when its caller is a signed-in member (src/http/session.ts). */
    session?: DoorSession;
  };
};
