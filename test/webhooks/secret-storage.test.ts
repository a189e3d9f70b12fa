import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { toBase64 } from "../../src/lib/crypto";
import { api, get, post } from "../helpers/api";
import { webhookDoc } from "../helpers/endpoints";
import { fakeQueue } from "../helpers/events";
import { organization, type TestOrganization } from "../helpers/factories";
import { databaseText, receiver, runQueue, storedSecrets, withWebhookKey } from "../helpers/webhooks";

let restore: (() => void)[] = [];
afterEach(() => {
  for (const r of restore) r();
  restore = [];
});

const DEV_KEY = env.WEBHOOK_SECRET_KEY;
const NEW_KEY = `k2:${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;

async function hook(o: TestOrganization) {
  const res = await post("/v1/webhooks", o.key, webhookDoc());
  expect(res.status).toBe(201);
  return { id: res.body.data.id as string, secret: res.body.data.attributes.secret as string };
}

/** Pings the webhook and runs the consumer over the delivery; what was sent, and what the consumer did. */
async function pingAndDeliver(o: TestOrganization, webhookId: string) {
  const deliveryId = (await post(`/v1/webhooks/${webhookId}/ping`, o.key, undefined)).body.data.id as string;
  const r = receiver();
  restore.push(r.restore);
  const result = await runQueue([{ delivery_id: deliveryId }]);
  r.restore();
  return { deliveryId, sent: r.sent, result };
}

const verifies = (secret: string, sent: { body: string; headers: Record<string, string> }) => {
  new Webhook(secret).verify(sent.body, sent.headers);
  return true;
};

/** What is logged as an error from now on: each line's message and error, decoded from its JSON. */
function errorLog() {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  restore.push(() => spy.mockRestore());
  const decoded = (line: string) => {
    try {
      const entry = JSON.parse(line) as { message?: string; error?: string };
      return `${entry.message ?? ""}: ${entry.error ?? ""}`;
    } catch {
      return line;
    }
  };
  return () => spy.mock.calls.map((c) => decoded(String(c[0]))).join("\n");
}

async function cron() {
  const ctx = createExecutionContext();
  await (worker as ExportedHandler<Env>).scheduled!(createScheduledController(), { ...env, EVENTS: fakeQueue().queue }, ctx);
  await waitOnExecutionContext(ctx);
}

describe("webhook secrets at rest", () => {
  it("stores the secret sealed: after a create, no row of any table holds it", async () => {
    const o = await organization();
    const res = await api("POST", "/v1/webhooks", { key: o.key, body: webhookDoc(), headers: { "Idempotency-Key": "create-sealed" } });
    const secret = res.body.data.attributes.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const text = await databaseText();
    expect(text).not.toContain(secret.slice("whsec_".length, "whsec_".length + 24));
    const stored = await storedSecrets(res.body.data.id);
    expect(stored.secret).toMatch(/^v1\.dev\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(stored.previous_secret).toBeNull();
  });

  it("after a rotation holds neither secret in clear, and a delivery carries two signatures the reference library verifies", async () => {
    const o = await organization();
    const h = await hook(o);
    const rotated = (await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined)).body.data.attributes.secret as string;
    const text = await databaseText();
    for (const s of [h.secret, rotated]) expect(text).not.toContain(s.slice("whsec_".length, "whsec_".length + 24));
    const stored = await storedSecrets(h.id);
    expect(stored.secret).toMatch(/^v1\.dev\./);
    expect(stored.previous_secret).toMatch(/^v1\.dev\./);
    const { sent } = await pingAndDeliver(o, h.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verifies(rotated, sent[0]!)).toBe(true);
    expect(verifies(h.secret, sent[0]!)).toBe(true);
  });
});

describe("a stored secret that does not open fails closed", () => {
  /** Changes a stored column, delivers a ping, and checks that nothing went out and nothing was recorded. */
  async function refused(change: (h: { id: string; secret: string }, o: TestOrganization) => Promise<void>, expected: RegExp) {
    const o = await organization();
    const h = await hook(o);
    await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined);
    const before = await storedSecrets(h.id);
    await change(h, o);
    const log = errorLog();
    const { deliveryId, sent, result } = await pingAndDeliver(o, h.id);
    expect(sent).toEqual([]);
    expect([result.acked, result.retried]).toEqual([0, 1]);
    expect(log()).toMatch(expected);
    expect(log()).toContain(h.id);
    // Not an attempt: the delivery waits, unleased, for the message's retry.
    const detail = (await get(`/v1/webhooks/${h.id}/deliveries/${deliveryId}`, o.key)).body.data.attributes;
    expect([detail.status, detail.attempt_count, detail.attempts]).toEqual(["pending", 0, []]);
    expect(
      await env.DB.prepare("SELECT lease_until FROM webhook_deliveries WHERE id = ?").bind(deliveryId).first("lease_until"),
    ).toBeNull();
    // Once the row is right again, the retry goes out signed.
    await env.DB.prepare("UPDATE webhooks SET secret = ?, previous_secret = ? WHERE id = ?")
      .bind(before.secret, before.previous_secret, h.id)
      .run();
    const r = receiver();
    restore.push(r.restore);
    expect((await runQueue([{ delivery_id: deliveryId }])).acked).toBe(1);
    expect(r.sent).toHaveLength(1);
    expect(verifies(h.secret, r.sent[0]!)).toBe(true);
  }

  const set = (column: string, value: (stored: string) => string) => async (h: { id: string }) => {
    const stored = (await env.DB.prepare(`SELECT ${column} AS v FROM webhooks WHERE id = ?`).bind(h.id).first<string>("v"))!;
    await env.DB.prepare(`UPDATE webhooks SET ${column} = ? WHERE id = ?`).bind(value(stored), h.id).run();
  };
  const flipLast = (s: string) => s.slice(0, -2) + (s.at(-2) === "A" ? "B" : "A") + s.at(-1);

  it("an altered ciphertext is not sent, unsigned or otherwise: logged and retried", () =>
    refused(set("secret", flipLast), /does not authenticate/));

  it("an altered previous secret, during its 24 hours, stops the send too", () =>
    refused(set("previous_secret", flipLast), /does not authenticate/));

  it("a key id the configuration does not hold is not sent", () =>
    refused(
      set("secret", (s) => s.replace(/^v1\.dev\./, "v1.gone.")),
      /sealed with key "gone"/,
    ));

  it("a secret copied from another webhook's row does not open there", () =>
    refused(async (h, o) => {
      const other = await hook(o);
      await env.DB.prepare("UPDATE webhooks SET secret = (SELECT secret FROM webhooks WHERE id = ?) WHERE id = ?")
        .bind(other.id, h.id)
        .run();
    }, /does not authenticate/));
});

describe("secrets stored before sealing", () => {
  it("a plain whsec_ secret still signs, and the cron seals it (and its previous one) in place", async () => {
    const o = await organization();
    const h = await hook(o);
    const previous = (await hook(o)).secret;
    const expires = new Date(Date.now() + 3600_000).toISOString();
    await env.DB.prepare("UPDATE webhooks SET secret = ?, previous_secret = ?, previous_secret_expires_at = ? WHERE id = ?")
      .bind(h.secret, previous, expires, h.id)
      .run();
    const legacy = await pingAndDeliver(o, h.id);
    expect(verifies(h.secret, legacy.sent[0]!)).toBe(true);
    expect(verifies(previous, legacy.sent[0]!)).toBe(true);

    await cron();
    const stored = await storedSecrets(h.id);
    expect(stored.secret).toMatch(/^v1\.dev\./);
    expect(stored.previous_secret).toMatch(/^v1\.dev\./);
    expect(stored.previous_secret_expires_at).toBe(expires);
    expect(await databaseText()).not.toContain(h.secret.slice(6, 30));
    const sealed = await pingAndDeliver(o, h.id);
    expect(verifies(h.secret, sealed.sent[0]!)).toBe(true);
    expect(verifies(previous, sealed.sent[0]!)).toBe(true);
  });

  it("a rotation seals a plain outgoing secret as it moves it", async () => {
    const o = await organization();
    const h = await hook(o);
    await env.DB.prepare("UPDATE webhooks SET secret = ? WHERE id = ?").bind(h.secret, h.id).run();
    const rotated = (await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined)).body.data.attributes.secret as string;
    expect((await storedSecrets(h.id)).previous_secret).toMatch(/^v1\.dev\./);
    expect(await databaseText()).not.toContain(h.secret.slice(6, 30));
    const { sent } = await pingAndDeliver(o, h.id);
    expect(verifies(rotated, sent[0]!)).toBe(true);
    expect(verifies(h.secret, sent[0]!)).toBe(true);
  });

  it("the cron forgets a previous secret whose 24 hours are over", async () => {
    const o = await organization();
    const h = await hook(o);
    await post(`/v1/webhooks/${h.id}/rotate_secret`, o.key, undefined);
    await env.DB.prepare("UPDATE webhooks SET previous_secret_expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), h.id)
      .run();
    await cron();
    expect(await storedSecrets(h.id)).toMatchObject({ previous_secret: null, previous_secret_expires_at: null });
  });
});

describe("rotating WEBHOOK_SECRET_KEY", () => {
  it("with a new key first: old rows still sign, new ones seal under it, the cron reseals the rest, then the old key can go", async () => {
    const o = await organization();
    const old = await hook(o);
    await post(`/v1/webhooks/${old.id}/rotate_secret`, o.key, undefined);
    const oldRotated = await storedSecrets(old.id);
    const both = `${NEW_KEY},${DEV_KEY}`;

    const fresh = await withWebhookKey(both, async () => {
      // Sealed under the old key, opened under the new configuration.
      const { sent } = await pingAndDeliver(o, old.id);
      expect(verifies(old.secret, sent[0]!)).toBe(true);
      return hook(o);
    });
    expect((await storedSecrets(fresh.id)).secret).toMatch(/^v1\.k2\./);
    expect((await storedSecrets(old.id)).secret).toMatch(/^v1\.dev\./);

    await withWebhookKey(both, cron);
    const resealed = await storedSecrets(old.id);
    expect(resealed.secret).toMatch(/^v1\.k2\./);
    expect(resealed.previous_secret).toMatch(/^v1\.k2\./);
    expect(resealed.previous_secret_expires_at).toBe(oldRotated.previous_secret_expires_at);

    // With the old key removed, everything resealed still signs.
    await withWebhookKey(NEW_KEY, async () => {
      for (const h of [old, fresh]) {
        const { sent } = await pingAndDeliver(o, h.id);
        expect(sent).toHaveLength(1);
        expect(verifies(h.secret, sent[0]!)).toBe(true);
      }
    });
  });
});

describe("the key configuration", () => {
  it.each([
    ["", /WEBHOOK_SECRET_KEY is not set/],
    ["dev", /WEBHOOK_SECRET_KEY: entry 1 does not start with a key id/],
    [`dev:${toBase64(new Uint8Array(16))}`, /WEBHOOK_SECRET_KEY: key "dev" is not the base64 of 32 bytes/],
  ])("refuses to create a webhook with %j: a 500 that writes nothing, logged with what to fix", async (value, message) => {
    const o = await organization();
    const log = errorLog();
    const res = await withWebhookKey(value, () => post("/v1/webhooks", o.key, webhookDoc()));
    expect(res.status).toBe(500);
    expect(res.text).not.toMatch(/WEBHOOK_SECRET_KEY|whsec_/);
    expect(log()).toMatch(message);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM webhooks WHERE organization_id = ?").bind(o.id).first("n")).toBe(0);
  });
});
