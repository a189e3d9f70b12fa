import type { Db } from "./db";
import type { Caller } from "./services/context";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    caller: Caller;
  };
};
