import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { AppEnv } from "./app-env";
import { validationHook } from "./openapi";
import { declare, type RouteFacts } from "./route-facts";

/**
 * Every sub-app validates the same way, so every validation failure has the same error document.
 * `facts` are what all of its routes declare (see RouteFacts), its 404s included.
 */
export function createRouter<E extends Env = AppEnv>(facts?: RouteFacts) {
  const router = new OpenAPIHono<E>({ defaultHook: validationHook });
  if (facts) router.use("*", declare(facts));
  return router;
}
