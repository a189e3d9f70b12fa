import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { EVENT_TYPES } from "../../src/events/types";
import { purgeDeliveries, sweepDeliveries } from "../../src/webhooks/maintenance";
import { api, del, get, patch, post } from "../helpers/api";
import { eventsOf, fakeQueue } from "../helpers/events";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";
import { deliverEvents, makeDue, receiver, runQueue } from "../helpers/webhooks";

let org: TestOrganization;
let briefId: string;
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
});

const ALL = EVENT_TYPES.map((t) => t.short_name);

async function hook(o: TestOrganization, types: string[] = ALL, url = "https://hooks.example.com/vdp") {
  const res = await post("/v1/webhooks", o.key, {
    data: {
      type: "webhook",
      attributes: { name: "Receiver", url },
      relationships: {
        trigger_event_types: {
          data: types.map((n) => ({ type: "trigger_event_type", id: EVENT_TYPES.find((t) => t.short_name === n)!.id })),
        },
      },
    },
  });
  return { id: res.body.data.id as string, secret: res.body.data.attributes.secret as string };
}

async function createVuln(o: TestOrganization, b: string, attributes: Record<string, unknown> = {}) {
  const q = fakeQueue();
  const res = await post(
    "/v1/vulns",
    o.key,
    {
      data: {
        type: "vuln",
        attributes: { title: "SQLi", description: "id=1'", ...attributes },
        relationships: { brief: { data: { type: "brief", id: b } } },
      },
    },
    { env: { EVENTS: q.queue } },
  );
  return { vuln: res.body.data, eventIds: q.ids() };
}

/** A fresh organization with one webhook, and a ping delivery to it (the quickest way to a delivery). */
async function pinged(types: string[] = ALL) {
  const o = await organization();
  const h = await hook(o, types);
  const res = await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined);
  return { o, h, deliveryId: res.body.data.id as string };
}

