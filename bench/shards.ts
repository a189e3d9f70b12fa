// The `shards` part of `npm run bench`: the same requests against the API with one database (the
// configuration scripts/wrangler-layouts.ts derives) and sharded as wrangler.toml declares it (a catalog and
// two tenant databases), each under `wrangler dev` from the run's bundle. Both are made alike through the
// commands and the API a deployment uses: `npm run operator-key -- --local` (which migrates every database of
// its configuration), then organizations, keys, a policy, a published brief and reports through HTTP, so
// the sharded one places its organizations itself. Then, interleaved one request at a time (each side's p50
// over the same minutes of the machine): page 1 of the list, a cached public read, a create; and, through the
// counting entry (bench/rows-read-entry.ts), the D1 reads a key's lookup costs in the catalog, first and warm.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { oneDatabaseConfig, WRANGLER_TOML } from "../scripts/wrangler-layouts.ts";
import { root } from "../scripts/wrangler.ts";
import { waitForQuietQueue } from "./deliveries.ts";
import { probeRowsRead } from "./lists.ts";
import { bearer, clientAddresses, rotate, settings } from "./load.ts";
import { devVarArgs, type Server, startWrangler } from "./servers.ts";
import { formatNumber, spread, type Row } from "./table.ts";

const JSON_API = { "Content-Type": "application/vnd.api+json" };
/** Requests per side in each repetition: enough for a p50 that moves less than the 10 % the target allows. */
const SAMPLES = Number(process.env.BENCH_SHARD_SAMPLES ?? 200);
const CREATES = Math.max(20, Math.round(SAMPLES / 2));
/** Keys per organization, taken in turn: each has its own per-minute limit. */
const KEYS = 24;
const REPORTS = 100;

interface Layout {
  name: "one database" | "sharded";
  config: string;
  server: Server;
  keys: string[];
  /** A key never used before the lookup probe. */
  unusedKey: string;
  briefId: string;
  briefShortcode: string;
}

