/** A response kept for an Idempotency-Key: replayed byte for byte to a repeat of the same request. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Thrown to short-circuit a request whose key already completed: the app's error handler answers with
 * the first response again. It lives in the HTTP layer, beside the handler that answers it, so the
 * HTTP layer never reaches into services.
 */
export class IdempotentReplay extends Error {
  constructor(readonly stored: StoredResponse) {
    super("idempotent replay");
  }

  /** The first response again, through the request's context so its own headers (X-Request-Id, CORS) apply. */
  response(c: { header(name: string, value: string): void; body(data: string, status: number): Response }): Response {
    for (const [name, value] of Object.entries(this.stored.headers)) c.header(name, value);
    c.header("Idempotent-Replayed", "true");
    return c.body(this.stored.body, this.stored.status);
  }
}
