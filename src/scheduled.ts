import { type Db, primaryDb } from "./db";
import { emptyEventBodies, sweepOutbox } from "./events/outbox";
import type { QueueMessage } from "./lib/queue";
import { purgeOrphanObjects } from "./services/attachment-objects";
import { OBJECT_PREFIX } from "./services/attachments";
import { purgeExpiredIdempotencyKeys } from "./lib/idempotency-key";
import { purgeDeliveries, resealWebhookSecrets, sweepDeliveries } from "./webhooks/maintenance";
import { PLATFORM_CALLER, type ServiceContext } from "./services/context";
import { closeUnansweredInfoRequests } from "./services/vulns/info-requests";
import { sweepDeadlineAlerts } from "./services/deadline-alerts";
import { sweepNotifications } from "./notifications/send";
import { versionUnversionedPolicies } from "./services/policy-versions";
import { checkCustomDomainClaims } from "./services/custom-domains";
import { dnsOverHttps } from "./lib/dns";
import { purgeOldAuditEvents } from "./services/audit-events";
import { purgeSignInRecords } from "./services/sign-in";
import { purgeGateMarks, releaseQueuedReports } from "./services/gate/queue";

/**
 * Every minute: close the reports whose request for more information went unanswered for 30 days,
 * give a first version to policies made before versions existed,
 * send the deadline alerts that are due, release the reports a brief's daily cap queued (as far as today's cap allows),
 * look up the TXT records of custom domains waiting for proof of control (and release claims never proven),
 * re-send events, deliveries and e-mails whose messages were lost, forget what expired (audit rows
 * after 400 days among it), keep webhook secrets sealed under the newest key, delete attachment objects
 * no row names, what signing in left behind (counted attempts, spent links and challenges) and the gate's marks
 * of public submissions after two hours, and empty the bodies of events processed before bodies were
 * emptied at processing. Each step
 * on its own: a queue that is down must not stop the purges, nor one sweep the other.
 */
export async function runScheduled(env: Env, now = new Date()): Promise<void> {
  const db = primaryDb(env.DB);
  const queue = env.EVENTS as Queue<QueueMessage>;
  const { platform, sent } = platformContext(db, queue);
  const steps = {
    closeUnansweredInfoRequests: () => closeUnansweredInfoRequests(platform, now),
    sweepDeadlineAlerts: () => sweepDeadlineAlerts(platform, now),
    releaseQueuedReports: () => releaseQueuedReports(platform, now),
    sweepOutbox: () => sweepOutbox(db, queue),
    sweepDeliveries: () => sweepDeliveries(db, queue),
    sweepNotifications: () => sweepNotifications(db, queue),
    versionUnversionedPolicies: () => versionUnversionedPolicies(db),
    checkCustomDomainClaims: () => checkCustomDomainClaims(platform, dnsOverHttps(env.DNS_OVER_HTTPS_URL), now),
    purgeExpiredIdempotencyKeys: () => purgeExpiredIdempotencyKeys(db),
    purgeDeliveries: () => purgeDeliveries(db),
    purgeOldAuditEvents: () => purgeOldAuditEvents(db, now),
    resealWebhookSecrets: () => resealWebhookSecrets(db),
    purgeOrphanAttachments: () => purgeOrphanObjects(db, { bucket: env.ATTACHMENTS, prefix: OBJECT_PREFIX }),
    purgeSignInRecords: () => purgeSignInRecords(db, now.getTime()),
    purgeGateMarks: () => purgeGateMarks(db, now),
    emptyEventBodies: () => emptyEventBodies(db),
  };
  const results = await Promise.allSettled(Object.values(steps).map((step) => step()));
  await sent();
  results.forEach((r, i) => {
    if (r.status === "rejected")
      console.error(JSON.stringify({ level: "error", message: `scheduled ${Object.keys(steps)[i]} failed`, error: String(r.reason) }));
  });
}

/**
 * The cron's own changes run as the platform: no organization's tenancy; the events they write are
 * sent before the run ends (`await sent()`).
 */
export function platformContext(db: Db, queue: Queue<QueueMessage>): { platform: ServiceContext; sent: () => Promise<unknown> } {
  const sends: Promise<unknown>[] = [];
  return {
    platform: { db, caller: PLATFORM_CALLER, queue, defer: (work) => sends.push(work) },
    sent: () => Promise.allSettled(sends),
  };
}
