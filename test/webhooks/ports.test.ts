import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { get, patch, post } from "../helpers/api";
import { webhookDoc } from "../helpers/endpoints";
import { organization, webhook, type TestOrganization } from "../helpers/factories";
import { receiver, runQueue } from "../helpers/webhooks";

let org: TestOrganization;
let restore: (() => void) | undefined;
beforeAll(async () => {
  org = await organization();
});
afterEach(() => {
  restore?.();
  restore = undefined;
});

async function stored(organizationId: string) {
  const { results } = await env.DB.prepare("SELECT id, url FROM webhooks WHERE organization_id = ? ORDER BY id").bind(organizationId).all();
  const subscriptions = await env.DB.prepare(
    "SELECT count(*) AS n FROM webhook_subscriptions WHERE webhook_id IN (SELECT id FROM webhooks WHERE organization_id = ?)",
  )
    .bind(organizationId)
    .first("n");
  return { webhooks: results, subscriptions };
}

describe("webhook URL ports", () => {
  it.each(["https://example.com:6379/", "https://example.com:80/", "https://example.com:65536/", "https://example.com:00080/"])(
    "refuses %s with 422 at /data/attributes/url and writes nothing",
    async (url) => {
      const before = await stored(org.id);
      const res = await post("/v1/webhooks", org.key, webhookDoc({ url }));
      expect(res.status).toBe(422);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].source).toEqual({ pointer: "/data/attributes/url" });
      expect(await stored(org.id)).toEqual(before);
    },
  );

  it("refuses a PATCH to another port and leaves the URL as it was", async () => {
    const hook = await webhook(org);
    const res = await patch(`/v1/webhooks/${hook.id}`, org.key, {
      data: { type: "webhook", id: hook.id, attributes: { url: "https://hooks.example.com:8080/vdp" } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source).toEqual({ pointer: "/data/attributes/url" });
    expect((await get(`/v1/webhooks/${hook.id}`, org.key)).body.data.attributes.url).toBe("https://hooks.example.com/vdp");
  });

  it("accepts 443 however written, and 8443, storing the URL it will send to", async () => {
    const o = await organization();
    const a = await post("/v1/webhooks", o.key, webhookDoc({ url: "https://hooks.example.com:0443/a" }));
    const b = await post("/v1/webhooks", o.key, webhookDoc({ url: "https://hooks.example.com:08443/b" }));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.attributes.url).toBe("https://hooks.example.com/a");
    expect(b.body.data.attributes.url).toBe("https://hooks.example.com:8443/b");
    expect((await stored(o.id)).webhooks.map((w) => w.url).sort()).toEqual([
      "https://hooks.example.com/a",
      "https://hooks.example.com:8443/b",
    ]);
  });

  it("checks the port again before sending: a row with another port is sent nothing", async () => {
    const o = await organization();
    const hook = await webhook(o);
    const deliveryId = (await post(`/v1/webhooks/${hook.id}/ping`, o.key, undefined)).body.data.id;
    // A row written before the rule (or by hand): the send must not trust it.
    await env.DB.prepare("UPDATE webhooks SET url = 'https://hooks.example.com:6379/' WHERE id = ?").bind(hook.id).run();
    const r = receiver();
    restore = r.restore;
    expect((await runQueue([{ delivery_id: deliveryId }])).acked).toBe(1);
    expect(r.sent).toEqual([]);
    const detail = (await get(`/v1/webhooks/${hook.id}/deliveries/${deliveryId}`, o.key)).body.data.attributes;
    expect(detail.status).toBe("failed");
    expect(detail.attempts[0].error).toBe("url refused: must use port 443 or 8443 (or name none)");
  });
});
