import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { AppEnv } from "./app-env";
import { answerMembers, fieldsetParameters } from "./fieldsets";
import { NoQuery } from "./openapi/queries";
import { validationHook } from "./openapi/validation";
import { declare, DOCUMENTED_FACTS, type DocumentedFacts, factsOf, type RouteFacts } from "./route-facts";

type RouteConfig = Parameters<OpenAPIHono["openapi"]>[0];

/**
 * A read's query: what the route declares (nothing: no parameter at all, so an unknown one is a
 * 400 as on lists), plus `fields[TYPE]` for each resource type of its 200 answer. A read that
 * declares NoQuery itself (the public cached reads) takes nothing, sparse fieldsets included.
 */
function withReadQuery(route: RouteConfig): RouteConfig {
  route = withDocumentedFacts(route);
  if (route.method !== "get" || route.request?.query === NoQuery) return route;
  const content = (route.responses[200] as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
  const schema = content && Object.values(content)[0]?.schema;
  const members = schema ? answerMembers(schema as z.ZodType) : new Map<string, string[]>();
  const query = ((route.request?.query as z.ZodObject | undefined) ?? NoQuery).extend(fieldsetParameters(members));
  return { ...route, request: { ...route.request, query } };
}

/** The route's declared facts that its OpenAPI operation reports (see DOCUMENTED_FACTS). */
function withDocumentedFacts(route: RouteConfig): RouteConfig {
  const { cached, cors } = factsOf(route.middleware);
  const documented: DocumentedFacts = { ...(cached && { cached }), ...(cors && { cors }) };
  return Object.keys(documented).length ? { ...route, [DOCUMENTED_FACTS]: documented } : route;
}

/**
 * What an operation's path declares for every method, registered before the operation itself: its
 * answers are the API's (RouteFacts.api), and one that needs no key, or takes the reporter's token, is
 * open to any web page. So an unknown method there (a 405), or a preflight, says the same as the
 * operation, with no list of paths anywhere.
 */
function pathFacts(route: RouteConfig): RouteFacts {
  const own = factsOf(route.middleware);
  return { api: true, ...((own.public || own.cors) && { cors: true }) };
}

/** The operation's OpenAPI path as Hono routes it: /briefs/{shortcode} is /briefs/:shortcode. */
const honoPath = (path: string) => path.replaceAll(/\/{(.+?)}/g, "/:$1");

/**
 * Every sub-app validates the same way, so every validation failure has the same error document.
 * `facts` are what all of its routes declare (see RouteFacts), its 404s included. Its reads take
 * sparse fieldsets (src/http/fieldsets.ts) and refuse parameters they do not know.
 */
export function createRouter<E extends Env = AppEnv>(facts?: RouteFacts) {
  const router = new OpenAPIHono<E>({ defaultHook: validationHook });
  if (facts) router.use("*", declare(facts));
  const openapi = router.openapi.bind(router);
  router.openapi = ((route: RouteConfig, ...rest: unknown[]) => {
    router.use(honoPath(route.path), declare(pathFacts(route)));
    return (openapi as (...args: unknown[]) => unknown)(withReadQuery(route), ...rest);
  }) as unknown as typeof router.openapi;
  return router;
}