describe("delivering an event", () => {
  it("POSTs the event's body, byte for byte, with the documented headers and a signature the reference library verifies", async () => {
    const h = await hook(org);
    const r = receiver();
    restore = r.restore;
    const { vuln, eventIds } = await createVuln(org, briefId, { domains: ["shop.example.com"] });
    // The event as written: once fanned out, its body is emptied (its deliveries keep theirs).
    const [created] = await eventsOf(vuln.id);
    const result = await deliverEvents(eventIds);
    expect(result.acked).toBe(1);
    const [sent] = r.sent.filter((s) => s.headers["x-webhook-event"] === "Vuln::Created");
    expect(sent!.url).toBe("https://hooks.example.com/vdp");
    expect(sent!.body).toBe(created!.payload);
    expect(sent!.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "vdp-api/1.0",
      "x-webhook-event": "Vuln::Created",
      "webhook-id": created!.id,
    });
    expect(Math.abs(Number(sent!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(new Webhook(h.secret).verify(sent!.body, sent!.headers)).toEqual(JSON.parse(created!.payload));
    // The documented body for a created vuln.
    expect(Object.keys(JSON.parse(sent!.body).vuln)).toEqual([
      "id",
      "shortcode",
      "title",
      "description",
      "inbox_state",
      "processing_state",
      "organization_id",
      "tags",
      "assets",
      "created_at",
      "updated_at",
    ]);
    expect(sent!.init.redirect).toBe("manual");
    expect(sent!.init.signal).toBeInstanceOf(AbortSignal);
    // The intake's events are processed in the same run, without a queue hop, and go out too: the
    // deliveries are attempted at once, so nothing is left for the queue.
    expect(result.deliveryIds).toHaveLength(3);
    expect(r.sent.map((s) => s.headers["x-webhook-event"]).sort()).toEqual([
      "Vuln::Created",
      "Vuln::Inbox::Received",
      "Vuln::Inbox::Stored",
    ]);
    expect(result.produced).toEqual([]);
  });

  it("sends Vuln::Destroyed as exactly {vuln: {id, destroyed: true}}", async () => {
    const o = await organization();
    const h = await hook(o, ["Vuln::Destroyed"]);
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    const { vuln } = await createVuln(o, b);
    const q = fakeQueue();
    await del(`/v1/vulns/${vuln.id}`, o.key, { env: { EVENTS: q.queue } });
    const r = receiver();
    restore = r.restore;
    await deliverEvents(q.ids());
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]!.body).toBe(JSON.stringify({ vuln: { id: vuln.id, destroyed: true } }));
    expect(new Webhook(h.secret).verify(r.sent[0]!.body, r.sent[0]!.headers)).toBeTruthy();
  });

  it("delivers only subscribed events, only to the event's own organization, only to enabled webhooks", async () => {
    const o = await organization();
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    const wanted = await hook(o, ["Vuln::Created"], "https://wanted.example.com/");
    await hook(o, ["Vuln::Destroyed"], "https://unsubscribed.example.com/");
    const off = await hook(o, ALL, "https://disabled.example.com/");
    await patch(`/v1/webhooks/${off.id}`, o.key, { data: { type: "webhook", attributes: { enabled: false } } });
    const stranger = await organization();
    await hook(stranger, ALL, "https://stranger.example.com/");
    const r = receiver();
    restore = r.restore;
    const { eventIds } = await createVuln(o, b);
    await deliverEvents(eventIds);
    expect(r.sent.map((s) => s.url)).toEqual(["https://wanted.example.com/"]);
    expect((await get(`/v1/webhooks/${wanted.id}/deliveries`, o.key)).body.data).toHaveLength(1);
  });

  it("fans an event out once, however often its message comes", async () => {
    const o = await organization();
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    const h = await hook(o, ["Vuln::Created"]);
    const { eventIds } = await createVuln(o, b);
    const r = receiver();
    restore = r.restore;
    const first = await deliverEvents(eventIds);
    const again = await deliverEvents(eventIds);
    expect(first.deliveryIds).toHaveLength(1);
    expect(again.deliveryIds).toEqual([]);
    expect(r.sent).toHaveLength(1);
    expect((await get(`/v1/webhooks/${h.id}/deliveries`, o.key)).body.meta.page.total).toBe(1);
  });
});

