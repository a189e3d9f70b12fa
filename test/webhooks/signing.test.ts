import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, sign, signatureHeader } from "../../src/webhooks/signing";

const body = JSON.stringify({ vuln: { id: "v1", destroyed: true } });

describe("Standard Webhooks signing", () => {
  it("makes secrets as whsec_ and the base64 of 32 random bytes", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice(6))).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it("verifies with the reference implementation", async () => {
    const secret = generateWebhookSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "webhook-id": "evt_1",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await sign(secret, "evt_1", timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // A changed body, id or timestamp does not verify.
    expect(() => new Webhook(secret).verify(body.replace("v1", "v2"), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "evt_2" })).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("signs with both secrets during a rotation, so either verifies", async () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signatureHeader([current, previous], "evt_9", timestamp, body);
    expect(signature.split(" ")).toHaveLength(2);
    const headers = { "webhook-id": "evt_9", "webhook-timestamp": String(timestamp), "webhook-signature": signature };
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
  });

  it("matches a known vector", async () => {
    // HMAC-SHA256 under the 32 zero bytes of this secret, computed independently.
    const secret = `whsec_${btoa(String.fromCharCode(...new Uint8Array(32)))}`;
    const expected = await crypto.subtle
      .importKey("raw", new Uint8Array(32), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      .then((k) => crypto.subtle.sign("HMAC", k, new TextEncoder().encode(`msg_1.1700000000.${body}`)));
    expect(await sign(secret, "msg_1", 1700000000, body)).toBe(`v1,${btoa(String.fromCharCode(...new Uint8Array(expected)))}`);
  });
});
