import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { EVENT_TYPES } from "../../src/events/types";
import { TENANT_TABLES } from "../../src/db/tenant-tables";
import { api, type ApiResponse, get, post } from "./api";
import { fakeQueue } from "./events";
import { brief, organization, policy, PUBLISHED, type TestOrganization, upload } from "./factories";
import { runQueue } from "./queue";
import { submitReport } from "./reporter";
import { receiver } from "./webhooks";
import { shardOf, tenantBindings } from "./shards";

// An organization with something in every part of the schema a move carries, and the operator's side of
// a move (`npm run shard -- move` calls the same route), for the tests of test/shards/move*.test.ts.

/** Every row of the organization in one database, table by table in key order: what a move must carry unchanged. */
export async function snapshot(d1: D1Database, organizationId: string): Promise<Record<string, unknown[]>> {
  const results = await d1.batch(
    TENANT_TABLES.map((t) =>
      d1
        .prepare(
          `SELECT ${t.columns.map((c) => `"${c}"`).join(", ")} FROM "${t.name}" WHERE ${t.owned} ORDER BY ${t.key.map((k) => `"${k}"`).join(", ")}`,
        )
        .bind(organizationId),
    ),
  );
  return Object.fromEntries(TENANT_TABLES.map((t, i) => [t.name, results[i]!.results]));
}

/** How many rows of the organization each database holds, table by table (tables with none left out). */
export async function rowsIn(organizationId: string): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [name, d1] of Object.entries(tenantBindings())) {
    const shot = await snapshot(d1, organizationId);
    out[name] = Object.fromEntries(Object.entries(shot).flatMap(([t, rows]) => (rows.length ? [[t, rows.length]] : [])));
  }
  return out;
}

/** The other tenant database of the sharded test world. */
export const otherShard = (shard: string) => (shard === "TENANT_1" ? "TENANT_2" : "TENANT_1");

/** What a fake queue was handed, by kind of message, each with the database it names. */
export function queueMessages(q: { sent: unknown[]; shards: (string | undefined)[] }) {
  const of = (key: string) => (q.sent as Record<string, string>[]).flatMap((m, i) => (m[key] ? [{ id: m[key]!, shard: q.shards[i] }] : []));
  return { events: of("event_id"), deliveries: of("delivery_id"), notifications: of("notification_id") };
}

export interface RichOrganization {
  org: TestOrganization;
  briefId: string;
  shortcode: string;
  vulnIds: string[];
  /** The report that came through the brief, with its reporter's token. */
  report: { id: string; token: string };
  webhookId: string;
}

/**
 * An organization with a published policy and brief, a webhook subscribed to every event, a contact, reports
 * (through the API and through the brief), comments from both sides and a file, a filing, a published
 * advisory, a canned response and an invited member; its events processed, with the webhook's receiver
 * failing, so its deliveries wait for their retries, and its e-mails not sent.
 */
