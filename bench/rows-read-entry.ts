// The API as `npm run bench` serves it: the project's Worker unchanged, except that a request carrying
// `X-Bench-Rows-Read: 1` runs with D1 bindings that add up D1's own `meta.rows_read` and count round
// trips, answered in `X-D1-Rows-Read` and `X-Bench-D1-Round-Trips` (the Worker's own `X-D1-Rows-Read`,
// if it ever sends one, wins); a sharded deployment's catalog's share of them is also answered apart, in
// `X-Bench-Catalog-Rows-Read` and `X-Bench-Catalog-Round-Trips`. Other requests pass straight through, so the timed ones pay one header
// lookup. `raw()` and `first()` return no meta, so for a read the probe runs the statement once more
// with `run()` to learn it; probes are never timed, and writes are never run twice (they are counted in
// `X-Bench-D1-Unmeasured` instead).
//
// Two routes of its own, never in the product: `POST /__bench/deadline-sweep?now=MS` runs the cron's
// deadline sweep once at that moment over the counting binding, and answers what it read and sent;
// `POST /__bench/email-reply` reads the posted raw message as the email handler reads a reply (the MIME
// parse, then the quote stripped) and answers the characters the stripping examined;
// `POST /__bench/similar-lookup?organization=ID` runs the intake's similarity step (the store and the lookup
// of src/intake/similarity.ts, in one batch) for the posted `{title, description}` as a new report of that
// organization, over the counting binding, and answers what it read. The report's id names no vuln, so the
// guarded stores write nothing: only the reads are paid.
import PostalMime from "postal-mime";
import worker from "../src/index.ts";
import { primaryDb } from "../src/db/index.ts";
import type { QueueMessage } from "../src/lib/queue.ts";
import { platformContext } from "../src/scheduled.ts";
import { sweepDeadlineAlerts } from "../src/services/deadline-alerts.ts";
import { replyOf, type Work } from "../src/notifications/reply-text.ts";
import { intakeSignature, storeAndLookup } from "../src/intake/similarity.ts";
import { batchOf } from "../src/db/queries.ts";
import { uuidv7 } from "../src/lib/ids.ts";

export * from "../src/index.ts";

interface Tally {
  rowsRead: number;
  roundTrips: number;
  unmeasured: number;
}

const REAL = Symbol("real statement");
type Counted<T> = T & { [REAL]?: T };

function countingStatement(stmt: D1PreparedStatement, sql: string, tally: Tally): D1PreparedStatement {
  const isRead = /^\s*(select|with)\b/i.test(sql);
  const add = (result: D1Result) => (tally.rowsRead += result.meta?.rows_read ?? 0);
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === REAL) return target;
      if (prop === "bind") return (...values: unknown[]) => countingStatement(target.bind(...values), sql, tally);
      if (prop === "all" || prop === "run") {
        return async () => {
          tally.roundTrips++;
          const result = await target[prop]();
          add(result);
          return result;
        };
      }
      if (prop === "raw" || prop === "first") {
        return async (...args: unknown[]) => {
          tally.roundTrips++;
          if (isRead) add(await target.run());
          else tally.unmeasured++;
          return (target[prop] as (...a: unknown[]) => unknown)(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A D1 binding or session whose statements count; batches unwrap them for the real binding. */
function countingDatabase<T extends D1Database | D1DatabaseSession>(db: T, tally: Tally): T {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => countingStatement(target.prepare(sql), sql, tally);
      if (prop === "batch") {
        return async (statements: Counted<D1PreparedStatement>[]) => {
          tally.roundTrips++;
          const results = await target.batch(statements.map((s) => s[REAL] ?? s));
          for (const r of results) tally.rowsRead += r.meta?.rows_read ?? 0;
          return results;
        };
      }
      if (prop === "withSession") return (start?: string) => countingDatabase((target as D1Database).withSession(start), tally);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const D1_BINDING = /^(DB|CATALOG|TENANT_[1-9][0-9]*)$/;

/** The env with each D1 binding it has counting: one database's DB, or a sharded one's tenants, and its catalog apart. */
function countingEnv(env: Env, tally: Tally, catalog: Tally): Env {
  const out: Record<string, unknown> = { ...env };
  for (const [name, value] of Object.entries(env))
    if (D1_BINDING.test(name) && value) out[name] = countingDatabase(value as D1Database, name === "CATALOG" ? catalog : tally);
  return out as unknown as Env;
}

export default {
  ...worker,
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__bench/email-reply" && request.method === "POST") {
      const work: Work = { steps: 0 };
      const reply = replyOf(await PostalMime.parse(request.body!), work);
      return Response.json({ steps: work.steps, chars: "tooLong" in reply ? null : reply.text.length });
    }
    if (request.headers.get("x-bench-rows-read") !== "1") return worker.fetch(request, env, ctx);
    const tally: Tally = { rowsRead: 0, roundTrips: 0, unmeasured: 0 };
    const url = new URL(request.url);
    if (url.pathname === "/__bench/deadline-sweep" && request.method === "POST") {
      const { platform, sent } = platformContext(primaryDb(countingDatabase(env.DB, tally)), env.EVENTS as Queue<QueueMessage>);
      const alerts = await sweepDeadlineAlerts(platform, new Date(Number(url.searchParams.get("now"))));
      await sent();
      return Response.json({ sent: alerts, ...tally });
    }
    if (url.pathname === "/__bench/similar-lookup" && request.method === "POST") {
      const { title, description } = (await request.json()) as { title: string; description: string };
      const submission = { title, description, contact_email: null, domains: [], received_at: new Date().toISOString() };
      const signature = await intakeSignature(uuidv7(), url.searchParams.get("organization")!, submission);
      const db = primaryDb(countingDatabase(env.DB, tally));
      const step = storeAndLookup(db, signature);
      const candidates = step.candidates(await batchOf(db, step.statements));
      return Response.json({ candidates: candidates.length, ...tally });
    }
    const catalog: Tally = { rowsRead: 0, roundTrips: 0, unmeasured: 0 };
    const answer = await worker.fetch(request, countingEnv(env, tally, catalog), ctx);
    const response = new Response(answer.body, answer);
    const all = (k: keyof Tally) => String(tally[k] + catalog[k]);
    if (!response.headers.has("X-D1-Rows-Read")) response.headers.set("X-D1-Rows-Read", all("rowsRead"));
    response.headers.set("X-Bench-D1-Round-Trips", all("roundTrips"));
    response.headers.set("X-Bench-D1-Unmeasured", all("unmeasured"));
    // What of it went to a sharded deployment's catalog (the lookups that find a request's shard).
    response.headers.set("X-Bench-Catalog-Rows-Read", String(catalog.rowsRead));
    response.headers.set("X-Bench-Catalog-Round-Trips", String(catalog.roundTrips));
    return response;
  },
} satisfies ExportedHandler<Env>;
