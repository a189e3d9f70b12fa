import type { RequestDatabase } from "../db";
import type { Caller } from "../lib/caller";
import type { IdempotencyUnit } from "../lib/idempotency-key";
import type { DoorSession } from "./session";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** This request's D1 session, opened on first use: `c.var.database.db`. */
    database: RequestDatabase;
    caller: Caller;
    idempotency?: IdempotencyUnit;
    /** The console session the request came with, when its caller is a signed-in member (src/http/session.ts). */
    session?: DoorSession;
  };
};
