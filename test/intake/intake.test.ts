import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { canonicalSubmission } from "../../src/intake/intake";
import { sha256Hex } from "../../src/lib/crypto";
import { get, patch, post } from "../helpers/api";
import { rewritingSql, unavailable } from "../helpers/d1-faults";
import { count, eventsOf, eventTypes, fakeQueue } from "../helpers/events";
import { expectedErrorLogs } from "../helpers/logs";
import { runQueue } from "../helpers/queue";
import { waitFor } from "../helpers/wait";
import { brief, organization, PUBLISHED, type TestOrganization } from "../helpers/factories";

let org: TestOrganization;
let briefId: string;
beforeAll(async () => {
  org = await organization();
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
});
afterEach(() => vi.useRealTimers());

const doc = (attributes: Record<string, unknown> = {}) => ({
  data: {
    type: "vuln",
    attributes: { title: "SSRF in importer", description: "POST /import with url=...", ...attributes },
    relationships: { brief: { data: { type: "brief", id: briefId } } },
  },
});

/** Creates a vuln with the queue captured, so the test decides when the consumer runs. */
async function createCaptured(attributes: Record<string, unknown> = {}) {
  const q = fakeQueue();
  const res = await post("/v1/vulns", org.key, doc(attributes), { env: { EVENTS: q.queue } });
  expect(res.status).toBe(201);
  return { vuln: res.body.data, eventIds: q.ids() };
}

async function recordOf(vulnId: string) {
  return env.DB.prepare("SELECT * FROM vuln_records WHERE vuln_id = ?").bind(vulnId).first<Record<string, string>>();
}

describe("the intake pipeline on the queue", () => {
  it("drives a new vuln from dispatching through received to stored, keeping the submission as received", async () => {
    const { vuln, eventIds } = await createCaptured({ contact_email: "r@example.org", domains: ["b.example.com", "a.example.com"] });
    expect((await get(`/v1/vulns/${vuln.id}`, org.operatorKey)).body.data.attributes.inbox_state).toBe("dispatching");

    const result = await runQueue(eventIds);
    expect(result.explicitAcks).toEqual(result.messageIds);
    expect(result.retryMessages).toEqual([]);
    expect((await get(`/v1/vulns/${vuln.id}`, org.operatorKey)).body.data.attributes.inbox_state).toBe("stored");
    expect(await eventTypes(vuln.id)).toEqual(["Vuln::Created", "Vuln::Inbox::Received", "Vuln::Inbox::Stored"]);
    // Fanned out, every event's body is emptied: what they said went to their deliveries
    // (test/webhooks/event-bodies.test.ts).
    expect((await eventsOf(vuln.id)).map((e) => e.payload)).toEqual(["{}", "{}", "{}"]);
    // The new events are processed in the same run (no queue hop), and so marked processed.
    expect(result.publishedEvents).toEqual([]);
    const unprocessed = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE vuln_id = ? AND processed_at IS NULL")
      .bind(vuln.id)
      .first<{ n: number }>();
    expect(unprocessed!.n).toBe(0);

    const record = await recordOf(vuln.id);
    const submission = {
      title: "SSRF in importer",
      description: "POST /import with url=...",
      contact_email: "r@example.org",
      domains: ["b.example.com", "a.example.com"],
      received_at: vuln.attributes.created_at,
    };
    expect(record).toMatchObject({
      title: submission.title,
      description: submission.description,
      contact_email: submission.contact_email,
      domains: JSON.stringify(submission.domains),
      received_at: submission.received_at,
      sha256: await sha256Hex(canonicalSubmission(submission)),
    });
    expect(canonicalSubmission(submission)).toBe(
      '{"title":"SSRF in importer","description":"POST /import with url=...","contact_email":"r@example.org","domains":["b.example.com","a.example.com"],"received_at":"' +
        vuln.attributes.created_at +
        '"}',
    );
  });

  it("changes nothing when the same message comes twice, and marks the event processed once", async () => {
    const { vuln, eventIds } = await createCaptured();
    await runQueue(eventIds);
    const before = await eventsOf(vuln.id);
    const again = await runQueue(eventIds);
    expect(again.explicitAcks).toHaveLength(1);
    expect(await eventsOf(vuln.id)).toEqual(before);
    expect(before.every((e) => e.type !== "Vuln::Created" || e.processed_at !== null)).toBe(true);
  });

  it("keeps the record immutable: later edits do not change it, and the database refuses to", async () => {
    const { vuln, eventIds } = await createCaptured({ title: "Original title" });
    await runQueue(eventIds);
    const record = await recordOf(vuln.id);
    await patch(`/v1/vulns/${vuln.id}`, org.key, doc({ title: "Edited title" }), { env: { EVENTS: fakeQueue().queue } });
    expect((await get(`/v1/vulns/${vuln.id}`, org.operatorKey)).body.data.attributes.title).toBe("Edited title");
    expect(await recordOf(vuln.id)).toEqual(record);
    await expect(env.DB.prepare("UPDATE vuln_records SET title = 'x' WHERE vuln_id = ?").bind(vuln.id).run()).rejects.toThrow(/immutable/);
  });

  it("retries, never acknowledges, a message whose processing fails", async () => {
    const { vuln, eventIds } = await createCaptured();
    const logs = expectedErrorLogs();
    const broken = unavailable("D1_ERROR: Network connection lost.");
    const result = await runQueue(eventIds, { env: { DB: broken }, attempts: 3 });
    expect(result.explicitAcks).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ message: "queue message failed; retrying", event_id: eventIds[0], attempts: 3 }));
    expect(result.retryMessages).toEqual([{ msgId: result.messageIds[0] }]);
    expect(result.retryCalls).toEqual([[[{ delaySeconds: 40 }]]]);
    expect((await get(`/v1/vulns/${vuln.id}`, org.operatorKey)).body.data.attributes.inbox_state).toBe("dispatching");
    // When D1 is back, the retried message completes the intake.
    await runQueue(eventIds);
    expect((await get(`/v1/vulns/${vuln.id}`, org.operatorKey)).body.data.attributes.inbox_state).toBe("stored");
  });

  it("retries a malformed message rather than dropping it (it ends in the dead-letter queue)", async () => {
    const logs = expectedErrorLogs();
    const result = await runQueue([{ nothing: true }]);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toHaveLength(1);
    expect(logs).toEqual([
      expect.objectContaining({
        message: "queue message failed; retrying",
        error: expect.stringContaining("no event_id, delivery_id or notification_id"),
      }),
    ]);
  });

  it("acknowledges a message for an event that no longer exists, and one for a deleted vuln", async () => {
    const { vuln, eventIds } = await createCaptured();
    await env.DB.prepare("DELETE FROM vulns WHERE id = ?").bind(vuln.id).run();
    const result = await runQueue([...eventIds, "01900000-0000-7000-8000-00000000beef"]);
    expect(result.explicitAcks).toHaveLength(2);
  });
});

