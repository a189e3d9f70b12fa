import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError } from "./errors";

type IpLimiter = "PUBLIC_READ_RATE_LIMITER" | "PUBLIC_SUBMIT_RATE_LIMITER" | "UNAUTHENTICATED_RATE_LIMITER";

/** The read-limit results already taken for a request (see public-hit.ts), so the app does not count it twice. */
export const counted = new WeakMap<Request, boolean>();

/** The client IP as Cloudflare saw it; local runs without the header share one bucket. */
export function clientIp(headers: { header(name: string): string | undefined }): string {
  return headers.header("cf-connecting-ip") ?? "local";
}

export function rateLimited(detail: string): ApiError {
  return new ApiError("rate_limited", { detail }).withHeaders({ "Retry-After": "60" });
}

/**
 * Per-client-IP limits for the routes that need no key: 300 reads and 5 submissions a minute.
 *
 * @example route.middleware = [publicRateLimit("PUBLIC_READ_RATE_LIMITER", 300)]
 */
export function publicRateLimit(binding: IpLimiter, perMinute: number): MiddlewareHandler<AppEnv> {
  return async function publicRateLimitMiddleware(c, next) {
    // A public read that missed the cache was counted already, on its way through publicReadFromCache.
    const success = (binding === "PUBLIC_READ_RATE_LIMITER" ? counted.get(c.req.raw) : undefined) ?? (await c.env[binding].limit({ key: clientIp(c.req) })).success;
    if (!success) throw rateLimited(`More than ${perMinute} requests in a minute from this address.`);
    await next();
  };
}

export const UNAUTHENTICATED_PER_MINUTE = 60;
const WINDOW_MS = 60_000;

/**
 * Requests to authenticated routes without a valid key: 60 a minute per client IP. A missing or
 * malformed key is counted before anything else; an unknown or revoked one can only be told apart by
 * its D1 lookup, so it is counted after. Once an address is over its budget, this isolate refuses its
 * well-formed keys before any D1 read until the window ends, so a flood of guessed keys costs D1
 * nothing; keys this isolate saw succeed in the last minute still go through, so a team behind the
 * same address as an attacker keeps working. The state is per isolate: other isolates learn of the
 * address from the shared limiter after at most one lookup each.
 */
export class UnauthenticatedLimit {
  private readonly blockedUntil = new Map<string, number>();
  private readonly validUntil = new Map<string, number>();

  constructor(private readonly maxTracked = 10_000) {}

  /** Whether a request from `ip` with a well-formed key whose hash is `keyHash` may be looked up. */
  mayLookUp(ip: string, keyHash: string, now = Date.now()): boolean {
    return !live(this.blockedUntil, ip, now) || live(this.validUntil, keyHash, now);
  }

  /** A key that just authenticated. */
  succeeded(keyHash: string, now = Date.now()): void {
    remember(this.validUntil, keyHash, now + WINDOW_MS, this.maxTracked);
  }

  /** Counts one request without a valid key; true when the address is now over its budget. */
  async failed(limiter: RateLimit, ip: string, now = Date.now()): Promise<boolean> {
    const { success } = await limiter.limit({ key: ip });
    if (success) return false;
    remember(this.blockedUntil, ip, now + WINDOW_MS, this.maxTracked);
    return true;
  }
}

function live(map: Map<string, number>, key: string, now: number): boolean {
  const until = map.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  map.delete(key);
  return false;
}

// Bounded: past the bound the memory is dropped, which only costs lookups, never lets anything through.
function remember(map: Map<string, number>, key: string, until: number, max: number): void {
  if (map.size >= max) map.clear();
  map.set(key, until);
}