async function call(base: string, method: string, pathname: string, key: string, body?: unknown) {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { ...bearer(key), ...(body ? JSON_API : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`bench shards: ${method} ${pathname} answered ${res.status}: ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : null) as any;
}

/** An operator key made as a deployment makes its first one; the command migrates every database of the configuration. */
async function operatorKey(config: string, persistTo: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["scripts/operator-key.ts", "--local", "--persist-to", persistTo, "--config", config],
    { cwd: root, env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" } },
  );
  return stdout.trim().split("\n").at(-1)!;
}

/** Two organizations (the second is measured: sharded, the first fills the other shard), their keys, a brief, reports. */
async function populate(base: string, operator: string, tag: string) {
  const organization = async (slug: string) =>
    (await call(base, "POST", "/v1/organizations", operator, { data: { type: "organization", attributes: { name: slug, slug } } })).data
      .id as string;
  await organization(`${tag}-first`);
  const id = await organization(`${tag}-measured`);
  const keys: string[] = [];
  for (let i = 0; i <= KEYS; i++)
    keys.push(
      (await call(base, "POST", `/v1/organizations/${id}/api_keys`, operator, { data: { type: "api_key", attributes: { name: `k${i}` } } }))
        .data.attributes.key,
    );
  const unusedKey = keys.pop()!;
  const published = "2020-01-01T00:00:00.000Z";
  const policy = await call(base, "POST", "/v1/policies", keys[0]!, {
    data: { type: "policy", attributes: { name: "VDP", published_at: published, point_of_contact: "security@bench.example" } },
  });
  const brief = await call(base, "POST", "/v1/briefs", keys[0]!, {
    data: {
      type: "brief",
      attributes: { name: "Report a vulnerability", published_at: published },
      relationships: { policy: { data: { type: "policy", id: policy.data.id } } },
    },
  });
  const next = rotate(keys);
  for (let done = 0; done < REPORTS; done += 10)
    await Promise.all(
      Array.from({ length: Math.min(10, REPORTS - done) }, (_, i) =>
        call(base, "POST", "/v1/vulns", next(), createBody(brief.data.id, `${tag}-seeded-${done + i}`)),
      ),
    );
  return { keys, unusedKey, briefId: brief.data.id as string, briefShortcode: brief.data.attributes.shortcode as string };
}

const createBody = (briefId: string, title: string) => ({
  data: {
    type: "vuln",
    attributes: { title, description: "Steps to reproduce: open the page, paste the payload." },
    relationships: { brief: { data: { type: "brief", id: briefId } } },
  },
});

interface Timed {
  ms: number;
  status: number;
  cache: string | null;
}

async function timed(url: string, init: RequestInit): Promise<Timed> {
  const t = performance.now();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return { ms: performance.now() - t, status: res.status, cache: res.headers.get("X-Cache") };
}

const p50 = (samples: Timed[]) => spread(samples.map((s) => s.ms))!.median;

/**
 * `settings.reps` repetitions of `n` requests to each side, one at a time and alternating (which side goes
 * first alternates too), so both see the same moments of a busy machine. Answers each repetition's p50 per
 * side, and what did not answer as expected.
 */
async function interleaved(
  n: number,
  request: (layout: Layout, i: number) => [string, RequestInit],
  layouts: [Layout, Layout],
  expect: (t: Timed) => boolean,
) {
  const p50s = { sharded: [] as number[], one: [] as number[] };
  const off: string[] = [];
  // A few first, unmeasured: the first requests of a route compile and fill caches.
  for (const layout of layouts) for (let i = 0; i < 5; i++) await timed(...request(layout, -1 - i));
  for (let rep = 0; rep < settings.reps; rep++) {
    const runs = { sharded: [] as Timed[], one: [] as Timed[] };
    for (let i = 0; i < n; i++) {
      const order = i % 2 ? layouts : ([layouts[1], layouts[0]] as const);
      for (const layout of order) {
        const t = await timed(...request(layout, rep * n + i));
        if (!expect(t)) off.push(`${layout.name}: ${t.status}${t.cache ? ` ${t.cache}` : ""}`);
        runs[layout.name === "sharded" ? "sharded" : "one"].push(t);
      }
    }
    p50s.sharded.push(p50(runs.sharded));
    p50s.one.push(p50(runs.one));
  }
  const counts = new Map<string, number>();
  for (const o of off) counts.set(o, (counts.get(o) ?? 0) + 1);
  return { ...p50s, off: [...counts].map(([what, k]) => `${what} ×${k}`).join(", ") || undefined };
}

export interface ShardsPart {
  tmp: string;
  apiEntry: string;
  step: (text: string) => void;
}

/** The rows of the shards part; its two servers are stopped before it returns. */
export async function shardRows({ tmp, apiEntry, step }: ShardsPart): Promise<Row[]> {
  const configs = { one: oneDatabaseConfig(), sharded: WRANGLER_TOML };
  const dirs = { one: path.join(tmp, "shards-one"), sharded: path.join(tmp, "shards-sharded") };
  step("shards: migrating one database and a catalog with two tenant databases (npm run operator-key -- --local each)");
  const [oneOperator, shardedOperator] = await Promise.all([
    operatorKey(configs.one, dirs.one),
    operatorKey(configs.sharded, dirs.sharded),
  ]);
  step("shards: starting both APIs");
  const server = (name: string, config: string, dir: string) =>
    startWrangler(name, [apiEntry, "--no-bundle", "--config", config, "--persist-to", dir, ...devVarArgs(config)], tmp);
  const [oneServer, shardedServer] = await Promise.all([
    server("shards-one", configs.one, dirs.one),
    server("shards-sharded", configs.sharded, dirs.sharded),
  ]);
  try {
    step(`shards: two organizations, ${KEYS} keys, a published brief and ${REPORTS} reports in each layout, through the API`);
    const tag = `bench-shards-${process.pid}`;
    const [oneData, shardedData] = await Promise.all([
      populate(oneServer.url, oneOperator, tag),
      populate(shardedServer.url, shardedOperator, tag),
    ]);
    const one: Layout = { name: "one database", config: configs.one, server: oneServer, ...oneData };
    const sharded: Layout = { name: "sharded", config: configs.sharded, server: shardedServer, ...shardedData };
    await Promise.all([waitForQuietQueue(one.server.url, one.keys, 60_000), waitForQuietQueue(sharded.server.url, sharded.keys, 60_000)]);
    const layouts: [Layout, Layout] = [sharded, one];
    const keyOf = new Map(layouts.map((l) => [l, rotate(l.keys)]));
    const rows: Row[] = [];
    const row = (what: string, n: number, r: Awaited<ReturnType<typeof interleaved>>, note?: string): Row => ({
      what: `shards: ${what}: p50, sharded vs one database`,
      unit: "ms",
      api: r.sharded,
      baseline: { label: "one database", samples: r.one },
      ratio: true,
      target: { of: "ratio", op: "<=", value: 1.1 },
      note: [`${n} requests a side a repetition, one at a time, alternating`, note, r.off].filter(Boolean).join("; "),
    });

    step(`shards: GET /v1/vulns page 1 (${REPORTS} reports), ${SAMPLES} a side ×${settings.reps}`);
    const list = await interleaved(
      SAMPLES,
      (l) => [`${l.server.url}/v1/vulns`, { headers: bearer(keyOf.get(l)!()) }],
      layouts,
      (t) => t.status === 200,
    );
    rows.push(row("GET /v1/vulns page 1", SAMPLES, list));

    // An operator's page across organizations: sharded, each tenant database's page read at once and merged.
    step(`shards: GET /v1/vulns page 1 as the operator (every organization), ${SAMPLES} a side ×${settings.reps}`);
    const operatorOf = new Map<Layout, string>([
      [sharded, shardedOperator],
      [one, oneOperator],
    ]);
    const across = await interleaved(
      SAMPLES,
      (l) => [`${l.server.url}/v1/vulns`, { headers: bearer(operatorOf.get(l)!) }],
      layouts,
      (t) => t.status === 200,
    );
    rows.push({
      ...row("GET /v1/vulns page 1, an operator's (every organization)", SAMPLES, across, "sharded: both tenant databases' pages, merged"),
      target: undefined,
    });

    step(`shards: GET /v1/p/briefs/{shortcode} from the cache, ${SAMPLES} a side ×${settings.reps}`);
    const address = clientAddresses();
    const hit = await interleaved(
      SAMPLES,
      (l) => [`${l.server.url}/v1/p/briefs/${l.briefShortcode}`, { headers: { "CF-Connecting-IP": address() } }],
      layouts,
      (t) => t.status === 200 && t.cache === "HIT",
    );
    rows.push(
      row("GET /v1/p/briefs/{shortcode}, cache HIT", SAMPLES, hit, "each measured read a HIT (X-Cache); the first reads unmeasured"),
    );

    step(`shards: POST /v1/vulns, ${CREATES} a side ×${settings.reps}`);
    const created = await interleaved(
      CREATES,
      (l, i) => [
        `${l.server.url}/v1/vulns`,
        {
          method: "POST",
          headers: { ...bearer(keyOf.get(l)!()), "Content-Type": "application/json" },
          body: JSON.stringify(createBody(l.briefId, `${tag}-post-${i}`)),
        },
      ],
      layouts,
      (t) => t.status === 201,
    );
    // What a create costs in round trips either way (the catalog's share apart), through the counting entry.
    const trips = async (l: Layout) => {
      const res = await fetch(`${l.server.url}/v1/vulns`, {
        method: "POST",
        headers: { ...bearer(keyOf.get(l)!()), "Content-Type": "application/json", "X-Bench-Rows-Read": "1" },
        body: JSON.stringify(createBody(l.briefId, `${tag}-post-probe`)),
      });
      await res.arrayBuffer();
      return { all: res.headers.get("X-Bench-D1-Round-Trips"), catalog: res.headers.get("X-Bench-Catalog-Round-Trips") };
    };
    const [sTrips, oTrips] = [await trips(sharded), await trips(one)];
    rows.push(
      row(
        "POST /v1/vulns",
        CREATES,
        created,
        `D1 round trips of one: sharded ${sTrips.all} (the catalog's ${sTrips.catalog}), one database ${oTrips.all}`,
      ),
    );

    // The key's lookup: a key never used, twice. Its first use reads the catalog (then the edge cache keeps
    // the answer a minute); the second must cost the catalog nothing.
    step("shards: a key's lookup in the catalog, first and warm (D1's own counters, through the counting entry)");
    const probe = async (l: Layout) => {
      const url = `${l.server.url}/v1/vulns?page%5Bsize%5D=1`;
      const first = await probeRowsRead(url, bearer(l.unusedKey));
      const warm = await probeRowsRead(url, bearer(l.unusedKey));
      return { first, warm };
    };
    const [s, o] = [await probe(sharded), await probe(one)];
    const n = (v: number | null) => (v === null ? "?" : formatNumber(v));
    rows.push({
      what: "shards: a warm key lookup's D1 reads in the catalog (GET /v1/vulns?page[size]=1, the key's second use)",
      unit: "round trips",
      api: s.warm.catalogRoundTrips === null ? [] : [s.warm.catalogRoundTrips],
      target: { of: "value", op: "<=", value: 0 },
      note:
        `rows read in the catalog: ${n(s.warm.catalogRowsRead)} warm, ${n(s.first.catalogRowsRead)} on the key's first use ` +
        `(${n(s.first.catalogRoundTrips)} round trip${s.first.catalogRoundTrips === 1 ? "" : "s"}, then kept in the edge cache for a minute)`,
    });
    rows.push({
      what: "shards: D1 round trips of that request (warm), sharded vs one database",
      unit: "",
      api: s.warm.roundTrips === null ? [] : [s.warm.roundTrips],
      baseline: o.warm.roundTrips === null ? undefined : { label: "one database", samples: [o.warm.roundTrips] },
      ratio: true,
      target: { of: "ratio", op: "<=", value: 1 },
      note: `rows read: sharded ${n(s.warm.rowsRead)}, one database ${n(o.warm.rowsRead)}; the one database reads the key in DB every time`,
    });
    return rows;
  } finally {
    oneServer.stop();
    shardedServer.stop();
  }
}
