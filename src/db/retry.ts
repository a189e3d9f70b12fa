/**
 * The local runtime (`npm run dev`, Miniflare's D1) runs each statement or batch in a transaction that
 * ends by reading a commit token; when another process has just written the same database file (the
 * seed, `operator-key -- --local`, `wrangler d1 execute --local`), that read fails with "Failed to get
 * session commit token", or the transaction cannot take the file's lock ("database is locked:
 * SQLITE_BUSY", about one write in a thousand while operator-key ran beside the dev server), and it
 * rolls back: nothing was written, so running it again is safe for reads and writes alike. Deployed D1
 * never says either (one writer per database; it retries read-only queries itself), so there the
 * wrapper only passes calls through.
 */
const ROLLED_BACK = /Failed to get session commit token|database is locked: SQLITE_BUSY/;

/**
 * Waits before each attempt after the first: the other process's write is usually over by the first
 * retry; the last waits leave room for a slow write on a busy machine (2.1 s in all).
 */
export const RETRY_WAITS_MS = [25, 100, 400, 1600] as const;

export async function retryRolledBack<T>(attempt: () => Promise<T>, wait = pause): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      const ms = RETRY_WAITS_MS[i];
      if (ms === undefined || !ROLLED_BACK.test(String(err))) throw err;
      await wait(ms);
    }
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Session = Pick<D1DatabaseSession, "prepare" | "batch">;

/** A statement whose runs are retried; `inner` is what a batch hands to D1. */
class RetriedStatement implements D1PreparedStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly wait: (ms: number) => Promise<void>,
  ) {}
  bind(...values: unknown[]): RetriedStatement {
    return new RetriedStatement(this.inner.bind(...values), this.wait);
  }
  first<T = unknown>(column: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  first<T>(column?: string): Promise<T | null> {
    return retryRolledBack(() => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)), this.wait);
  }
  run<T>(): Promise<D1Result<T>> {
    return retryRolledBack(() => this.inner.run<T>(), this.wait);
  }
  all<T>(): Promise<D1Result<T>> {
    return retryRolledBack(() => this.inner.all<T>(), this.wait);
  }
  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<T[] | [string[], ...T[]]> {
    return retryRolledBack(() => this.inner.raw<T>(options as { columnNames: true }) as Promise<T[] | [string[], ...T[]]>, this.wait);
  }
}

/** The session (or binding) with every statement and batch retried as `retryRolledBack` says. */
export function retryingRolledBack(d1: Session, wait = pause): Session {
  return {
    prepare: (sql: string) => new RetriedStatement(d1.prepare(sql), wait),
    batch: <T>(statements: D1PreparedStatement[]) =>
      retryRolledBack(() => d1.batch<T>(statements.map((s) => (s instanceof RetriedStatement ? s.inner : s))), wait),
  };
}