export async function richOrganization(): Promise<RichOrganization> {
  const org = await organization();
  const q = fakeQueue();
  const withQueue = { env: { EVENTS: q.queue } as Partial<Env> };
  const p = await policy(org, { published_at: PUBLISHED });
  const b = await brief(org, { published_at: PUBLISHED }, p.id);
  const hook = await post(
    "/v1/webhooks",
    org.key,
    {
      data: {
        type: "webhook",
        attributes: { name: "Everything", url: "https://hooks.example.com/vdp" },
        relationships: { trigger_event_types: { data: EVENT_TYPES.map((t) => ({ type: "trigger_event_type", id: t.id })) } },
      },
    },
    withQueue,
  );
  must(hook, 201);
  must(
    await post(
      "/v1/contacts",
      org.key,
      { data: { type: "contact", attributes: { name: "Ana", email: `ana-${org.slug}@acme.example`, role: "responder" } } },
      withQueue,
    ),
    201,
  );
  const vulnIds: string[] = [];
  for (const title of ["Open redirect", "Stored XSS"]) {
    // Sent with an Idempotency-Key, whose record the move carries too; the report's domain becomes an asset.
    const made = await post(
      "/v1/vulns",
      org.key,
      {
        data: {
          type: "vuln",
          attributes: { title, description: `${title}: steps`, domains: [`shop.${org.slug}.example`] },
          relationships: { brief: { data: { type: "brief", id: b.id } } },
        },
      },
      { ...withQueue, headers: { "Idempotency-Key": `create-${title.replaceAll(" ", "-")}` } },
    );
    vulnIds.push(must(made, 201).body.data.id);
  }
  const report = await submitReport(
    org,
    { contact_email: `finder-${org.slug}@researcher.example` },
    { briefId: b.id, shortcode: b.attributes.shortcode },
  );
  vulnIds.push(report.id);
  const [first] = vulnIds;
  must(
    await post(`/v1/vulns/${first}/comments`, org.key, { data: { type: "comment", attributes: { body: "Internal note" } } }, withQueue),
    201,
  );
  must(
    await post(
      `/v1/vulns/${report.id}/comments`,
      org.key,
      { data: { type: "comment", attributes: { body: "Thanks, looking", visibility: "reporter" } } },
      withQueue,
    ),
    201,
  );
  must(
    await api("POST", "/v1/p/report/comments", {
      key: report.token,
      body: { data: { type: "comment", attributes: { body: "More detail" } } },
      ...withQueue,
    }),
    201,
  );
  must(await upload(org.key, first!, '{"poc":true}', { filename: "poc.json", contentType: "application/json" }), 201);
  must(
    await post(`/v1/vulns/${first}/regulatory_reports`, org.key, {
      data: {
        type: "regulatory_report",
        attributes: { kind: "early_warning", submitted_at: "2026-01-01T00:00:00Z", body: "Early warning" },
      },
    }),
    201,
  );
  must(
    await post(
      "/v1/advisories",
      org.key,
      {
        data: {
          type: "advisory",
          attributes: {
            title: "Open redirect in login",
            summary: "Redirects anywhere.",
            state: "published",
            affected: [{ vendor: "Acme", product: "Widget", purl: "pkg:npm/widget", versions: [{ version: "1.0.0", status: "affected" }] }],
          },
          relationships: { vulns: { data: [{ type: "vuln", id: first }] } },
        },
      },
      withQueue,
    ),
    201,
  );
  must(
    await post("/v1/canned_responses", org.key, {
      data: { type: "canned_response", attributes: { name: "Ack", body: "Thanks", visibility: "reporter" } },
    }),
    201,
  );
  must(
    await post(
      "/v1/members",
      org.key,
      { data: { type: "member", attributes: { email: `mo-${org.slug}@acme.example`, name: "Mo", role: "triager" } } },
      withQueue,
    ),
    201,
  );
  // The reports read once: a first read is an event too.
  must(await get(`/v1/vulns/${first}`, org.key, withQueue), 200);
  // The events processed as the queue would, the webhook's receiver failing: its deliveries wait for a retry.
  const failing = receiver(() => new Response("down", { status: 503 }));
  try {
    await processEvents(org.id);
  } finally {
    failing.restore();
  }
  return {
    org,
    briefId: b.id,
    shortcode: b.attributes.shortcode,
    vulnIds,
    report: { id: report.id, token: report.token },
    webhookId: hook.body.data.id,
  };
}

/** Runs the queue over the organization's unprocessed events, as it would in the background (in the organization's database). */
export async function processEvents(organizationId: string) {
  const shard = await shardOf(organizationId);
  const { results } = await tenantBindings()
    [shard]!.prepare("SELECT id FROM events WHERE organization_id = ? AND processed_at IS NULL ORDER BY created_at")
    .bind(organizationId)
    .all<{ id: string }>();
  return runQueue(results.map((e) => ({ event_id: e.id, shard })));
}

/**
 * A smaller organization for the tests that move it hundreds of times: what a move treats apart (a report,
 * its search index and counts, a reporter-visible reply and a file setting its activity, the similarity
 * rows, a webhook's deliveries waiting for their retry, an e-mail waiting), and little else.
 */
