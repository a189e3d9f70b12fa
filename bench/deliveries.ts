// 1,000 webhook deliveries to a receiver that answers in 50 ms. The timed figure is the delivery
// pipeline alone (`backlogRun`): 1,000 vulns as the API leaves them on create, their Vuln::Created
// events waiting in the outbox, a webhook on Vuln::Created made through the API; the clock starts when
// the cron fires, whose outbox sweep hands the events to the queue, and stops when the receiver has
// every delivery. The consumer then does what it does after a create: intake, fan-out, signed
// delivery. `deliveryRun` is the same end to end with the creates: the webhook first, then 1,000
// POSTs, timed from the first. The ideal is what six connections (a Worker's limit of simultaneous
// outgoing connections) allow.
import { EVENT_TYPES } from "../src/events/types.ts";
import { bearer, getJson, rotate } from "./load.ts";
import type { Receiver } from "./servers.ts";

export const RECEIVER_DELAY_MS = 50;
export const idealSeconds = (count: number) => (count * RECEIVER_DELAY_MS) / 6 / 1000;

export interface DeliveryRun {
  /** Seconds from the first create to the last delivery; a lower bound when not `complete` (time ran out). */
  seconds: number;
  /** Seconds spent creating the reports (the API's POSTs), inside `seconds`; 0 on a backlog. */
  createSeconds: number;
  complete: boolean;
  delivered: number;
  created: number;
  /** Creates refused: 429 (rate limit) and anything else. */
  refused: Record<string, number>;
}

interface Org {
  keys: string[];
  briefId: string;
}

const created = EVENT_TYPES.find((t) => t.short_name === "Vuln::Created")!.id;

/** A webhook on Vuln::Created to the receiver, made through the API (so its secret is sealed as any other's). */
async function createWebhook(base: string, key: string, name: string, url: string): Promise<string> {
  const hook = await fetch(`${base}/v1/webhooks`, {
    method: "POST",
    headers: { ...bearer(key), "Content-Type": "application/vnd.api+json" },
    body: JSON.stringify({
      data: {
        type: "webhook",
        attributes: { name, url },
        relationships: { trigger_event_types: { data: [{ type: "trigger_event_type", id: created }] } },
      },
    }),
  });
  if (hook.status !== 201) throw new Error(`Creating the bench webhook answered ${hook.status}: ${await hook.text()}`);
  return ((await hook.json()) as { data: { id: string } }).data.id;
}

/** Polls the receiver until it has `count` deliveries carrying `tag`, or the deadline passes. */
async function received(receiver: Receiver, tag: string, count: number, deadline: number): Promise<number> {
  while (receiver.count(tag) < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return receiver.count(tag);
}

/**
 * The pipeline alone, on an API whose outbox holds `count` unsent Vuln::Created events of `org` (seeded
 * with `backlog`; their titles carry the organization's slug, the tag counted here). The webhook is
 * made first, then the clock starts as the cron fires (`/cdn-cgi/local/scheduled`, as the deployed
 * cron would) and stops at the receiver's `count`th distinct delivery.
 */
export async function backlogRun(
  base: string,
  org: { keys: string[]; slug: string },
  receiver: Receiver,
  count: number,
  timeoutMs: number,
): Promise<DeliveryRun> {
  await createWebhook(base, org.keys[0]!, org.slug, receiver.url);
  const deadline = Date.now() + timeoutMs;
  const started = performance.now();
  const cron = await fetch(`${base}/cdn-cgi/local/scheduled`);
  await cron.arrayBuffer();
  if (!cron.ok) throw new Error(`Firing the cron answered ${cron.status}.`);
  const delivered = await received(receiver, org.slug, count, deadline);
  return {
    seconds: (performance.now() - started) / 1000,
    createSeconds: 0,
    complete: delivered >= count,
    delivered,
    created: count,
    refused: {},
  };
}

export async function deliveryRun(
  base: string,
  org: Org,
  receiver: Receiver,
  tag: string,
  count: number,
  timeoutMs: number,
): Promise<DeliveryRun> {
  const key = rotate(org.keys);
  const webhookId = await createWebhook(base, key(), tag, receiver.url);
  const refused: Record<string, number> = {};
  let made = 0;
  let next = 0;
  const started = performance.now();
  const deadline = Date.now() + timeoutMs;
  // Ten creates in flight, like the load runs; each key stays far under its per-minute limit.
  const creator = async () => {
    while (next < count && Date.now() < deadline) {
      const i = next++;
      const res = await fetch(`${base}/v1/vulns`, {
        method: "POST",
        headers: { ...bearer(key()), "Content-Type": "application/json" },
        body: JSON.stringify({
          data: {
            type: "vuln",
            attributes: { title: `${tag} #${i}`, description: "Timed delivery." },
            relationships: { brief: { data: { type: "brief", id: org.briefId } } },
          },
        }),
      });
      await res.arrayBuffer();
      if (res.status === 201) made++;
      else refused[res.status] = (refused[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 10 }, creator));
  const createSeconds = (performance.now() - started) / 1000;
  const delivered = await received(receiver, tag, made, deadline);
  const seconds = (performance.now() - started) / 1000;
  await fetch(`${base}/v1/webhooks/${webhookId}`, { method: "DELETE", headers: bearer(key()) }).then((r) => r.arrayBuffer());
  return { seconds, createSeconds, complete: delivered >= count, delivered, created: made, refused };
}

/** Waits until the organization's reports have left the intake pipeline, so the next run starts on a quiet queue. */
export async function waitForQuietQueue(base: string, keys: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const key = rotate(keys);
  while (Date.now() < deadline) {
    let busy = 0;
    for (const state of ["dispatching", "received"]) {
      const { body } = await getJson(
        `${base}/v1/vulns?${new URLSearchParams({ "q[inbox_state_eq]": state, "page[size]": "1" })}`,
        bearer(key()),
      );
      busy += body?.meta?.page?.total ?? body?.data?.length ?? 0;
    }
    if (busy === 0) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
