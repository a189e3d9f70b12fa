import { env } from "cloudflare:workers";
import { loadKeyring, seal, sealedWith, unseal, type Keyring } from "../lib/secret-box";

// Webhook signing secrets are stored sealed (src/lib/secret-box.ts) under WEBHOOK_SECRET_KEY. The
// webhook's id is the sealing context, so a secret copied into another webhook's row does not open.
// The key comes from the Worker's own environment, the same in the request, queue and cron handlers.

const SETTING = "WEBHOOK_SECRET_KEY";
const context = (webhookId: string) => `webhooks/${webhookId}`;

/** Throws KeyringError, naming the setting and its expected form, when WEBHOOK_SECRET_KEY is missing or malformed. */
export function webhookKeyring(): Promise<Keyring> {
  return loadKeyring(env.WEBHOOK_SECRET_KEY, SETTING);
}

export async function sealWebhookSecret(webhookId: string, secret: string, keyring?: Keyring): Promise<string> {
  return seal(keyring ?? (await webhookKeyring()), secret, context(webhookId));
}

/**
 * Rows written before secrets were sealed hold the plain `whsec_` value: it is used as it is, and the
 * cron seals it (resealWebhookSecrets). Anything else must open, or this throws: a secret that does
 * not open never signs, and nothing is sent unsigned.
 */
export async function openWebhookSecret(webhookId: string, stored: string, keyring?: Keyring): Promise<string> {
  if (isPlainSecret(stored)) return stored;
  return unseal(keyring ?? (await webhookKeyring()), stored, context(webhookId));
}

export const isPlainSecret = (stored: string) => stored.startsWith("whsec_");

/** Stored by an earlier version (plain) or under a key that is no longer the first: worth resealing. */
export const needsReseal = (stored: string, keyring: Keyring) => isPlainSecret(stored) || sealedWith(stored) !== keyring.current;
