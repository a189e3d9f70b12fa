import { type Db, primaryDb } from "./db";
import { emptyEventBodies, sweepOutbox } from "./events/outbox";
import { type QueueMessage, shardQueue } from "./lib/queue";
import { type Shards, shardsOf } from "./db/shards";
import { type Catalog, recordRoom, replicateDirectories, shardCatalog } from "./db/catalog";
import { forgetName } from "./http/shard-lookup";
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
import { advanceUnfinishedMoves, anyMoveUnderWay } from "./services/shard-moves";
import { moveContext } from "./routes/v1/organizations/move-context";

/**
 * Every minute: close the reports whose request for more information went unanswered for 30 days,
 * give a first version to policies made before versions existed,
 * send the deadline alerts that are due, release the reports a brief's daily cap queued (as far as today's cap allows),
 * look up the TXT records of custom domains waiting for proof of control (and release claims never proven),
 * re-send events, deliveries and e-mails whose messages were lost, forget what expired (audit rows
 * after 400 days among it), keep webhook secrets sealed under the newest key, delete attachment objects
 * no row names, what signing in left behind (counted attempts, spent links and challenges) and the gate's marks
 * of public submissions after two hours, empty the bodies of events processed before bodies were emptied
 * at processing, and (sharded) measure each tenant database's room and advance the organizations' moves
 * between them. Each step on its own, in each shard: a queue that is down must not stop the purges, nor
 * one sweep the other, nor one shard's trouble another's.
 */
export async function runScheduled(env: Env, now = new Date()): Promise<void> {
  const shards = shardsOf(env);
  // Each shard's steps run on their own: one shard's trouble stops no other's.
  // The catalog, for the steps that give names back (a custom domain's claim never proven).
  const catalog = shards.sharded ? shardCatalog(shards, forgetName) : undefined;
  const perShard = shards.names.map((name) => {
    const db = primaryDb(shards.binding(name));
    const queue = env.EVENTS as Queue<QueueMessage>;
    return { name, db, ...shardSteps(env, { db, queue: shards.sharded ? shardQueue(queue, () => name) : queue, now, catalog }) };
  });
  const moves = moveContext(env, now.getTime());
  const platformSteps: Record<string, () => Promise<unknown>> = {
    // Attachment objects share one bucket: an object is an orphan only if no shard names it. While an
    // organization moves, its files' rows are between databases: the purge waits for the move to end.
    purgeOrphanAttachments: async () =>
      (await anyMoveUnderWay(moves)) ||
      purgeOrphanObjects(
        perShard.map((s) => s.db),
        { bucket: env.ATTACHMENTS, prefix: OBJECT_PREFIX },
      ),
    ...(shards.sharded && {
      measureShardRooms: () => measureShardRooms(shards, now),
      replicateDirectories: () => replicateDirectories(shards),
      // Signing in keeps its counted attempts and challenges in the catalog, and names its links there.
      purgeCatalogSignInRecords: () => purgeSignInRecords(primaryDb(shards.catalog), now.getTime()),
      // A move whose command stopped goes on, a step a minute.
      advanceShardMoves: () => advanceUnfinishedMoves(moves),
    }),
  };
  const runs = [
    ...perShard.flatMap(({ name, steps }) => Object.entries(steps).map(([step, run]) => ({ what: `${step} (${name})`, run }))),
    ...Object.entries(platformSteps).map(([step, run]) => ({ what: step, run })),
  ];
  const results = await Promise.allSettled(runs.map(({ run }) => run()));
  await Promise.all(perShard.map((s) => s.sent()));
  results.forEach((r, i) => {
    if (r.status === "rejected")
      console.error(JSON.stringify({ level: "error", message: `scheduled ${runs[i]!.what} failed`, error: String(r.reason) }));
  });
}

/** One shard's steps, in its own database; the events they write are sent with the shard's name. */
function shardSteps(env: Env, { db, queue, now, catalog }: { db: Db; queue: Queue<QueueMessage>; now: Date; catalog?: Catalog }) {
  const { platform: own, sent } = platformContext(db, queue);
  const platform = { ...own, catalog };
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
    purgeSignInRecords: () => purgeSignInRecords(db, now.getTime()),
    purgeGateMarks: () => purgeGateMarks(db, now),
    emptyEventBodies: () => emptyEventBodies(db),
  };
  return { steps, sent };
}

/** Each tenant database's size as D1 reports it, kept in the catalog: new organizations go where there is most room. */
async function measureShardRooms(shards: Shards, now: Date): Promise<void> {
  const catalog = primaryDb(shards.catalog);
  await Promise.all(
    shards.names.map(async (shard) => {
      const { meta } = await shards.binding(shard).prepare("SELECT 1").run();
      await recordRoom(catalog, { shard, sizeBytes: meta.size_after, at: now.toISOString() });
    }),
  );
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
