import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { fakeQueue } from "../helpers/events";
import { expectedErrorLogs } from "../helpers/logs";
import { createVulns, deliverEvents, receiver, subscribedOrganization as subscribed } from "../helpers/webhooks";

// The consumer delivers what an event fans out in the same invocation, rather than after a queue hop.

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe("deliveries in the invocation that fans them out", () => {
  it("sends a batch's deliveries at once, at most 6 in flight, and queues nothing", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created"]);
    const { events } = await createVulns(o, briefId, 15);
    const r = receiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 15));
      return new Response(null, { status: 204 });
    });
    restore = r.restore;
    const run = await deliverEvents(events);
    expect(run.acked).toBe(15);
    expect(r.sent).toHaveLength(15);
    expect(r.maxInFlight()).toBeLessThanOrEqual(6);
    expect(r.maxInFlight()).toBeGreaterThan(1);
    expect(run.produced).toEqual([]);
    const { n } = (await env.DB.prepare(
      "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded' AND id IN (SELECT value FROM json_each(?))",
    )
      .bind(JSON.stringify(run.deliveryIds))
      .first<{ n: number }>())!;
    expect(n).toBe(15);
  });

  it("queues a failed attempt's retry with the schedule's first delay, its attempt recorded", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created"]);
    const { events } = await createVulns(o, briefId, 1);
    const r = receiver(() => new Response(null, { status: 500 }));
    restore = r.restore;
    const run = await deliverEvents(events);
    expect(run.acked).toBe(1);
    expect(run.produced).toEqual([{ delivery_id: run.deliveryIds[0] }]);
    // The first retry comes 5 s later, give or take 20%.
    expect(run.producedDelays[0]).toBeGreaterThanOrEqual(4);
    expect(run.producedDelays[0]).toBeLessThanOrEqual(6);
    const row = await env.DB.prepare("SELECT status, attempt_count FROM webhook_deliveries WHERE id = ?").bind(run.deliveryIds[0]).first();
    expect(row).toEqual({ status: "pending", attempt_count: 1 });
  });

  it("acknowledges the event even when the queue refuses the retry: the sweep finds the pending delivery", async () => {
    const { o, briefId } = await subscribed(["Vuln::Created"]);
    const { events } = await createVulns(o, briefId, 1);
    const r = receiver(() => new Response(null, { status: 500 }));
    restore = r.restore;
    const logs = expectedErrorLogs();
    const run = await deliverEvents(events, { EVENTS: fakeQueue({ failing: true }).queue });
    expect(run.acked).toBe(1);
    expect(run.retried).toBe(0);
    expect(logs).toEqual([
      expect.objectContaining({
        level: "warn",
        message: "queue send failed; the sweep will resend",
        messages: [{ delivery_id: run.deliveryIds[0] }],
      }),
    ]);
    const row = await env.DB.prepare("SELECT status, next_attempt_at FROM webhook_deliveries WHERE id = ?")
      .bind(run.deliveryIds[0])
      .first<{ status: string; next_attempt_at: string }>();
    expect(row!.status).toBe("pending");
    expect(row!.next_attempt_at).not.toBeNull();
  });
});
