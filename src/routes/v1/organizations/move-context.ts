import { shardsOf } from "../../../db/shards";
import type { QueueMessage } from "../../../lib/queue";
import type { MoveContext } from "../../../services/shard-moves";
import { evictPublic, stalePaths } from "../../../http/cache";
import { forgetName, forgetTenant } from "../../../http/shard-lookup";

/** What an organization's move needs of the Worker (the route's request, or the cron's run): both see the same edge cache. */
export function moveContext(env: Env, now: number): MoveContext {
  return {
    shards: shardsOf(env),
    queue: env.EVENTS as Queue<QueueMessage>,
    now,
    forget: async (organizationId, names) => {
      await Promise.all([forgetTenant(organizationId), ...names.map(forgetName)]);
    },
    evict: (stale) => evictPublic(stalePaths(stale)),
  };
}
