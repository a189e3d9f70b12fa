import type { Db } from "./db";
import type { Caller } from "./services/context";
import type { IdempotencyUnit } from "./services/idempotency";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    caller: Caller;
    idempotency?: IdempotencyUnit;
  };
};
