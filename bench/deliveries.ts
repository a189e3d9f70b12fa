// 1,000 webhook deliveries to a receiver that answers in 50 ms: a webhook on Vuln::Created, then 1,000
// creates through the API, timed from the first create until the receiver has seen every delivery. The
// ideal is what six connections (a Worker's limit of simultaneous outgoing connections) allow.
import { EVENT_TYPES } from "../src/events/types.ts";
import { bearer, getJson, rotate } from "./load.ts";
import type { Receiver } from "./servers.ts";

export const RECEIVER_DELAY_MS = 50;
export const idealSeconds = (count: number) => (count * RECEIVER_DELAY_MS) / 6 / 1000;

export interface DeliveryRun {
  /** Seconds from the first create to the last delivery; a lower bound when not `complete` (time ran out). */
  seconds: number;
  /** Seconds spent creating the reports (the API's POSTs), inside `seconds`. */
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

export async function deliveryRun(base: string, org: Org, receiver: Receiver, tag: string, count: number, timeoutMs: number): Promise<DeliveryRun> {
  const key = rotate(org.keys);
  const hook = await fetch(`${base}/v1/webhooks`, {
    method: "POST",
    headers: { ...bearer(key()), "Content-Type": "application/vnd.api+json" },
    body: JSON.stringify({
      data: { type: "webhook", attributes: { name: tag, url: receiver.url }, relationships: { trigger_event_types: { data: [{ type: "trigger_event_type", id: created }] } } },
    }),
  });
  if (hook.status !== 201) throw new Error(`Creating the bench webhook answered ${hook.status}: ${await hook.text()}`);
  const webhookId = ((await hook.json()) as { data: { id: string } }).data.id;
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
          data: { type: "vuln", attributes: { title: `${tag} #${i}`, description: "Timed delivery." }, relationships: { brief: { data: { type: "brief", id: org.briefId } } } },
        }),
      });
      await res.arrayBuffer();
      if (res.status === 201) made++;
      else refused[res.status] = (refused[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 10 }, creator));
  const createSeconds = (performance.now() - started) / 1000;
  while (receiver.count(tag) < made && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const delivered = receiver.count(tag);
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
      const { body } = await getJson(`${base}/v1/vulns?${new URLSearchParams({ "q[inbox_state_eq]": state, "page[size]": "1" })}`, bearer(key()));
      busy += body?.meta?.page?.total ?? body?.data?.length ?? 0;
    }
    if (busy === 0) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
