import { and, eq, lt, or } from "drizzle-orm";
import type { Db } from "../db";
import { idempotencyKeys, type IdempotencyKeyRow } from "../db/schema";
import { uuidv7 } from "./ids";
import { Conflict, IdempotentReplay, KeyReused, type StoredResponse } from "./domain-errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
// A reservation whose request died (the isolate was evicted mid-request) can be taken over after this.
const STALE_IN_FLIGHT_MS = 60 * 1000;

/**
 * One request's Idempotency-Key. The key is reserved (in_flight, with this
 * request's token) before the change, and sealed with the response in the change's own batch, so a
 * key is either free, in flight, or done with exactly the response of the change that committed.
 */
export class IdempotencyUnit {
  readonly token = uuidv7();
  reserved = false;
  sealed = false;

  readonly #db: () => Db;

  /**
   * `db` may be given as a function: a request of a sharded deployment prepares its key before its route
   * has found the shard, and reads it (through its services) only after.
   */
  constructor(
    db: Db | (() => Db),
    readonly scope: string,
    readonly key: string,
    readonly requestHash: string,
  ) {
    this.#db = typeof db === "function" ? db : () => db;
  }

  private get db(): Db {
    return this.#db();
  }

  /**
   * Whether `db` is where this key's record is kept: the request's own database. A change committed
   * anywhere else (a new organization's shard) cannot seal the key in its batch (see commit).
   */
  keptIn(db: Db): boolean {
    return this.db === db;
  }

  private where() {
    return and(eq(idempotencyKeys.scope, this.scope), eq(idempotencyKeys.key, this.key), eq(idempotencyKeys.token, this.token));
  }

  /** An upsert that takes the key if free, expired or abandoned, and a read of who holds it now. */
  reserveStatements() {
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const fresh = {
      requestHash: this.requestHash,
      state: "in_flight" as const,
      token: this.token,
      responseStatus: null,
      responseHeaders: null,
      responseBody: null,
      createdAt: nowIso,
      expiresAt: new Date(now + IDEMPOTENCY_TTL_MS).toISOString(),
    };
    const takeover = or(
      lt(idempotencyKeys.expiresAt, nowIso),
      and(eq(idempotencyKeys.state, "in_flight"), lt(idempotencyKeys.createdAt, new Date(now - STALE_IN_FLIGHT_MS).toISOString())),
    );
    return [
      this.db
        .insert(idempotencyKeys)
        .values({ scope: this.scope, key: this.key, ...fresh })
        .onConflictDoUpdate({ target: [idempotencyKeys.scope, idempotencyKeys.key], set: fresh, setWhere: takeover }),
      this.db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.scope, this.scope), eq(idempotencyKeys.key, this.key))),
    ] as const;
  }

  /** Decides from the reservation's read: proceed, replay, 409 (in flight) or 422 (other body). */
  settle(rows: IdempotencyKeyRow[]): void {
    const row = rows[0];
    if (row?.token === this.token) {
      this.reserved = true;
      return;
    }
    const source = { header: "Idempotency-Key" };
    if (!row) throw new Conflict("The Idempotency-Key could not be reserved; retry.", source);
    if (row.requestHash !== this.requestHash) {
      throw new KeyReused("This Idempotency-Key was used with a different request in the last 24 hours.", source);
    }
    if (row.state === "in_flight") throw new Conflict("A request with this Idempotency-Key is still in flight.", source);
    throw new IdempotentReplay({ status: row.responseStatus ?? 200, headers: row.responseHeaders ?? {}, body: row.responseBody ?? "" });
  }

  async reserve(): Promise<void> {
    const [upsert, select] = this.reserveStatements();
    const [, rows] = await this.db.batch([upsert, select]);
    this.settle(rows);
  }

  /**
   * The statement that completes the key with the response, for the change's own batch. The unit
   * counts as sealed only once that batch has committed (see commit): a failed batch leaves the key
   * to be released.
   */
  sealStatement(response: StoredResponse) {
    return this.db
      .update(idempotencyKeys)
      .set({ state: "done", responseStatus: response.status, responseHeaders: response.headers, responseBody: response.body })
      .where(this.where());
  }

  /**
   * Frees the key after a failed request, so the client can retry with it. Only while in flight: if
   * the change's batch committed and the error came after (D1 can fail on the way back), the key is
   * done, and the retry must get the replay, not a second change.
   */
  async release(): Promise<void> {
    await this.db.delete(idempotencyKeys).where(and(this.where(), eq(idempotencyKeys.state, "in_flight")));
  }

  /** For a successful request that made no batch of its own: store its response after the fact. */
  async storeAfter(response: StoredResponse): Promise<void> {
    await this.sealStatement(response);
    this.sealed = true;
  }

  /**
   * Stores the response of a change that committed in another database than the record's, right after
   * it. The change stands whatever happens here, so a failure is logged, not thrown; the record then
   * stays in flight (a retry answers 409, and takes it over after a minute), and nothing else is stored
   * in its place: the request's own answer may show what its stored response must not (a new key).
   */
  async sealAfterCommit(response: StoredResponse): Promise<void> {
    try {
      await this.storeAfter(response);
    } catch (err) {
      this.sealed = true;
      console.error(JSON.stringify({ level: "warn", message: "idempotency key not sealed after its change", error: String(err) }));
    }
  }
}

export async function purgeExpiredIdempotencyKeys(db: Db, now = new Date().toISOString()): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now));
}