describe("what each answer does", () => {
  const cases: [
    string,
    () => Response | Promise<Response>,
    { acked: number; status: string; delay?: [number, number]; code: number | null; error?: RegExp },
  ][] = [
    ["200", () => new Response("ok", { status: 200 }), { acked: 1, status: "succeeded", code: 200 }],
    ["204", () => new Response(null, { status: 204 }), { acked: 1, status: "succeeded", code: 204 }],
    [
      "302 (not followed)",
      () => new Response(null, { status: 302, headers: { Location: "https://elsewhere.example.com/" } }),
      { acked: 0, status: "pending", delay: [4, 6], code: 302, error: /redirect to https:\/\/elsewhere.example.com\/ not followed/ },
    ],
    ["410", () => new Response(null, { status: 410 }), { acked: 1, status: "failed", code: 410 }],
    [
      "429 with Retry-After",
      () => new Response(null, { status: 429, headers: { "Retry-After": "8" } }),
      { acked: 0, status: "pending", delay: [8, 8], code: 429 },
    ],
    ["500", () => new Response("stack trace of the receiver", { status: 500 }), { acked: 0, status: "pending", delay: [4, 6], code: 500 }],
    [
      "a timeout",
      () => Promise.reject(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      { acked: 0, status: "pending", delay: [4, 6], code: null, error: /timed out after 15 s/ },
    ],
    [
      "a network error",
      () => Promise.reject(new TypeError("fetch failed")),
      { acked: 0, status: "pending", delay: [4, 6], code: null, error: /request failed/ },
    ],
  ];

  it.each(cases)("%s", async (_name, answer, expected) => {
    const { o, h, deliveryId } = await pinged();
    const r = receiver(() => answer());
    restore = r.restore;
    const result = await runQueue([{ delivery_id: deliveryId }]);
    expect(result.acked).toBe(expected.acked);
    expect(result.retried).toBe(1 - expected.acked);
    if (expected.delay) {
      expect(result.delays[0]).toBeGreaterThanOrEqual(expected.delay[0]);
      expect(result.delays[0]).toBeLessThanOrEqual(expected.delay[1]);
    }
    const detail = (await get(`/v1/webhooks/${h.id}/deliveries/${deliveryId}`, o.key)).body.data.attributes;
    expect(detail).toMatchObject({ status: expected.status, attempt_count: 1, last_status_code: expected.code });
    expect(detail.attempts).toHaveLength(1);
    expect(detail.attempts[0]).toMatchObject({ status_code: expected.code });
    if (expected.error) expect(detail.attempts[0].error).toMatch(expected.error);
    // The receiver's body is never stored or shown.
    expect(JSON.stringify(detail)).not.toContain("stack trace of the receiver");
    const webhookNow = (await get(`/v1/webhooks/${h.id}`, o.key)).body.data.attributes;
    expect(webhookNow.disabled_reason).toBe(_name === "410" ? "gone" : null);
    expect(webhookNow.enabled).toBe(_name !== "410");
  });

  it("retries after a failure with the same webhook-id, then succeeds", async () => {
    const { o, h, deliveryId } = await pinged();
    const r = receiver((_s, n) => new Response(null, { status: n === 1 ? 503 : 200 }));
    restore = r.restore;
    await runQueue([{ delivery_id: deliveryId }]);
    // The retried message is not due yet: an early copy is acknowledged without sending.
    expect((await runQueue([{ delivery_id: deliveryId }])).acked).toBe(1);
    expect(r.sent).toHaveLength(1);
    await makeDue(deliveryId);
    expect((await runQueue([{ delivery_id: deliveryId }])).acked).toBe(1);
    expect(r.sent.map((s) => s.headers["webhook-id"])).toEqual([r.sent[0]!.headers["webhook-id"], r.sent[0]!.headers["webhook-id"]]);
    const detail = (await get(`/v1/webhooks/${h.id}/deliveries/${deliveryId}`, o.key)).body.data.attributes;
    expect(detail).toMatchObject({ status: "succeeded", attempt_count: 2, last_status_code: 200, next_attempt_at: null });
    expect(detail.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 200]);
  });

  it("gives up after the eighth attempt", async () => {
    const { o, h, deliveryId } = await pinged();
    await env.DB.prepare("UPDATE webhook_deliveries SET attempt_count = 7 WHERE id = ?").bind(deliveryId).run();
    const r = receiver(() => new Response(null, { status: 500 }));
    restore = r.restore;
    const result = await runQueue([{ delivery_id: deliveryId }]);
    expect(result.acked).toBe(1);
    expect((await get(`/v1/webhooks/${h.id}/deliveries/${deliveryId}`, o.key)).body.data.attributes).toMatchObject({
      status: "failed",
      attempt_count: 8,
      next_attempt_at: null,
    });
  });

  it("disables a webhook after five deliveries in a row used up every attempt; a success in between resets the count", async () => {
    const o = await organization();
    const h = await hook(o);
    const exhaust = async (status: number) => {
      const d = (await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined)).body.data.id;
      await env.DB.prepare("UPDATE webhook_deliveries SET attempt_count = 7 WHERE id = ?").bind(d).run();
      const r = receiver(() => new Response(null, { status }));
      await runQueue([{ delivery_id: d }]);
      r.restore();
    };
    for (let i = 0; i < 4; i++) await exhaust(500);
    await exhaust(200); // a success resets the run
    for (let i = 0; i < 4; i++) await exhaust(500);
    expect((await get(`/v1/webhooks/${h.id}`, o.key)).body.data.attributes).toMatchObject({ enabled: true, disabled_reason: null });
    await exhaust(500);
    expect((await get(`/v1/webhooks/${h.id}`, o.key)).body.data.attributes).toMatchObject({ enabled: false, disabled_reason: "failing" });
    // Events no longer go to it; PATCH enabled: true turns it back on.
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    expect((await deliverEvents((await createVuln(o, b)).eventIds)).deliveryIds).toEqual([]);
    const back = await patch(`/v1/webhooks/${h.id}`, o.key, { data: { type: "webhook", attributes: { enabled: true } } });
    expect(back.body.data.attributes).toMatchObject({ enabled: true, disabled_reason: null });
    const r = receiver();
    restore = r.restore;
    // Subscribed to every event: the creation and the intake's two moves.
    expect((await deliverEvents((await createVuln(o, b)).eventIds)).deliveryIds).toHaveLength(3);
  });

  it("checks the URL again before sending, and sends nothing to one that fails", async () => {
    const { o, h, deliveryId } = await pinged();
    await env.DB.prepare("UPDATE webhooks SET url = 'https://169.254.169.254/latest/' WHERE id = ?").bind(h.id).run();
    const r = receiver();
    restore = r.restore;
    expect((await runQueue([{ delivery_id: deliveryId }])).acked).toBe(1);
    expect(r.sent).toEqual([]);
    const attempt = (await get(`/v1/webhooks/${h.id}/deliveries/${deliveryId}`, o.key)).body.data.attributes;
    expect(attempt.status).toBe("failed");
    expect(attempt.attempts[0].error).toMatch(/^url refused/);
  });

  it("sends a delivery once when its message comes twice at once", async () => {
    const { deliveryId } = await pinged();
    const r = receiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return new Response(null, { status: 200 });
    });
    restore = r.restore;
    const result = await runQueue([{ delivery_id: deliveryId }, { delivery_id: deliveryId }]);
    // The copy finds the delivery leased (and comes back after the lease) or already done (acked):
    // either way it is sent once.
    expect(result.acked + result.retried).toBe(2);
    expect(result.acked).toBeGreaterThanOrEqual(1);
    expect(r.sent).toHaveLength(1);
    await env.DB.prepare("UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ?").bind(deliveryId).run();
    expect((await runQueue([{ delivery_id: deliveryId }])).acked).toBe(1);
    expect(r.sent).toHaveLength(1);
  });

  it("keeps at most 6 requests in flight per consumer invocation", async () => {
    const o = await organization();
    const h = await hook(o);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined)).body.data.id);
    const r = receiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 250));
      return new Response(null, { status: 200 });
    });
    restore = r.restore;
    const result = await runQueue(ids.map((delivery_id) => ({ delivery_id })));
    expect(result.acked).toBe(10);
    expect(r.sent).toHaveLength(10);
    expect(r.maxInFlight()).toBeLessThanOrEqual(6);
    expect(r.maxInFlight()).toBeGreaterThan(1); // concurrent, not one by one
  });
});

