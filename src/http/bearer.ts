import type { Context } from "hono";
import { sha256Hex } from "../lib/crypto";
import type { ApiError } from "./errors";
import { clientIp, rateLimited, UnknownHashes } from "./rate-limit";
import { RATES } from "../lib/limits";

/** What looking a secret up by its SHA-256 found: the thing it opens, "gone" (deleted since), or nothing. */
export type Found<T> = T | "gone" | null;

/** `Authorization: Bearer <secret>` read: the secret, or what is wrong with the header. */
export function bearerSecret(header: string | undefined): { secret: string } | { problem: "missing" | "malformed" } {
  if (!header) return { problem: "missing" };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? { secret: match[1]! } : { problem: "malformed" };
}

/**
 * The one gate for secrets a client presents: API keys, and reporters' follow-up tokens whether they
 * come as a Bearer (the reporter's API) or in a page's address (/r/{token}). A secret is looked up by
 * its SHA-256 with one D1 read. Requests without a valid one are counted per client IP (see
 * UnknownHashes): a missing or malformed secret before anything else, an unknown one after its
 * lookup. A well-formed secret is always looked up, even from an address over its budget, so a valid
 * one is never refused for what others sent from the same address; a hash that found nothing is
 * remembered a minute, so the same guess again costs no read.
 *
 * The lookup is the caller's (the app passes the API key's, the reporter's routes the report's): this
 * layer reads no table itself.
 */
export class BearerGate {
  private readonly unknown = new UnknownHashes();

  /** `tooMany`: the 429's sentence, e.g. "More than 60 requests in a minute from this address without a valid API key." */
  constructor(private readonly tooMany: string) {}

  /** Counts a request that presented no valid secret; throws the 429 once the address is over its budget. */
  async countFailure(c: Context): Promise<void> {
    const { success } = await c.env.UNAUTHENTICATED_RATE_LIMITER.limit({ key: clientIp(c.req) });
    if (!success) throw rateLimited(this.tooMany, RATES.unauthenticated);
  }

  /** Counts a request that presented no valid secret, then throws `refusal` (or the 429 once over budget). */
  async refuse(c: Context, refusal: ApiError): Promise<never> {
    await this.countFailure(c);
    throw refusal;
  }

  /**
   * Opens a secret already checked for its form. Unknown: counted as a failure and null. "gone" is
   * not counted (it was a real secret once), and what it means is the door's to say.
   */
  async open<T>(c: Context, secret: string, lookUp: (hash: string) => Promise<Found<T>>): Promise<Found<T>> {
    const hash = await sha256Hex(secret);
    const found = this.unknown.knownUnknown(hash) ? null : await lookUp(hash);
    if (found === null) {
      this.unknown.foundNothing(hash);
      await this.countFailure(c);
      return null;
    }
    return found;
  }
}
