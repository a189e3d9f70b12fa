import { env } from "cloudflare:workers";

/**
 * A queue that records what is sent (or refuses everything), so tests decide when the consumer runs. It
 * records a message as a one-database world sends it: a sharded world's also names its shard (`shards`
 * keeps those, in the order of `sent`), which runQueue finds again from the row.
 */
export function fakeQueue(opts: { failing?: boolean } = {}) {
  const sent: { event_id: string }[] = [];
  const shards: (string | undefined)[] = [];
  const record = ({ shard, ...body }: { event_id: string; shard?: string }) => {
    sent.push(body);
    shards.push(shard);
  };
  /** The delay each sent message asked for (undefined: none), in the order of `sent`. */
  const delays: (number | undefined)[] = [];
  const queue = {
    async send(body: { event_id: string }, options?: { delaySeconds?: number }) {
      if (opts.failing) throw new Error("Queue send failed: queue unavailable");
      record(body);
      delays.push(options?.delaySeconds);
    },
    async sendBatch(messages: Iterable<{ body: { event_id: string }; delaySeconds?: number }>) {
      if (opts.failing) throw new Error("Queue send failed: queue unavailable");
      for (const m of messages) {
        record(m.body);
        delays.push(m.delaySeconds);
      }
    },
  } as unknown as Queue;
  return { queue, sent, shards, delays, ids: () => sent.map((m) => m.event_id) };
}

export interface StoredEvent {
  id: string;
  type: string;
  payload: string;
  vuln_id: string;
  processed_at: string | null;
}

/** The outbox rows of one vuln, in the order they were written. */
export async function eventsOf(vulnId: string): Promise<StoredEvent[]> {
  const { results } = await env.DB.prepare("SELECT id, type, payload, vuln_id, processed_at FROM events WHERE vuln_id = ? ORDER BY rowid")
    .bind(vulnId)
    .all<StoredEvent>();
  return results;
}

export async function eventTypes(vulnId: string): Promise<string[]> {
  return (await eventsOf(vulnId)).map((e) => e.type);
}

export async function count(table: string): Promise<number> {
  return (await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
}