describe("rotation, ping, redelivery and the log", () => {
  it("signs with both secrets for 24 hours after a rotation", async () => {
    const { o, h, deliveryId } = await pinged();
    const rotated = (await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined)).body.data.attributes.secret as string;
    const r = receiver();
    restore = r.restore;
    await runQueue([{ delivery_id: deliveryId }]);
    const sent = r.sent[0]!;
    expect(sent.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(rotated).verify(sent.body, sent.headers)).toBeTruthy();
    expect(new Webhook(h.secret).verify(sent.body, sent.headers)).toBeTruthy();
    // After the grace period only the new secret signs.
    await env.DB.prepare("UPDATE webhooks SET previous_secret_expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), h.id)
      .run();
    const again = (await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined)).body.data.id;
    await runQueue([{ delivery_id: again }]);
    const later = r.sent[1]!;
    expect(later.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(() => new Webhook(h.secret).verify(later.body, later.headers)).toThrow();
    expect(new Webhook(rotated).verify(later.body, later.headers)).toBeTruthy();
  });

  it("pings with 202 and the body {ping: {webhook_id, sent_at}}", async () => {
    const o = await organization();
    const h = await hook(o);
    const res = await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined);
    expect(res.status).toBe(202);
    expect(res.headers.get("Location")).toBe(`/v1/webhooks/${h.id}/deliveries/${res.body.data.id}`);
    expect(res.body.data).toMatchObject({
      type: "webhook_delivery",
      attributes: { event_type: "Webhook::Ping", status: "pending", attempt_count: 0, redelivery: false },
    });
    const r = receiver();
    restore = r.restore;
    await runQueue([{ delivery_id: res.body.data.id }]);
    const body = JSON.parse(r.sent[0]!.body);
    expect(Object.keys(body)).toEqual(["ping"]);
    expect(body.ping.webhook_id).toBe(h.id);
    expect(Date.parse(body.ping.sent_at)).not.toBeNaN();
    expect(r.sent[0]!.headers["x-webhook-event"]).toBe("Webhook::Ping");
  });

  it("redelivers with 202: a new delivery of the same event, with the same webhook-id", async () => {
    const { o, h, deliveryId } = await pinged();
    const r = receiver();
    restore = r.restore;
    await runQueue([{ delivery_id: deliveryId }]);
    const res = await post(`/v1/webhooks/${h.id}/deliveries/${deliveryId}/redeliver`, o.key, undefined);
    expect(res.status).toBe(202);
    expect(res.body.data.id).not.toBe(deliveryId);
    expect(res.body.data.attributes).toMatchObject({ redelivery: true, status: "pending" });
    await runQueue([{ delivery_id: res.body.data.id }]);
    expect(r.sent).toHaveLength(2);
    expect(r.sent[1]!.headers["webhook-id"]).toBe(r.sent[0]!.headers["webhook-id"]);
    expect(r.sent[1]!.body).toBe(r.sent[0]!.body);
    const log = await get(`/v1/webhooks/${h.id}/deliveries`, o.key);
    expect(log.body.data.map((d: { id: string }) => d.id)).toEqual([res.body.data.id, deliveryId]);
    expect((await get(`/v1/webhooks/${h.id}/deliveries?q[status_eq]=succeeded`, o.key)).body.meta.page.total).toBe(2);
    expect((await get(`/v1/webhooks/${h.id}/deliveries?q[status_eq]=pending`, o.key)).body.meta.page.total).toBe(0);
    expect((await get(`/v1/webhooks/${h.id}/deliveries?q[status_eq]=lost`, o.key)).status).toBe(400);
  });

  it("shows the body sent and every attempt in the delivery's detail", async () => {
    const { o, h, deliveryId } = await pinged();
    const r = receiver(() => new Response("receiver body", { status: 500 }));
    restore = r.restore;
    await runQueue([{ delivery_id: deliveryId }]);
    const detail = (await get(`/v1/webhooks/${h.id}/deliveries/${deliveryId}`, o.key)).body.data;
    expect(detail.attributes.request_body).toBe(r.sent[0]!.body);
    expect(detail.attributes.attempts[0]).toEqual({
      attempted_at: expect.any(String),
      status_code: 500,
      duration_ms: expect.any(Number),
      error: null,
    });
    expect(detail.relationships.webhook.data).toEqual({ type: "webhook", id: h.id });
    expect((await get(`/v1/webhooks/${h.id}/deliveries/01900000-0000-7000-8000-00000000beef`, o.key)).status).toBe(404);
  });
});

