import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../http/errors";

type PublicLimiter = "PUBLIC_READ_RATE_LIMITER" | "PUBLIC_SUBMIT_RATE_LIMITER";

/** The client IP as Cloudflare saw it; local runs without the header share one bucket. */
export function clientIp(headers: { header(name: string): string | undefined }): string {
  return headers.header("cf-connecting-ip") ?? "local";
}

/**
 * Per-client-IP limits for the routes that need no key (API.md section 10).
 *
 * @example route.middleware = [publicRateLimit("PUBLIC_READ_RATE_LIMITER", 300)]
 */
export function publicRateLimit(binding: PublicLimiter, perMinute: number): MiddlewareHandler<AppEnv> {
  return async function publicRateLimitMiddleware(c, next) {
    const { success } = await c.env[binding].limit({ key: clientIp(c.req) });
    if (!success) {
      throw new ApiError("rate_limited", { detail: `More than ${perMinute} requests in a minute from this address.` }).withHeaders({ "Retry-After": "60" });
    }
    await next();
  };
}
