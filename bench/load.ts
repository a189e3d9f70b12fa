// Load on loopback with autocannon, and the small HTTP helpers the bench drives the API with.
import autocannon from "autocannon";

export interface Load {
  /** Requests a second over the run, and the median latency in ms. */
  rps: number;
  p50: number;
  /** Responses by status code, and connection errors and timeouts. */
  statuses: Record<string, number>;
  errors: number;
}

export interface LoadSpec {
  url: string;
  method?: "GET" | "POST";
  /** Called for every request, so keys, client addresses and bodies can vary. */
  headers?: () => Record<string, string>;
  body?: () => string;
}

export const settings = {
  duration: Number(process.env.BENCH_DURATION ?? 5),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  reps: Number(process.env.BENCH_REPS ?? 3),
};

export async function load(spec: LoadSpec, duration = settings.duration): Promise<Load> {
  const result = await autocannon({
    url: spec.url,
    connections: settings.connections,
    duration,
    method: spec.method ?? "GET",
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, ...spec.headers?.() },
          ...(spec.body ? { body: spec.body() } : {}),
        }),
      },
    ],
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  return { rps: result.requests.average, p50: result.latency.p50, statuses, errors: result.errors + result.timeouts };
}

/** API and baseline alternately, `reps` times each, so both sides of a ratio see the same machine. */
export async function paired(api: LoadSpec, baseline: LoadSpec, reps = settings.reps): Promise<{ api: Load[]; baseline: Load[] }> {
  const out = { api: [] as Load[], baseline: [] as Load[] };
  await load(api, 1);
  await load(baseline, 1);
  for (let i = 0; i < reps; i++) {
    out.api.push(await load(api));
    out.baseline.push(await load(baseline));
  }
  return out;
}

/** Answers other than the expected status, e.g. "429 ×12", for the table's notes. */
export function unexpected(loads: readonly Load[], expected: number): string | undefined {
  const counts: Record<string, number> = {};
  for (const l of loads) {
    for (const [code, n] of Object.entries(l.statuses)) if (Number(code) !== expected) counts[code] = (counts[code] ?? 0) + n;
    if (l.errors) counts.errors = (counts.errors ?? 0) + l.errors;
  }
  const parts = Object.entries(counts).map(([code, n]) => `${code} ×${n}`);
  return parts.length ? parts.join(", ") : undefined;
}

/** Round-robin over values: keys (each has its own per-minute limit) or client addresses. */
export function rotate<T>(values: readonly T[]): () => T {
  let i = 0;
  return () => values[i++ % values.length]!;
}

/** A distinct client address per request: public reads are limited per address, not in aggregate. */
export function clientAddresses(): () => string {
  let i = 0;
  return () => {
    i = (i + 1) % 65_536;
    return `10.77.${i >> 8}.${i & 255}`;
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