describe("housekeeping", () => {
  it("re-sends deliveries whose messages were lost within 2 minutes of their lease ending, page after page until none are due", async () => {
    const { deliveryId } = await pinged();
    // 250 more like it, as a hard kill leaves them: pending, written leased to an isolate that died.
    const columns = ((await env.DB.prepare("PRAGMA table_info(webhook_deliveries)").all()).results as { name: string }[])
      .map((c) => c.name)
      .filter((name) => name !== "id" && name !== "redelivery_of");
    const ids = Array.from({ length: 250 }, (_, i) => `01900000-0000-7000-8000-${String(i).padStart(12, "0")}`);
    await env.DB.batch(
      ids.map((id) =>
        env.DB.prepare(
          `INSERT INTO webhook_deliveries (id, redelivery_of, ${columns.join(", ")}) SELECT ?, id, ${columns.join(", ")} FROM webhook_deliveries WHERE id = ?`,
        ).bind(id, deliveryId),
      ),
    );
    const lost = [deliveryId, ...ids];
    const t0 = Date.now();
    const marks = lost.map((id) => ({ id, nextAttemptAt: new Date(t0).toISOString(), leaseUntil: new Date(t0 + 60_000).toISOString() }));
    await env.DB.batch(
      marks.map((m) =>
        env.DB.prepare("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, lease_until = ? WHERE id = ?").bind(
          m.nextAttemptAt,
          m.leaseUntil,
          m.id,
        ),
      ),
    );
    const db = createDb(env.DB);
    const q = fakeQueue();
    // Counted by id: other tests of this file leave deliveries of their own due at these times.
    const sentOfLost = () => q.sent.map((m) => (m as unknown as { delivery_id: string }).delivery_id).filter((id) => lost.includes(id));
    // While the lease runs, its holder may still send it.
    await sweepDeliveries(db, q.queue, t0 + 60_000);
    expect(sentOfLost()).toEqual([]);
    // Two minutes after the lease ended: all of them, in pages of 100, each once.
    expect(await sweepDeliveries(db, q.queue, t0 + 60_000 + 2 * 60_000)).toBeGreaterThanOrEqual(lost.length);
    expect(sentOfLost().sort()).toEqual([...lost].sort());
    // Sent again only if their new messages are lost too.
    await sweepDeliveries(db, q.queue, t0 + 60_000 + 2 * 60_000 + 1_000);
    expect(sentOfLost()).toHaveLength(lost.length);
  });

  it("re-sends a delivery whose message was lost, and purges deliveries after 30 days", async () => {
    const { o, h, deliveryId } = await pinged();
    const db = createDb(env.DB);
    const q = fakeQueue();
    expect(await sweepDeliveries(db, q.queue, Date.now())).toBe(0);
    expect(await sweepDeliveries(db, q.queue, Date.now() + 11 * 60_000)).toBeGreaterThanOrEqual(1);
    expect(q.sent.map((m) => (m as unknown as { delivery_id: string }).delivery_id)).toContain(deliveryId);
    await purgeDeliveries(db, Date.now() + 29 * 86_400_000);
    expect((await get(`/v1/webhooks/${h.id}/deliveries`, o.key)).body.meta.page.total).toBe(1);
    await purgeDeliveries(db, Date.now() + 31 * 86_400_000);
    expect((await get(`/v1/webhooks/${h.id}/deliveries`, o.key)).body.meta.page.total).toBe(0);
  });
});

