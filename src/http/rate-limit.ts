import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { declaring, routeFacts } from "./route-facts";
import { RATES } from "../lib/limits";

/** Every answer of the API says the requests a minute its caller may make, GitHub's way. */
export const RATE_LIMIT_HEADER = "X-RateLimit-Limit";

export type IpLimiter = "PUBLIC_READ_RATE_LIMITER" | "PUBLIC_SUBMIT_RATE_LIMITER" | "UNAUTHENTICATED_RATE_LIMITER";

/** The read-limit results already taken for a request (see public-hit.ts), so the app does not count it twice. */
export const counted = new WeakMap<Request, boolean>();

/** The client IP as Cloudflare saw it; local runs without the header share one bucket. */
export function clientIp(headers: { header(name: string): string | undefined }): string {
  return headers.header("cf-connecting-ip") ?? "local";
}

/** The 429 of a limit of `perMinute` requests a minute; its window is a minute, so a minute is always enough to wait. */
export function rateLimited(detail: string, perMinute: number): ApiError {
  return new ApiError("rate_limited", { detail }).withHeaders({ "Retry-After": "60", [RATE_LIMIT_HEADER]: String(perMinute) });
}

/**
 * Sets X-RateLimit-Limit on every answer of the API (RouteFacts.api) that has none yet: the limit that counts this caller. A 401
 * counted against the address's budget for requests without a valid key or token; any other answer
 * against its route's declared limit (public routes, the reporter's), or else the API key's. A 429
 * names its own limit (rateLimited). The limiters say nothing of what remains, so neither does this.
 */
export function rateLimitHeader(): MiddlewareHandler<AppEnv> {
  return async function rateLimitHeaderMiddleware(c, next) {
    await next();
    const facts = routeFacts(c);
    if (!facts.api || c.res.headers.has(RATE_LIMIT_HEADER)) return;
    const limit = c.res.status === 401 ? RATES.unauthenticated : (facts.rateLimit ?? RATES.apiKey);
    c.res.headers.set(RATE_LIMIT_HEADER, String(limit));
  };
}

/** What each per-address binding of the routes that need no key allows in a minute (reads, submissions). */
const PER_ADDRESS: Record<"PUBLIC_READ_RATE_LIMITER" | "PUBLIC_SUBMIT_RATE_LIMITER", number> = {
  PUBLIC_READ_RATE_LIMITER: RATES.publicReads,
  PUBLIC_SUBMIT_RATE_LIMITER: RATES.publicSubmits,
};

/**
 * Per-client-IP limits for the routes that need no key, as RATES says: public reads and submissions a minute.
 *
 * @example route.middleware = [publicRateLimit("PUBLIC_READ_RATE_LIMITER")]
 */
export function publicRateLimit(binding: keyof typeof PER_ADDRESS): MiddlewareHandler<AppEnv> {
  const perMinute = PER_ADDRESS[binding];
  return declaring(
    async function publicRateLimitMiddleware(c, next) {
      // A public read that missed the cache was counted already, on its way through publicReadFromCache.
      const success = counted.get(c.req.raw) ?? (await allowAddress(c.env, binding, clientIp(c.req)));
      if (!success) throw rateLimited(`More than ${perMinute} requests in a minute from this address.`, perMinute);
      await next();
    },
    { rateLimit: perMinute },
  );
}

export const UNAUTHENTICATED_PER_MINUTE = RATES.unauthenticated;
const WINDOW_MS = 60_000;

/** Public reads a minute per client IP, and how many of them an isolate counts itself. */
export const PUBLIC_READS_PER_MINUTE = RATES.publicReads;
export const LOCAL_READS_PER_MINUTE = RATES.publicReadsInIsolate;

/**
 * The public read limit, counted in two places. An address's first 30 reads in a minute window are
 * counted in this isolate; the binding counts the rest and is configured for the remainder (270 in
 * wrangler.toml), so an isolate refuses an address's 301st read of a minute, as one counter of 300
 * would. Most public readers (a researcher opening a brief, a page linking to it) never reach 30, so
 * their reads, mostly cache hits, cost no call to the limiter, which was half of a hit's time. An
 * address spread over several isolates gets up to 30 more from each; the limiter itself is
 * approximate in the same way across locations. An address refused in a window is refused here
 * until the window ends, with no further call. Windows are aligned to the minute, like the limiter's.
 */
export class ReadBudget {
  private window = -1;
  private readonly local = new Map<string, number>();
  private readonly refused = new Set<string>();

  constructor(
    private readonly localReads: number = LOCAL_READS_PER_MINUTE,
    // About 100 bytes an address: 50,000 addresses a minute in one isolate is a few MB.
    private readonly maxTracked = 50_000,
  ) {}

  /** Counts one read from `ip`; false when the address is over its budget for this minute. */
  async allow(limiter: RateLimit, ip: string, now = Date.now()): Promise<boolean> {
    const window = Math.floor(now / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.local.clear();
      this.refused.clear();
    }
    if (this.refused.has(ip)) return false;
    const n = this.local.get(ip) ?? 0;
    // Past the bound, new addresses are counted by the limiter alone: more calls, never more reads.
    if (n < this.localReads && (n > 0 || this.local.size < this.maxTracked)) {
      this.local.set(ip, n + 1);
      return true;
    }
    const { success } = await limiter.limit({ key: ip });
    if (!success && this.refused.size < this.maxTracked) this.refused.add(ip);
    return success;
  }
}

/** This isolate's count of public reads (brief, directory, the index, the public pages). */
export const publicReads = new ReadBudget();

/** Counts one request from `ip` against a per-address limit: public reads through ReadBudget, the others by their limiter. */
export async function allowAddress(env: Env, binding: IpLimiter, ip: string): Promise<boolean> {
  if (binding === "PUBLIC_READ_RATE_LIMITER") return publicReads.allow(env.PUBLIC_READ_RATE_LIMITER, ip);
  return (await env[binding].limit({ key: ip })).success;
}

/**
 * Requests to authenticated routes without a valid key: 60 a minute per client IP. A missing or
 * malformed key is counted before anything else; an unknown or revoked one can only be told apart by
 * its D1 lookup (one indexed read), so it is counted after. A well-formed key is looked up even from
 * an address over its budget: behind a shared address (NAT, CI, a corporate proxy) a valid key must
 * never be refused because others guessed. What stops a flood of guesses costing D1 is this isolate's
 * memory of hashes that found nothing: a guess sent again within a minute is refused with no read.
 */
export class UnknownHashes {
  private readonly unknownUntil = new Map<string, number>();

  constructor(private readonly maxTracked = 10_000) {}

  /** Whether `hash` found nothing in the last minute: no need to look it up again. */
  knownUnknown(hash: string, now = Date.now()): boolean {
    return live(this.unknownUntil, hash, now);
  }

  /** A hash that found nothing. */
  foundNothing(hash: string, now = Date.now()): void {
    remember(this.unknownUntil, hash, now + WINDOW_MS, this.maxTracked);
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
