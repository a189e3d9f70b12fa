import type { Context } from "hono";
import type { RouterRoute } from "hono/types";
import { ApiError, errorResponse } from "./errors";

function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  // Exact match: Hono routes strictly, so /v1/policies/ is an unknown route (404), not a 405.
  return new RegExp(`^${source}$`);
}

/**
 * Hono answers an unmatched method like an unknown path. This tells them apart from the app's own
 * route table: a known path with another method is a 405 with `Allow`, anything else a 404.
 */
export function notFoundHandler(routes: () => RouterRoute[]) {
  let table: { pattern: RegExp; method: string; literals: number }[] | undefined;
  return function notFound(c: Context): Response {
    table ??= routes()
      .filter((r) => r.method !== "ALL")
      .map((r) => ({
        pattern: patternOf(r.path),
        method: r.method,
        literals: r.path.split("/").filter((s) => s && !s.startsWith(":")).length,
      }));
    // The most literal routes win, as they do in routing: /items/reorder is the reorder action's
    // path, not an item called "reorder", so its Allow is PATCH alone.
    const matching = table.filter((r) => r.pattern.test(c.req.path));
    const best = Math.max(...matching.map((r) => r.literals));
    const allowed = new Set(matching.filter((r) => r.literals === best).map((r) => r.method));
    if (allowed.size > 0) {
      if (allowed.has("GET")) allowed.add("HEAD");
      const allow = [...allowed].sort().join(", ");
      return errorResponse(
        c,
        new ApiError("method_not_allowed", { detail: `${c.req.method} is not allowed here. Allowed: ${allow}.` }).withHeaders({
          Allow: allow,
        }),
      );
    }
    return errorResponse(c, new ApiError("not_found", { detail: `No route matches ${c.req.method} ${c.req.path}.` }));
  };
}
