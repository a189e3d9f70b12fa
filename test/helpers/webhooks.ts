import { env, withEnv } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { EVENT_TYPES } from "../../src/events/types";
import { post } from "./api";
import { fakeQueue } from "./events";
import { brief, organization, PUBLISHED, type TestOrganization } from "./factories";
import { runQueue } from "./queue";

export { runQueue };

export interface Sent {
  url: string;
  headers: Record<string, string>;
  body: string;
  init: RequestInit;
}

/**
 * Replaces fetch for the Worker code under test (it shares the test's isolate): every webhook
 * request is recorded and answered by `respond`. Nothing leaves the machine.
 */
export function receiver(respond: (sent: Sent, n: number) => Response | Promise<Response> = () => new Response(null, { status: 204 })) {
  const sent: Sent[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const item: Sent = { url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), init: init ?? {} };
    sent.push(item);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await respond(item, sent.length);
    } finally {
      inFlight--;
    }
  });
  return { sent, restore: () => spy.mockRestore(), maxInFlight: () => maxInFlight };
}

/**
 * Runs the consumer over events: it processes them and the events they lead to (the intake's), fans
 * them out and attempts the deliveries in the same run. Returns the run and the deliveries it made.
 */
export async function deliverEvents(eventIds: string[], overrides: Partial<Env> = {}) {
  const ids = async () => (await env.DB.prepare("SELECT id FROM webhook_deliveries").all<{ id: string }>()).results.map((r) => r.id);
  const before = new Set(await ids());
  const run = await runQueue(eventIds, { env: overrides });
  return { deliveryIds: (await ids()).filter((id) => !before.has(id)), ...run };
}

/** Makes a delivery due now, as if its retry delay had passed. */
export async function makeDue(deliveryId: string) {
  await env.DB.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?")
    .bind(new Date(Date.now() - 1000).toISOString(), deliveryId)
    .run();
}

/** Every row of every table, as text: for asserting that a value is stored nowhere. */
export async function databaseText(): Promise<string> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
  ).all<{ name: string }>();
  const dumps = await Promise.all(
    tables.map(async ({ name }) => JSON.stringify((await env.DB.prepare(`SELECT * FROM "${name}"`).all()).results)),
  );
  return dumps.join("\n");
}

/** Runs `work` (requests, queue batches, cron steps) with another WEBHOOK_SECRET_KEY, as after a redeploy. */
export function withWebhookKey<T>(value: string, work: () => Promise<T>): Promise<T> {
  return withEnv({ ...env, WEBHOOK_SECRET_KEY: value }, work) as Promise<T>;
}

/** The webhook's stored secret columns, as D1 holds them. */
export async function storedSecrets(webhookId: string) {
  return (await env.DB.prepare("SELECT secret, previous_secret, previous_secret_expires_at FROM webhooks WHERE id = ?")
    .bind(webhookId)
    .first<{ secret: string; previous_secret: string | null; previous_secret_expires_at: string | null }>())!;
}

/** A fresh organization with a published brief and, unless `types` is empty, a webhook subscribed to them. */
export async function subscribedOrganization(types: string[]) {
  const o = await organization();
  const ids = types.map((n) => EVENT_TYPES.find((t) => t.short_name === n)!.id);
  if (ids.length) {
    await post("/v1/webhooks", o.key, {
      data: {
        type: "webhook",
        attributes: { name: "R", url: "https://hooks.example.com/vdp" },
        relationships: { trigger_event_types: { data: ids.map((id) => ({ type: "trigger_event_type", id })) } },
      },
    });
  }
  return { o, briefId: (await brief(o, { published_at: PUBLISHED })).id };
}

/** `n` vulns created through the API with the queue captured: their Vuln::Created event ids, and their ids. */
export async function createVulns(o: TestOrganization, briefId: string, n: number): Promise<{ events: string[]; vulns: string[] }> {
  const q = fakeQueue();
  const vulns: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await post(
      "/v1/vulns",
      o.key,
      {
        data: {
          type: "vuln",
          attributes: { title: `T${i}`, description: "d" },
          relationships: { brief: { data: { type: "brief", id: briefId } } },
        },
      },
      { env: { EVENTS: q.queue } },
    );
    expect(res.status).toBe(201);
    vulns.push(res.body.data.id);
  }
  return { events: q.ids(), vulns };
}
