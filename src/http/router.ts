import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { validationHook } from "./openapi";

/** Every sub-app validates the same way, so every validation failure has the same error document. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });
}
