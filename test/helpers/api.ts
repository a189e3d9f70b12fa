import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { countingD1 } from "./d1-counter";
import { sharded, withDatabases } from "./shards";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or null for an empty body. */
  body: T;
  text: string;
  /** D1 round trips this request cost. */
  roundTrips: number;
  /** Of those, the round trips to a sharded world's catalog (0 with one database). */
  catalogTrips: number;
  /** The others: to the organization's own database (all of them with one database). */
  shardTrips: number;
  /** Rows D1 read for this request (batches and all/run statements). */
  rowsRead: number;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body` (bytes for bodies that are not UTF-8). */
  rawBody?: string | Uint8Array;
  contentType?: string | null;
  headers?: Record<string, string>;
  env?: Partial<Env>;
  /** Another origin than BASE, e.g. a second custom domain of the same Worker. */
  origin?: string;
  /**
   * Send to the real Queue binding, whose consumer then runs in the background (intake, webhook
   * deliveries). Off by default: tests hand messages to the consumer themselves, so nothing runs
   * behind their back and nothing tries to reach a webhook URL.
   */
  realQueue?: boolean;
}

const discard = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;

export const BASE = "https://api.vdp.test";

/**
 * One HTTP request through the Worker's own fetch handler, as a client sends it, with the D1 binding
 * wrapped to count round trips. Waits for the request's background work (cache writes) to finish.
 */
export async function api<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers = new Headers(opts.headers);
  if (opts.key) headers.set("Authorization", `Bearer ${opts.key}`);
  let body: string | Uint8Array | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && opts.contentType !== null) headers.set("Content-Type", opts.contentType ?? "application/vnd.api+json");
  const counter = countingD1(opts.env?.DB ?? env.DB);
  const bindings = withDatabases({ ...env, EVENTS: opts.realQueue ? env.EVENTS : discard, ...opts.env }, counter.db, opts.env?.DB);
  // A sharded world's catalog is counted apart too: what finding the shard and claiming names cost.
  const catalog = sharded() ? countingD1(bindings.CATALOG as D1Database) : null;
  if (catalog) bindings.CATALOG = catalog.db;
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${opts.origin ?? BASE}${path}`, { method, headers, body }), bindings as unknown as Env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    headers: res.headers,
    // Null for an answer that is not JSON (a signed receipt): read `text` for those.
    body: parsedOrNull(text),
    text,
    roundTrips: counter.count(),
    catalogTrips: catalog?.count() ?? 0,
    shardTrips: counter.count() - (catalog?.count() ?? 0),
    rowsRead: counter.rowsRead(),
  };
}

/**
 * Sends `send()` until the first 429 and returns how many succeeded before it, and the 429. The
 * limiters count fixed windows, so a run that straddles a window boundary may see up to twice the
 * limit succeed: callers assert "at least the limit, then a 429", never an exact count.
 */
export async function untilLimited(limit: number, send: () => Promise<ApiResponse>) {
  let ok = 0;
  for (let i = 0; i <= 2 * limit; i++) {
    const res = await send();
    if (res.status === 429) return { ok, limited: res };
    if (res.status >= 400) throw new Error(`unexpected ${res.status} ${res.text}`);
    ok++;
  }
  return { ok, limited: null };
}

/**
 * A rate limiter that counts what it is asked, per key, and lets the first `budget` calls of each key
 * through: for tests of what the app does around a limit, whatever the wall clock does meanwhile (the
 * real bindings count fixed windows aligned to the minute, which can roll over mid-test).
 */
export function countingLimiter(budget = Number.POSITIVE_INFINITY) {
  const calls: string[] = [];
  return {
    calls,
    limiter: {
      limit: async ({ key }: { key: string }) => {
        calls.push(key);
        return { success: calls.filter((k) => k === key).length <= budget };
      },
    } as RateLimit,
  };
}

export const get = <T = any>(path: string, key?: string | null, opts: RequestOptions = {}) => api<T>("GET", path, { ...opts, key });
export const post = <T = any>(path: string, key: string | null, body: unknown, opts: RequestOptions = {}) =>
  api<T>("POST", path, { ...opts, key, body });
export const patch = <T = any>(path: string, key: string | null, body: unknown, opts: RequestOptions = {}) =>
  api<T>("PATCH", path, { ...opts, key, body });
export const del = <T = any>(path: string, key: string | null, opts: RequestOptions = {}) => api<T>("DELETE", path, { ...opts, key });

/** A request as a browser sends it, through the Worker's fetch handler, counting D1 round trips. */
export async function browse(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}) {
  const counter = countingD1(env.DB);
  const bindings = withDatabases({ ...env, EVENTS: discard }, counter.db);
  const catalog = sharded() ? countingD1(bindings.CATALOG as D1Database) : null;
  if (catalog) bindings.CATALOG = catalog.db;
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { method, body: init.body, headers: init.headers, redirect: "manual" }),
    bindings as unknown as Env,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  const catalogTrips = catalog?.count() ?? 0;
  return {
    status: res.status,
    headers: res.headers,
    text,
    roundTrips: counter.count(),
    catalogTrips,
    shardTrips: counter.count() - catalogTrips,
  };
}

function parsedOrNull(text: string): any {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** A list page as the tests read it: its rows' ids, its links, its meta. */
export type ListDoc = {
  data: { id: string; attributes: Record<string, unknown> }[];
  links: Record<string, string | null>;
  meta: { page: Record<string, number> };
};

/** Follows `rel` links from `start` to the end with `key`: every page's ids and body (each page a 200, at most `most` of them). */
export async function walkLinks(
  start: string,
  rel: "next" | "prev",
  key: string,
  most = 40,
): Promise<{ pages: string[][]; bodies: ListDoc[] }> {
  const pages: string[][] = [];
  const bodies: ListDoc[] = [];
  let link: string | null = start;
  while (link) {
    const res: { status: number; body: ListDoc } = await get(link, key);
    if (res.status !== 200) throw new Error(`${link}: ${res.status}`);
    pages.push(res.body.data.map((r) => r.id));
    bodies.push(res.body);
    link = res.body.links[rel]!;
    if (pages.length > most) throw new Error(`no end after ${most} pages of ${start}`);
  }
  return { pages, bodies };
}