describe("the outbox", () => {
  it("commits the change when the queue refuses the events, and the sweep delivers them later", async () => {
    const logs = expectedErrorLogs();
    const down = fakeQueue({ failing: true });
    const res = await post("/v1/vulns", org.key, doc(), { env: { EVENTS: down.queue } });
    expect(res.status).toBe(201);
    expect(logs).toEqual([expect.objectContaining({ level: "warn", message: "queue send failed; the sweep will resend" })]);
    const id = res.body.data.id;
    const [created] = await eventsOf(id);
    expect(created).toMatchObject({ type: "Vuln::Created", processed_at: null });

    // A minute later the cron sweep finds the unprocessed event and sends it.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    const up = fakeQueue();
    const ctx = createExecutionContext();
    await (worker as ExportedHandler<Env>).scheduled!(
      createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }),
      { ...env, EVENTS: up.queue },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(up.ids()).toContain(created!.id);
    vi.useRealTimers();

    await runQueue([created!.id]);
    expect((await get(`/v1/vulns/${id}`, org.operatorKey)).body.data.attributes.inbox_state).toBe("stored");
    expect((await eventsOf(id))[0]!.processed_at).not.toBeNull();
  });

  it("does not re-send an event the consumer already processed", async () => {
    const { eventIds } = await createCaptured();
    await runQueue(eventIds);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    const q = fakeQueue();
    const ctx = createExecutionContext();
    await (worker as ExportedHandler<Env>).scheduled!(createScheduledController(), { ...env, EVENTS: q.queue }, ctx);
    expect(q.ids()).not.toContain(eventIds[0]);
  });

  it("leaves neither the change nor its events when a statement of the batch fails", async () => {
    const logs = expectedErrorLogs();
    const [vulns, events, assets] = [await count("vulns"), await count("events"), await count("assets")];
    // The events INSERT is made to fail inside D1; the batch is one transaction, so nothing stays.
    const failing = rewritingSql((sql) => sql.replace(/insert into "events"/i, 'insert into "events_that_do_not_exist"'));
    const res = await post("/v1/vulns", org.key, doc({ domains: ["atomic.example.com"] }), {
      env: { DB: failing, EVENTS: fakeQueue().queue },
    });
    expect(res.status).toBe(500);
    expect(logs).toEqual([
      expect.objectContaining({ request_id: res.headers.get("X-Request-Id"), error: expect.stringContaining("events_that_do_not_exist") }),
    ]);
    expect([await count("vulns"), await count("events"), await count("assets")]).toEqual([vulns, events, assets]);
  });
});

describe("through the real queue binding", () => {
  it("a created vuln reaches stored within seconds", async () => {
    const res = await post("/v1/vulns", org.key, doc(), { realQueue: true });
    const id = res.body.data.id;
    const inboxState = async () => (await get(`/v1/vulns/${id}`, org.operatorKey)).body.data.attributes.inbox_state as string;
    expect(await waitFor(`vuln ${id} to reach inbox_state stored`, inboxState, (state) => state === "stored")).toBe("stored");
  });
});