describe("what review of the webhooks found", () => {
  it("replays a rotation sent with an Idempotency-Key instead of rotating twice", async () => {
    const o = await organization();
    const h = await hook(o);
    const first = await api("POST", `/v1/webhooks/${h.id}/rotate_secret`, { key: o.key, headers: { "Idempotency-Key": "rotate-1" } });
    const again = await api("POST", `/v1/webhooks/${h.id}/rotate_secret`, { key: o.key, headers: { "Idempotency-Key": "rotate-1" } });
    expect(first.body.data.attributes.secret).toMatch(/^whsec_/);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body.data.attributes.secret).toBeNull();
    // Only one rotation happened: the new secret and the original both verify.
    const r = receiver();
    restore = r.restore;
    const d = (await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined)).body.data.id;
    await runQueue([{ delivery_id: d }]);
    expect(new Webhook(first.body.data.attributes.secret).verify(r.sent[0]!.body, r.sent[0]!.headers)).toBeTruthy();
    expect(new Webhook(h.secret).verify(r.sent[0]!.body, r.sent[0]!.headers)).toBeTruthy();
  });

  it("keeps the original secret signing through a second rotation within 24 hours", async () => {
    const o = await organization();
    const h = await hook(o);
    await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined);
    const second = (await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined)).body.data.attributes.secret as string;
    const r = receiver();
    restore = r.restore;
    const d = (await post(`/v1/webhooks/${h.id}/ping`, o.key, undefined)).body.data.id;
    await runQueue([{ delivery_id: d }]);
    expect(new Webhook(second).verify(r.sent[0]!.body, r.sent[0]!.headers)).toBeTruthy();
    expect(new Webhook(h.secret).verify(r.sent[0]!.body, r.sent[0]!.headers)).toBeTruthy();
  });

  it("sends a redelivery the owner asked for even while the webhook is disabled", async () => {
    const { o, h, deliveryId } = await pinged();
    const r = receiver();
    restore = r.restore;
    await runQueue([{ delivery_id: deliveryId }]);
    await patch(`/v1/webhooks/${h.id}`, o.key, { data: { type: "webhook", attributes: { enabled: false } } });
    const copy = (await post(`/v1/webhooks/${h.id}/deliveries/${deliveryId}/redeliver`, o.key, undefined)).body.data.id;
    await runQueue([{ delivery_id: copy }]);
    expect(r.sent).toHaveLength(2);
  });

  it("retries, rather than drops, a message whose delivery another attempt still holds", async () => {
    const { deliveryId } = await pinged();
    await env.DB.prepare("UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?")
      .bind(new Date(Date.now() + 30_000).toISOString(), deliveryId)
      .run();
    const r = receiver();
    restore = r.restore;
    const result = await runQueue([{ delivery_id: deliveryId }]);
    expect(result.acked).toBe(0);
    expect(result.delays[0]).toBeGreaterThanOrEqual(30);
    expect(result.delays[0]).toBeLessThanOrEqual(32);
    expect(r.sent).toEqual([]);
  });

  it("acknowledges quietly when the webhook is deleted while its request is out", async () => {
    const { o, h, deliveryId } = await pinged();
    const r = receiver(async () => {
      await env.DB.prepare("DELETE FROM webhooks WHERE id = ?").bind(h.id).run();
      return new Response(null, { status: 500 });
    });
    restore = r.restore;
    const result = await runQueue([{ delivery_id: deliveryId }]);
    expect(result.acked).toBe(1);
    expect((await get(`/v1/webhooks/${h.id}`, o.key)).status).toBe(404);
  });

  it("sends the documented values for a created vuln: tags and domain assets as arrays of the right shape", async () => {
    const o = await organization();
    await hook(o, ["Vuln::Created"]);
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    const { vuln, eventIds } = await createVuln(o, b, { tags: ["xss"], domains: ["shop.example.com"] });
    const r = receiver();
    restore = r.restore;
    await deliverEvents(eventIds);
    const asset = (await get("/v1/assets", o.key)).body.data[0];
    expect(JSON.parse(r.sent[0]!.body)).toEqual({
      vuln: {
        id: vuln.id,
        shortcode: vuln.attributes.shortcode,
        title: "SQLi",
        description: "id=1'",
        inbox_state: "dispatching",
        processing_state: "open",
        organization_id: o.id,
        tags: ["xss"],
        assets: [{ id: asset.id, kind: "domain", value: "shop.example.com" }],
        created_at: vuln.attributes.created_at,
        updated_at: vuln.attributes.updated_at,
      },
    });
  });
});