export async function lightOrganization(): Promise<{ org: TestOrganization; vulnIds: string[] }> {
  const org = await organization();
  const b = await brief(org, { published_at: PUBLISHED });
  must(
    await post("/v1/webhooks", org.key, {
      data: {
        type: "webhook",
        attributes: { name: "Created", url: "https://hooks.example.com/vdp" },
        relationships: { trigger_event_types: { data: [{ type: "trigger_event_type", id: EVENT_TYPES[0].id }] } },
      },
    }),
    201,
  );
  must(
    await post("/v1/contacts", org.key, {
      data: { type: "contact", attributes: { name: "Ana", email: `ana-${org.slug}@acme.example`, role: "responder" } },
    }),
    201,
  );
  const made = await post("/v1/vulns", org.key, {
    data: {
      type: "vuln",
      attributes: { title: "Open redirect in login", description: "Open redirect in login: steps" },
      relationships: { brief: { data: { type: "brief", id: b.id } } },
    },
  });
  const reported = await submitReport(
    org,
    { title: "Open redirect in logout", description: "Open redirect in logout: steps" },
    { briefId: b.id, shortcode: b.attributes.shortcode },
  );
  const vulnIds = [reported.id, must(made, 201).body.data.id as string];
  must(
    await post(`/v1/vulns/${vulnIds[0]}/comments`, org.key, {
      data: { type: "comment", attributes: { body: "On it", visibility: "reporter" } },
    }),
    201,
  );
  must(await upload(org.key, vulnIds[1]!, '{"poc":true}', { filename: "poc.json", contentType: "application/json" }), 201);
  const failing = receiver(() => new Response("down", { status: 503 }));
  try {
    await processEvents(org.id);
  } finally {
    failing.restore();
  }
  return { org, vulnIds };
}

function must(res: ApiResponse, status: number): ApiResponse {
  if (res.status !== status) throw new Error(`rich organization: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

/** One call of the route `npm run shard -- move` calls. */
export function advance(org: { id: string; operatorKey: string }, to: string, opts: { env?: Partial<Env> } = {}) {
  return post(`/v1/organizations/${org.id}/move`, org.operatorKey, { data: { type: "organization_move", attributes: { to } } }, opts);
}

const FINISHED = ["done", "rolled_back"];

/**
 * Calls the route until the move is done or rolled back, as the command does: when a step waits out
 * cached lookups the test's clock (testClock) moves to the time it names. `between` runs after every
 * call (a client writing meanwhile). Answers every state the move went through.
 */
export async function drive(
  org: { id: string; operatorKey: string },
  to: string,
  opts: { env?: Partial<Env>; between?: (move: MoveState) => Promise<void> } = {},
): Promise<MoveState[]> {
  const states: MoveState[] = [];
  for (let call = 0; call < 500; call++) {
    const res = await advance(org, to, opts);
    if (res.status !== 200 && res.status !== 201) throw new Error(`move: ${res.status} ${res.text}`);
    const move = res.body.data.attributes as MoveState;
    states.push(move);
    await opts.between?.(move);
    if (FINISHED.includes(move.step)) return states;
    if (move.waiting_until) vi.setSystemTime(Date.parse(move.waiting_until));
  }
  throw new Error(`the move did not end: ${JSON.stringify(states.at(-1))}`);
}

export interface MoveState {
  from: string;
  to: string;
  step: string;
  table: string | null;
  counts: Record<string, { from: number; to: number }> | null;
  note: string | null;
  waiting_until: string | null;
  switched_at: string | null;
}

/** The catalog's row of the organization: where it is, and whether it moves. */
export async function tenantRow(organizationId: string) {
  return env.CATALOG.prepare("SELECT shard, moving_to FROM tenants WHERE organization_id = ?")
    .bind(organizationId)
    .first<{ shard: string; moving_to: string | null }>();
}

type Inner = D1Database | D1DatabaseSession;

/**
 * The Worker dying at its n-th D1 call (a batch, or a statement's first, all, raw or run), counted across
 * every binding it is given: that call fails before reaching D1 ("before": nothing written) or after
 * ("after": written, the answer lost), and every call after it fails too, as a dead Worker makes none.
 * `calls()` says how many were made, the failed ones included.
 */
export function dyingAt(n: number, when: "before" | "after") {
  let calls = 0;
  const dead = () => new Error(`the Worker died at D1 call ${n} (${when})`);
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    const mine = ++calls;
    if (mine > n || (mine === n && when === "before")) throw dead();
    const result = await run();
    if (mine === n) throw dead();
    return result;
  };
  const statement = (inner: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(inner, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => statement(target.bind(...args));
        if (["first", "all", "raw", "run"].includes(String(prop))) return (...args: unknown[]) => call(() => value.apply(target, args));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const wrap = <T extends Inner>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
        if (prop === "batch") return (statements: D1PreparedStatement[]) => call(() => target.batch(statements));
        if (prop === "withSession") return (...args: unknown[]) => wrap((target as D1Database).withSession(...(args as [string])));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return { wrap, calls: () => calls };
}
