import { fromBase64, toBase64 } from "../lib/crypto";

// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` and the
// base64 of 32 random bytes; a signature is `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
// under the decoded secret. During a rotation two signatures travel, space-separated.

export function generateWebhookSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

export async function sign(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const bytes = fromBase64(secret.replace(/^whsec_/, ""));
  if (!bytes) throw new Error("a webhook signing secret is not whsec_ and base64");
  const key = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The webhook-signature header: the current secret, and the previous one while it is still valid. */
export async function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): Promise<string> {
  return (await Promise.all(secrets.map((s) => sign(s, id, timestamp, body)))).join(" ");
}
